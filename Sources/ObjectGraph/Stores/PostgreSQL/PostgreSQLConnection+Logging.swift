/// SQL logging (`OBJECTGRAPH_SQL_DEBUG`, `SQLDebug`) of the statements a PostgreSQL store
/// runs: the statement at level 1, with its values in place of `$n` from level 2 (bytea
/// values past `SQLDebug.blobDisplayLimit` bytes abbreviated), its time and rows at 3.
extension PostgreSQLConnection {
    /// The statement as level `level` logs it.
    static func logged(_ text: String, _ parameters: [PostgreSQLParameter], level: Int) -> String {
        guard level >= 2, !parameters.isEmpty else { return text }
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "$", let digitsEnd = text[text.index(after: i)...].firstIndex(where: { !$0.isNumber }) ?? Optional(text.endIndex),
                digitsEnd > text.index(after: i), let n = Int(text[text.index(after: i)..<digitsEnd]), n >= 1, n <= parameters.count
            {
                out += shown(parameters[n - 1])
                i = digitsEnd
                continue
            }
            out.append(c)
            i = text.index(after: i)
        }
        return out
    }

    private static func shown(_ p: PostgreSQLParameter) -> String {
        guard let text = p.textForm else { return "NULL" }
        switch p.type {
        case PostgreSQLParameter.int8, PostgreSQLParameter.float8, PostgreSQLParameter.numeric: return text
        case PostgreSQLParameter.bytea:
            let bytes = (text.utf8.count - 2) / 2
            if bytes <= SQLDebug.blobDisplayLimit { return "'" + text + "'" }
            return "'" + String(decoding: text.utf8.prefix(2 + 2 * SQLDebug.blobPrefix), as: UTF8.self) + "…' (\(bytes) bytes)"
        default: return "'" + text.replacing("'", with: "''") + "'"
        }
    }

    func logStatement(_ text: String, _ parameters: [PostgreSQLParameter], level: Int) {
        SQLDebug.emit(SQLDebug.Message(kind: .statement, level: min(level, 2), sql: Self.logged(text, parameters, level: level)))
    }

    func logTime(_ text: String, since start: ContinuousClock.Instant, rows: Int32) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        SQLDebug.emit(SQLDebug.Message(kind: .statementTime, level: 3, sql: text, duration: seconds, rows: Int(rows)))
    }
}
