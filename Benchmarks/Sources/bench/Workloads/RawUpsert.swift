import BenchSQLite

/// upsert, raw SQLite (the reference): a unique index on a0, and one prepared
/// `INSERT … ON CONFLICT(a0) DO UPDATE` per row in one transaction, on a fresh copy of
/// the store every run.
struct RawUpsert: PhaseContender {
    let table = "item"
    let columns = Workload.attributeNames

    static let upsertSQL =
        "INSERT INTO item (\(Workload.attributeNames.joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: Workload.attributeCount).joined(separator: ", ")
        + ") ON CONFLICT(a0) DO UPDATE SET "
        + Workload.attributeNames.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    func prepare(path: String, sizes: Sizes) throws {
        let template = StoreTemplate.path(for: path)
        try ItemFill.fillTable(path: template, rows: sizes.batchRows)
        try SQLiteDB(path: template).execute("CREATE UNIQUE INDEX item_a0 ON item(a0)")
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        try StoreTemplate.restore(path)
        let db = try SQLiteDB(path: path)
        let run = try timed { () throws -> Int in
            let statement = try db.prepare(Self.upsertSQL)
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            let before = sqlite3_total_changes(db.handle)
            for i in sizes.upsertRange {
                for k in 0..<Workload.attributeCount {
                    sqlite3_bind_int64(statement, Int32(k + 1), Workload.value(i, k))
                }
                try db.stepDone(statement)
            }
            try db.execute("COMMIT")
            return Int(sqlite3_total_changes(db.handle) - before)
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
