import GRDB

/// update, GRDB: in one `write`, fetch the records `a0 < …`, change a9, `update(db)` each.
struct GRDBUpdate: PhaseContender {
    let table = "item"
    let columns = Workload.attributeNames

    func prepare(path: String, sizes: Sizes) throws {
        try ItemFill.fillTable(path: path, rows: sizes.updateRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let queue = try GRDBItem.open(path)
        let limit = Int64(sizes.updateCount * 10)
        let run = try timed {
            try queue.write { db -> Int in
                let items = try GRDBItem.filter(Column("a0") < limit).fetchAll(db)
                for var item in items {
                    item.a9 += 1
                    try item.update(db)
                }
                return items.count
            }
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
