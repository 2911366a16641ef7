import BenchSQLite

/// history, raw SQLite (the anchor of the read): the changes after the token's transaction
/// in one query through SQLite's C API, every column of every row read, on the same store
/// as ObjectGraph's (HistoryStore builds it; not timed). The count is the rows whose
/// `ZCHANGETYPE` is 0 (insert), the sum that of `ZENTITYPK`, as ObjectGraph's read counts
/// inserts and sums primary keys.
struct RawHistory: PhaseContender {
    static let readSQL = """
        SELECT c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZTRANSACTIONID FROM ACHANGE c \
        JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE t.Z_PK > ? ORDER BY c.Z_PK
        """

    /// The token's transaction number.
    private let after = Kept<Int64>()

    func prepare(path: String, sizes: Sizes) throws {
        let token = try HistoryStore.prepare(path: path, sizes: sizes)
        guard token.transactionNumbers.count == 1, let number = token.transactionNumbers.values.first else {
            throw BenchError("history: a token of \(token.transactionNumbers.count) stores")
        }
        after.value = number
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        guard let after = after.value else { throw BenchError("history: run before prepare") }
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> (Int, Int64, Int64) in
            let statement = try db.prepare(Self.readSQL)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, after)
            var inserts = 0
            var keys: Int64 = 0
            var other: Int64 = 0  // the change, entity and transaction numbers, read as well
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw BenchError("history: \(db.lastError)") }
                other &+= sqlite3_column_int64(statement, 0)
                if sqlite3_column_int64(statement, 1) == 0 { inserts += 1 }
                other &+= sqlite3_column_int64(statement, 2)
                keys &+= sqlite3_column_int64(statement, 3)
                other &+= sqlite3_column_int64(statement, 4)
            }
            return (inserts, keys, other)
        }
        return PhaseResult(time: run.time, count: run.result.0, sum: run.result.1)
    }
}
