/// What may come before the `<database>` element of an XML store: a UTF-8 byte order mark,
/// the XML declaration (UTF-8 only), comments, and Core Data's own DOCTYPE line,
/// `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`, with no internal
/// subset. Any other DOCTYPE, DTD declaration, entity declaration or processing instruction
/// is refused here, before the document is parsed: the store's parser never reads a DTD,
/// never expands an entity other than XML's five and character references, and never
/// follows an external reference (the DOCTYPE's URL is a name, not something fetched).
enum XMLStoreProlog {
    static let doctype = #"<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">"#
    static let systemID = "file:///System/Library/DTDs/CoreData.dtd"

    /// Checks the bytes before the root element; the error names the line.
    static func check(_ bytes: [UInt8], path: String) throws(ObjectGraphError) {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var sawDoctype = false
        var first = true
        func fail(_ why: String) -> ObjectGraphError { XMLStoreErrors.damaged(path, line: line, why) }
        func starts(_ s: String) -> Bool {
            let u = Array(s.utf8)
            return i + u.count <= bytes.count && Array(bytes[i..<i + u.count]) == u
        }
        func until(_ end: String) -> Int? {
            let u = Array(end.utf8)
            var j = i
            while j + u.count <= bytes.count {
                if Array(bytes[j..<j + u.count]) == u { return j }
                j += 1
            }
            return nil
        }
        func count(lines from: Int, to: Int) { for k in from..<to where bytes[k] == 0x0A { line += 1 } }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A {
                if b == 0x0A { line += 1 }
                i += 1
                first = false
                continue
            }
            if starts("<?xml ") || starts("<?xml?") {
                guard first else { throw fail("the XML declaration must come first") }
                guard let end = until("?>") else { throw fail("unterminated XML declaration") }
                let text = String(decoding: bytes[i..<end], as: UTF8.self)
                if let start = text.firstRange(of: "encoding=") {
                    let value = text[start.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }.lowercased()
                    guard value == "utf-8" || value == "utf8" else { throw fail("the store is encoded as '\(value)'; XML stores are UTF-8") }
                }
                count(lines: i, to: end)
                i = end + 2
            } else if starts("<!--") {
                guard let end = until("-->") else { throw fail("unterminated comment") }
                count(lines: i, to: end)
                i = end + 3
            } else if starts("<!DOCTYPE") {
                guard !sawDoctype else { throw fail("a second DOCTYPE") }
                guard let end = until(">") else { throw fail("unterminated DOCTYPE") }
                let text = String(decoding: bytes[i..<end], as: UTF8.self)
                let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
                guard !text.contains("["), words.count == 4, words[1] == "database", words[2] == "SYSTEM",
                      words[3] == "\"\(systemID)\"" || words[3] == "'\(systemID)'"
                else {
                    throw fail("only Core Data's DOCTYPE (\(doctype)) is accepted; this file declares another DTD, which is not read")
                }
                sawDoctype = true
                count(lines: i, to: end)
                i = end + 1
            } else if starts("<!") {
                throw fail("DTD and entity declarations are not accepted in an XML store")
            } else if starts("<?") {
                throw fail("processing instructions are not accepted before the <database> element")
            } else if b == 0x3C {
                return
            } else {
                throw fail("text before the <database> element")
            }
            first = false
        }
        throw fail("the file has no <database> element")
    }
}
