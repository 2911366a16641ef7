import BenchSQLite

/// batch-update, raw SQLite (the anchor): one `UPDATE item SET a9 = ? WHERE a0 >= ?` in one
/// transaction, on a fresh copy of the store every run (a run that wrote the values already
/// there would time SQLite rewriting identical rows, which costs it half as much).
struct RawBatchUpdate: PhaseContender {
    let table = "item"
    let columns = Workload.attributeNames

    func prepare(path: String, sizes: Sizes) throws {
        try ItemFill.fillTable(path: StoreTemplate.path(for: path), rows: sizes.batchRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        try StoreTemplate.restore(path)
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> Int in
            let statement = try db.prepare("UPDATE item SET a9 = ? WHERE a0 >= ?")
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            sqlite3_bind_int64(statement, 1, Sizes.batchUpdateValue)
            sqlite3_bind_int64(statement, 2, Sizes.batchLowerBound)
            try db.stepDone(statement)
            try db.execute("COMMIT")
            return Int(sqlite3_changes(db.handle))
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
