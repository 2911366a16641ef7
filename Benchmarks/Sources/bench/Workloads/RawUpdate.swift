import BenchSQLite

/// update, raw SQLite: one `UPDATE … SET a9 = a9 + 1 WHERE a0 < ?` in one transaction.
struct RawUpdate: PhaseContender {
    let table = "item"
    let columns = Workload.attributeNames

    func prepare(path: String, sizes: Sizes) throws {
        try ItemFill.fillTable(path: path, rows: sizes.updateRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> Int in
            let statement = try db.prepare("UPDATE item SET a9 = a9 + 1 WHERE a0 < ?")
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            sqlite3_bind_int64(statement, 1, Int64(sizes.updateCount * 10))
            try db.stepDone(statement)
            try db.execute("COMMIT")
            return Int(sqlite3_changes(db.handle))
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
