import BenchSQLite

/// traversal, raw SQLite: one join of the authors with their books, every title read.
struct RawTraversal: PhaseContender {
    func prepare(path: String, sizes: Sizes) throws {
        let db = try SQLiteDB(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute(Library.createTablesSQL)
        try Library.fillTables(db, sizes)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> (Int, Int64) in
            let statement = try db.prepare(
                "SELECT author.id, book.title FROM author JOIN book ON book.authorId = author.id")
            defer { sqlite3_finalize(statement) }
            var (count, bytes): (Int, Int64) = (0, 0)
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW, sqlite3_column_text(statement, 1) != nil else {
                    throw BenchError("traversal: \(db.lastError)")
                }
                bytes += Int64(sqlite3_column_bytes(statement, 1))
                count += 1
            }
            return (count, bytes)
        }
        return PhaseResult(time: run.time, count: run.result.0, sum: run.result.1)
    }
}
