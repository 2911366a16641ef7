import BenchSQLite

/// The floor: SQLite's C API, one prepared statement, one transaction, no objects.
struct RawSQLite: SwiftContender {
    let insertTable = "item"
    let insertColumns = Workload.attributeNames

    private static let insertSQL =
        "INSERT INTO item (\(Workload.attributeNames.joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: Workload.attributeCount).joined(separator: ", ") + ")"
    private static let selectSQL =
        "SELECT \(Workload.attributeNames.joined(separator: ", ")) FROM item"

    func insert(path: String, count: Int) throws -> Duration {
        let db = try SQLiteDB(path: path)
        try db.execute("PRAGMA journal_mode=WAL")  // as ObjectGraph's stores
        try db.execute(Workload.createTableSQL)
        return try timed {
            let statement = try db.prepare(Self.insertSQL)
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            for i in 0..<count {
                for k in 0..<Workload.attributeCount {
                    sqlite3_bind_int64(statement, Int32(k + 1), Workload.value(i, k))
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("insert: \(db.lastError)") }
                sqlite3_reset(statement)
            }
            try db.execute("COMMIT")
        }.time
    }

    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int) {
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> (Int64, Int) in
            let statement = try db.prepare(Self.selectSQL)
            defer { sqlite3_finalize(statement) }
            var sum: Int64 = 0
            var count = 0
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw BenchError("fetch: \(db.lastError)") }
                for k in 0..<Int32(Workload.attributeCount) { sum &+= sqlite3_column_int64(statement, k) }
                count += 1
            }
            return (sum, count)
        }
        return (run.time, run.result.0, run.result.1)
    }
}
