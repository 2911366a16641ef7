import BenchSQLite
import Foundation
import ObjectGraph

/// The migration benchmark (`bench --migration ROWS`): a store of ROWS items written with
/// model version 1 is migrated to version 2, which adds an attribute, renames one and
/// drops one. Timed: the automatic lightweight migration on open (SQL, in place) and the
/// migration manager copying object by object into a new store (on at most
/// `objectRows` rows: it holds every object in memory). Prints rows per second.
enum MigrationBench {
    static func model(version: Int) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        for name in Workload.attributeNames.dropLast(version == 2 ? 1 : 0) { try item.addAttribute(named: name, type: .integer64) }
        if version == 1 {
            try item.addAttribute(named: "title", type: .string)
        } else {
            try item.addAttribute(named: "name", type: .string).setRenamingIdentifier("title")
            try item.addAttribute(named: "rating", type: .integer16, optional: false, defaultValue: 3)
        }
        return model
    }

    /// A version-1 store of `rows` items, filled with SQL for speed (the layout is the engine's).
    static func makeStore(_ path: String, rows: Int) throws {
        do {
            let coordinator = try PersistentStoreCoordinator(model: try model(version: 1))
            try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        }
        let db = try SQLiteDB(path: path)
        let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }
        let values = Workload.attributeNames.indices.map { "value * 10 + \($0)" }
        try db.execute("BEGIN")
        try db.execute("""
            WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < \(rows))
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(columns.joined(separator: ", ")), ZTITLE)
            SELECT value, 1, 1, \(values.joined(separator: ", ")), 'item ' || value FROM n
            """)
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_NAME = 'Item'")
        try db.execute("COMMIT")
    }

    static func copyFile(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    static func run(rows: Int, objectRows: Int, runs: Int, dir: String) throws -> String {
        let base = dir + "/migration-base.sqlite"
        try makeStore(base, rows: rows)
        let v1 = try model(version: 1)
        var inPlace: [Double] = []
        for _ in 0..<runs {
            let path = dir + "/migration-in-place.sqlite"
            try copyFile(base, path)
            let coordinator = try PersistentStoreCoordinator(model: try model(version: 2), models: [v1])
            let options: [String: PropertyListValue] = [
                StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true),
            ]
            let (time, _) = try timed { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: options) }
            inPlace.append(time.seconds)
            let context = ManagedObjectContext(coordinator: coordinator)
            guard try context.count(for: FetchRequest(entityName: "Item")) == rows else { throw BenchError("the in-place migration lost rows") }
        }
        let small = dir + "/migration-objects-source.sqlite"
        try makeStore(small, rows: min(rows, objectRows))
        let target = dir + "/migration-objects.sqlite"
        try? FileManager.default.removeItem(atPath: target)
        let manager = try MigrationManager(sourceModel: try model(version: 1), destinationModel: try model(version: 2))
        let (objectTime, _) = try timed { try manager.migrateStore(from: small, to: target) }
        let objectRowsDone = min(rows, objectRows)
        let median = inPlace.sorted()[inPlace.count / 2]
        func rate(_ n: Int, _ s: Double) -> String { String(format: "%.0f", Double(n) / s) }
        return """
            | migration (add, rename, drop) | rows | seconds (median of \(runs)) | rows per second |
            |---|---|---|---|
            | in place, SQL (automatic, lightweight) | \(rows) | \(String(format: "%.2f", median)) | \(rate(rows, median)) |
            | object by object (migration manager, new store) | \(objectRowsDone) | \(String(format: "%.2f", objectTime.seconds)) | \(rate(objectRowsDone, objectTime.seconds)) |
            in place is \(String(format: "%.0f", (Double(rows) / median) / (Double(objectRowsDone) / objectTime.seconds)))× the object copy's rate
            """
    }
}
