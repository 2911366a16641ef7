import BenchSQLite

/// indexed, raw SQLite: `SELECT a0…a9 FROM item WHERE a0 >= ? AND a0 < ?` on an index of a0.
struct RawIndexed: PhaseContender {
    func prepare(path: String, sizes: Sizes) throws {
        try ItemFill.fillTable(path: path, rows: sizes.indexedRows)
        try SQLiteDB(path: path).execute("CREATE INDEX item_a0 ON item(a0)")
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let db = try SQLiteDB(path: path)
        let range = sizes.indexedRange
        let run = try timed { () throws -> (Int, Int64) in
            let statement = try db.prepare(
                "SELECT \(Workload.attributeNames.joined(separator: ", ")) FROM item WHERE a0 >= ? AND a0 < ?")
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, Int64(range.lowerBound * 10))
            sqlite3_bind_int64(statement, 2, Int64(range.upperBound * 10))
            var (count, sum): (Int, Int64) = (0, 0)
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw BenchError("indexed: \(db.lastError)") }
                for k in 0..<Int32(Workload.attributeCount) { sum &+= sqlite3_column_int64(statement, k) }
                count += 1
            }
            return (count, sum)
        }
        return PhaseResult(time: run.time, count: run.result.0, sum: run.result.1)
    }
}
