import Foundation
@testable import ObjectGraph
import XCTest

/// Lightweight migration of a PostgreSQL store in place (`PostgreSQLInPlaceMigration.swift`,
/// `AutomaticMigration.swift`): one transaction that keeps rows, keys, the UUID and the
/// history, and leaves the store as it was when it fails.
final class PostgreSQLMigrationTests: XCTestCase {
    var url: String!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    /// Version 1: Item(title, count: Integer 32, gone); version 2: Item(name ← title,
    /// count: Double, added with a default), Tag unchanged; version 3: Item(label ← name,
    /// count, added, note).
    func version(_ n: Int) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        if n == 1 {
            try item.addAttribute(named: "title", type: .string)
            try item.addAttribute(named: "count", type: .integer32)
            try item.addAttribute(named: "gone", type: .string)
        } else if n == 3 {
            try item.addAttribute(named: "label", type: .string).setRenamingIdentifier("name")
            try item.addAttribute(named: "count", type: .double)
            try item.addAttribute(named: "added", type: .integer64, defaultValue: 7)
            try item.addAttribute(named: "note", type: .string)
        } else {
            try item.addAttribute(named: "name", type: .string).setRenamingIdentifier("title")
            try item.addAttribute(named: "count", type: .double)
            try item.addAttribute(named: "added", type: .integer64, defaultValue: 7)
        }
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "label", type: .string)
        let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
        try tags.setInverse(try tag.addRelationship(named: "items", destination: item, toMany: true))
        return model
    }

    let options: [String: PropertyListValue] = [
        StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true),
        StoreOptionKey.historyTracking: .boolean(true), StoreOptionKey.postgreSQLSchema: .string("app"),
    ]

    func testALightweightMigrationRunsInPlaceKeepingRowsKeysUUIDAndHistory() throws {
        let v1 = try version(1)
        let old = try PersistentStoreCoordinator(model: v1)
        let oldStore = try old.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        let context = ManagedObjectContext(coordinator: old)
        let tag = try context.insertObject(entityName: "Tag")
        try tag.setValue(.string("red"), forKey: "label")
        for i in 0..<5 {
            let item = try context.insertObject(entityName: "Item")
            try item.setValue(.string("item \(i)"), forKey: "title")
            try item.setValue(.integer(Int64(i * 10)), forKey: "count")
            try item.addObject(tag, forKey: "tags")
        }
        try context.save()
        let uuid = oldStore.identifier
        try old.removePersistentStore(oldStore)

        let coordinator = try PersistentStoreCoordinator(model: try version(2))
        let store = try coordinator.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        XCTAssertEqual(store.identifier, uuid)
        let fresh = ManagedObjectContext(coordinator: coordinator)
        let items = try fresh.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("name")]))
        XCTAssertEqual(try items.map { try $0.value(forKey: "name") }, (0..<5).map { .string("item \($0)") })
        XCTAssertEqual(try items.map { try $0.value(forKey: "count") }, (0..<5).map { .double(Double($0 * 10)) })
        XCTAssertEqual(try items.map { try $0.value(forKey: "added") }, Array(repeating: .integer(7), count: 5))
        XCTAssertEqual(try items.map { try $0.objects(forKey: "tags").count }, Array(repeating: 1, count: 5))
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"Z_PK\" FROM \"ZITEM\" ORDER BY 1", schema: "app").map { $0[0] }, ["1", "2", "3", "4", "5"], "rows keep their keys")
        let history = try fresh.history()
        XCTAssertEqual(history.map(\.transactionNumber), [1, 2])
        XCTAssertEqual(history.last?.author, SQLiteHistory.migratorAuthor)
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'Z_MIGRATING%'"), [["0"]])
        // New rows get keys above the old ones; the store reopens without migrating again.
        let item = try fresh.insertObject(entityName: "Item")
        try item.setValue(.string("new"), forKey: "name")
        try fresh.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT max(\"Z_PK\") FROM \"ZITEM\"", schema: "app"), [["6"]])
        try coordinator.removePersistentStore(store)
        _ = try PersistentStoreCoordinator(model: try version(2)).addPersistentStore(
            type: PostgreSQLStore.typeName, configuration: nil, path: url, options: [StoreOptionKey.postgreSQLSchema: .string("app")])
    }

    /// Mapping models from version 1 to 2 and from 2 to 3 (no inference) migrate a
    /// version-1 store in place through version 2, in one transaction; when the second
    /// step fails, the store is still version 1.
    func testAChainOfLightweightStepsRunsInPlaceInOneTransaction() throws {
        let (v1, v2, v3) = (try version(1), try version(2), try version(3))
        var chained = options
        chained[StoreOptionKey.inferMappingModel] = .boolean(false)
        do {
            let old = try PersistentStoreCoordinator(model: v1)
            _ = try old.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: chained)
            let context = ManagedObjectContext(coordinator: old)
            for i in 0..<3 {
                let item = try context.insertObject(entityName: "Item")
                if i > 0 { try item.setValue(.string("item \(i)"), forKey: "title") }
                try item.setValue(.integer(Int64(i)), forKey: "count")
            }
            try context.save()
        }
        let mappings = [try MappingModel.inferred(from: v1, to: v2), try MappingModel.inferred(from: v2, to: v3)]
        // The second step fails (a required label for the item without a title): nothing changes.
        let strict = try version(3)
        try XCTUnwrap(strict.entity(named: "Item")?.attributesByName["label"]).setOptional(false)
        let strictMappings = [mappings[0], try MappingModel.inferred(from: v2, to: strict)]
        let e = expectError {
            _ = try PersistentStoreCoordinator(model: strict, models: [v1, v2], mappings: strictMappings).addPersistentStore(
                type: PostgreSQLStore.typeName, configuration: nil, path: self.url, options: chained)
        }
        XCTAssertEqual(e?.code, ErrorCode.migration)
        XCTAssertTrue(e?.message.contains("required property 'label'") ?? false, e?.message ?? "")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'app' AND table_name = 'ZITEM' ORDER BY 1").map { $0[0] },
                       ["ZCOUNT", "ZGONE", "ZTITLE", "Z_ENT", "Z_OPT", "Z_PK"], "still version 1")

        let coordinator = try PersistentStoreCoordinator(model: v3, models: [v1, v2], mappings: mappings)
        _ = try coordinator.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: chained)
        let migrated = ManagedObjectContext(coordinator: coordinator)
        let items = try migrated.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("count")]))
        XCTAssertEqual(try items.map { try $0.value(forKey: "label") }, [.null, .string("item 1"), .string("item 2")], "title became name, then label")
        XCTAssertEqual(try items.map { try $0.value(forKey: "count") }, [.double(0), .double(1), .double(2)])
        XCTAssertEqual(try items.map { try $0.value(forKey: "added") }, Array(repeating: .integer(7), count: 3))
        let history = try migrated.history()
        XCTAssertEqual(history.filter { $0.author == SQLiteHistory.migratorAuthor }.count, 2, "one marker per step")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'Z_MIGRATING%'"), [["0"]])
    }

    func testAMigrationThatFailsLeavesTheStoreAsItWas() throws {
        let old = try PersistentStoreCoordinator(model: try version(1))
        _ = try old.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        let context = ManagedObjectContext(coordinator: old)
        _ = try context.insertObject(entityName: "Item")  // no title: the new required name stays nil
        try context.save()
        let strict = try version(2)
        try XCTUnwrap(strict.entity(named: "Item")?.attributesByName["name"]).setOptional(false)
        let e = expectError {
            _ = try PersistentStoreCoordinator(model: strict).addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: self.url, options: self.options)
        }
        XCTAssertEqual(e?.code, ErrorCode.migration)
        XCTAssertTrue(e?.message.contains("required property 'name'") ?? false, e?.message ?? "")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'app' AND table_name = 'ZITEM' ORDER BY 1").map { $0[0] },
                       ["ZCOUNT", "ZGONE", "ZTITLE", "Z_ENT", "Z_OPT", "Z_PK"])
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM \"ZITEM\"", schema: "app"), [["1"]])
    }
}
