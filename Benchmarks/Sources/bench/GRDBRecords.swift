import GRDB

/// GRDB 7 records: `GRDBItem`, a struct that is FetchableRecord and PersistableRecord, with
/// the hand-written row decoding and encoding GRDB recommends for speed.
struct GRDBRecords: SwiftContender {
    let insertTable = "item"
    let insertColumns = Workload.attributeNames

    func insert(path: String, count: Int) throws -> Duration {
        let queue = try GRDBItem.open(path)
        try queue.write { db in try db.execute(sql: Workload.createTableSQL) }
        return try timed {
            try queue.write { db in
                for i in 0..<count {
                    try GRDBItem { Workload.value(i, $0) }.insert(db)
                }
            }
        }.time
    }

    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int) {
        let queue = try GRDBItem.open(path)
        // The records are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([GRDBItem], Int64) in
            let items = try queue.read { db in try GRDBItem.fetchAll(db) }
            var sum: Int64 = 0
            for item in items { sum &+= item.sum }
            return (items, sum)
        }
        return (run.time, run.result.1, run.result.0.count)
    }
}
