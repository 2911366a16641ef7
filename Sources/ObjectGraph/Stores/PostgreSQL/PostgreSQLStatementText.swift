/// SQL written for Core Data's layout, made PostgreSQL's: the store shares the SQLite
/// store's SELECT builder, predicate translator and schema names, whose SQL differs from
/// PostgreSQL's in three spellings only, changed here once per statement text (the result
/// is prepared and kept):
/// - parameters: `?` and `?N` become `$N`;
/// - Apple's upper-case names (`ZBOOK`, `Z_PK`, `Z_1TAGS`, `ATRANSACTION`), bare in SQLite's SQL, are
///   double-quoted, since PostgreSQL folds bare names to lower case;
/// - `IFNULL(` becomes `COALESCE(`.
/// Quoted text ('…') and quoted names ("…") are copied as they are.
enum PostgreSQLStatementText {
    /// Apple's history tables, the upper-case names that do not start with Z.
    static let historyTables: Set<String> = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]

    static func adapt(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 32)
        var i = 0, next = 1
        func isWord(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 95 || b == 36 }
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        while i < bytes.count {
            let b = bytes[i]
            if b == 39 || b == 34 {  // ' or ": copy through the closing quote (doubled quotes included)
                let quote = b
                out.append(b); i += 1
                while i < bytes.count {
                    out.append(bytes[i])
                    if bytes[i] == quote {
                        if i + 1 < bytes.count, bytes[i + 1] == quote { out.append(quote); i += 2; continue }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if b == 63 {  // ?
                var j = i + 1
                while j < bytes.count, isDigit(bytes[j]) { j += 1 }
                out.append(36)  // $
                if j > i + 1 {
                    out.append(contentsOf: bytes[(i + 1)..<j])
                } else {
                    out.append(contentsOf: Array(String(next).utf8))
                    next += 1
                }
                i = j
                continue
            }
            if isWord(b) && (i == 0 || !isWord(bytes[i - 1])) {
                var j = i
                while j < bytes.count, isWord(bytes[j]) { j += 1 }
                let word = bytes[i..<j]
                // `x IS ?` / `x IS NOT ?` (SQLite's null-safe equality) is PostgreSQL's
                // `IS NOT DISTINCT FROM` / `IS DISTINCT FROM`.
                if word.elementsEqual("IS".utf8), let rest = isComparison(bytes, from: j) {
                    out.append(contentsOf: (rest.negated ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM").utf8)
                    i = rest.end
                    continue
                }
                let upper = word.allSatisfy { ($0 >= 65 && $0 <= 90) || isDigit($0) || $0 == 95 }
                if upper, (word.count >= 2 && word.first == 90) || historyTables.contains(String(decoding: word, as: UTF8.self)) {  // Apple's names
                    out.append(34); out.append(contentsOf: word); out.append(34)
                } else if word.elementsEqual("IFNULL".utf8), j < bytes.count, bytes[j] == 40 {
                    out.append(contentsOf: "COALESCE".utf8)
                } else {
                    out.append(contentsOf: word)
                }
                i = j
                continue
            }
            out.append(b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// After an `IS` ending at `start`: when a parameter follows (`IS ?`, `IS NOT ?`),
    /// where the words before it end, and whether NOT was among them.
    private static func isComparison(_ bytes: [UInt8], from start: Int) -> (end: Int, negated: Bool)? {
        var j = start
        while j < bytes.count, bytes[j] == 32 { j += 1 }
        var negated = false
        if j + 3 <= bytes.count, bytes[j..<(j + 3)].elementsEqual("NOT".utf8), j + 3 < bytes.count, bytes[j + 3] == 32 {
            negated = true
            j += 3
            while j < bytes.count, bytes[j] == 32 { j += 1 }
        }
        guard j < bytes.count, bytes[j] == 63 else { return nil }
        return (j, negated)
    }
}
