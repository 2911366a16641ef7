import GRDB

/// indexed, GRDB: `GRDBItem.filter(a0 >= … && a0 < …).fetchAll`, on an index of a0.
struct GRDBIndexed: PhaseContender {
    func prepare(path: String, sizes: Sizes) throws {
        try ItemFill.fillTable(path: path, rows: sizes.indexedRows)
        try SQLiteDB(path: path).execute("CREATE INDEX item_a0 ON item(a0)")
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let queue = try GRDBItem.open(path)
        let (low, high) = (Int64(sizes.indexedRange.lowerBound * 10), Int64(sizes.indexedRange.upperBound * 10))
        // The records are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([GRDBItem], Int64) in
            let items = try queue.read { db in
                try GRDBItem.filter(Column("a0") >= low && Column("a0") < high).fetchAll(db)
            }
            var sum: Int64 = 0
            for item in items { sum &+= item.sum }
            return (items, sum)
        }
        return PhaseResult(time: run.time, count: run.result.0.count, sum: run.result.1)
    }
}
