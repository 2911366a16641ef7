import GRDB

/// GRDB 7 records: a struct that is FetchableRecord and PersistableRecord, with the
/// hand-written row decoding and encoding GRDB recommends for speed.
struct GRDBRecords: SwiftContender {
    let insertTable = "item"
    let insertColumns = Workload.attributeNames

    fileprivate struct Item: FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int64

        init(id: Int64? = nil, _ v: (Int) -> Int64) {
            self.id = id
            (a0, a1, a2, a3, a4) = (v(0), v(1), v(2), v(3), v(4))
            (a5, a6, a7, a8, a9) = (v(5), v(6), v(7), v(8), v(9))
        }

        // Columns by index, in the table's order: id, a0…a9.
        init(row: Row) throws {
            self.init(id: row[0]) { row[$0 + 1] }
        }

        func encode(to container: inout PersistenceContainer) throws {
            container["id"] = id
            container["a0"] = a0; container["a1"] = a1; container["a2"] = a2; container["a3"] = a3
            container["a4"] = a4; container["a5"] = a5; container["a6"] = a6; container["a7"] = a7
            container["a8"] = a8; container["a9"] = a9
        }

        var sum: Int64 { a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9 }
    }

    private func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal  // as ObjectGraph's stores
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    func insert(path: String, count: Int) throws -> Duration {
        let queue = try open(path)
        try queue.write { db in try db.execute(sql: Workload.createTableSQL) }
        return try timed {
            try queue.write { db in
                for i in 0..<count {
                    try Item { Workload.value(i, $0) }.insert(db)
                }
            }
        }.time
    }

    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int) {
        let queue = try open(path)
        // The records are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([Item], Int64) in
            let items = try queue.read { db in try Item.fetchAll(db) }
            var sum: Int64 = 0
            for item in items { sum &+= item.sum }
            return (items, sum)
        }
        return (run.time, run.result.1, run.result.0.count)
    }
}
