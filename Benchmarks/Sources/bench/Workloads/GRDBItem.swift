import GRDB

/// The workloads' item as a GRDB record: stored properties with the hand-written row
/// decoding and encoding GRDB recommends for speed. The main workload (GRDBRecords.swift)
/// inserts and fetches it; the update and indexed workloads read and write it.
struct GRDBItem: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    /// nil for a new record: SQLite picks the key.
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

    static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal  // as ObjectGraph's stores
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
