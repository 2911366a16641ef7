import GRDB

/// The main workload's item as a GRDB record, in the form of GRDBRecords.swift (stored
/// properties, hand-written decoding and encoding), for the update and indexed workloads.
struct GRDBItem: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64
    var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int64

    // Columns by index, in the table's order: id, a0…a9.
    init(row: Row) throws {
        id = row[0]
        (a0, a1, a2, a3, a4) = (row[1], row[2], row[3], row[4], row[5])
        (a5, a6, a7, a8, a9) = (row[6], row[7], row[8], row[9], row[10])
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
