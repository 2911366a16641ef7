import Foundation
@testable import ObjectGraph
import XCTest

/// Batch requests and uniqueness constraints on the PostgreSQL store
/// (`PostgreSQLSaveTransaction+Batches.swift`): the same rows and versions as on SQLite,
/// one statement where SQL expresses the request.
final class PostgreSQLBatchTests: XCTestCase {
    var url: String!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    func model() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "sku", type: .string)
        try item.addAttribute(named: "price", type: .integer64)
        try item.addAttribute(named: "note", type: .string)
        try item.setUniquenessConstraints([["sku"]])
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "name", type: .string)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        let shelves = try item.addRelationship(named: "shelves", destination: shelf, toMany: true)
        try items.setInverse(shelves)
        return model
    }

    /// The same requests on a PostgreSQL and an SQLite store leave the same rows.
    func testBatchesLeaveWhatTheyLeaveOnSQLite() throws {
        let model = try model()
        var outcomes: [[String]] = []
        for (type, path) in [(PostgreSQLStore.typeName, url!), (StoreType.sqlite, try temporaryDirectory() + "/items.sqlite")] {
            let c = try PersistentStoreCoordinator(model: model)
            _ = try c.addPersistentStore(type: type, configuration: nil, path: path)
            let context = ManagedObjectContext(coordinator: c)
            let rows: [[String: AttributeValue]] = (0..<500).map { ["sku": .string("s\($0)"), "price": .integer(Int64($0))] }
            let inserted = BatchInsertRequest(entityName: "Item", objects: rows)
            inserted.resultType = .count
            XCTAssertEqual(try context.execute(inserted), .count(500))
            let shelf = try context.insertObject(entityName: "Shelf")
            try shelf.setValue(.string("top"), forKey: "name")
            for item in try context.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "price < 10"))) {
                try shelf.addObject(item, forKey: "items")
            }
            try context.save()
            let update = BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate(format: "price >= 490"), propertiesToUpdate: ["note": .string("last"), "price": .null])
            update.resultType = .count
            XCTAssertEqual(try context.execute(update), .count(10))
            let throughJoin = BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate(format: "ANY shelves.name == 'top'"), propertiesToUpdate: ["note": .string("shelved")])
            _ = try context.execute(throughJoin)
            // A nil through a join: the WITH clause's bindings come before the assignments'.
            let nilThroughJoin = BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate(format: "ANY shelves.name == 'top' AND price >= 8"), propertiesToUpdate: ["note": .null])
            _ = try context.execute(nilThroughJoin)
            let delete = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "price < 5 OR price > 480")))
            delete.resultType = .count
            XCTAssertEqual(try context.execute(delete), .count(5 + 9))  // nil prices match neither side
            // Upserts under object trump: existing skus updated, new ones inserted.
            context.mergePolicy = .mergeByPropertyObjectTrump
            let upsert = BatchInsertRequest(entityName: "Item", objects: [["sku": .string("s7"), "price": .integer(700)], ["sku": .string("new"), "price": .integer(1)]])
            _ = try context.execute(upsert)
            let fresh = ManagedObjectContext(coordinator: c)
            let all = try fresh.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("sku")]))
            var lines = try all.map { o in "\(o.string("sku") ?? "") \(try o.value(forKey: "price")) \(o.string("note") ?? "-") \(try o.objects(forKey: "shelves").count)" }
            lines.append("count \(all.count)")
            outcomes.append(lines)
        }
        XCTAssertEqual(outcomes[0], outcomes[1])
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM \"Z_1SHELVES\""), [["5"]], "deleted rows left the join table")
    }

    func testASaveMeetingAStoredRowOnAConstraintFailsOrUpserts() throws {
        let c = try PersistentStoreCoordinator(model: try model())
        _ = try c.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url)
        let first = ManagedObjectContext(coordinator: c)
        let a = try first.insertObject(entityName: "Item")
        try a.setValue(.string("dup"), forKey: "sku")
        try a.setValue(.integer(1), forKey: "price")
        try first.save()
        let second = ManagedObjectContext(coordinator: c)
        let b = try second.insertObject(entityName: "Item")
        try b.setValue(.string("dup"), forKey: "sku")
        try b.setValue(.string("from b"), forKey: "note")
        let e = expectError { try second.save() }
        XCTAssertEqual(e?.code, ErrorCode.constraintMerge)
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZSKU\", \"ZPRICE\", \"ZNOTE\" FROM \"ZITEM\""), [["dup", "1", "NULL"]])
        second.mergePolicy = .mergeByPropertyObjectTrump
        try second.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZSKU\", \"ZPRICE\", \"ZNOTE\" FROM \"ZITEM\""), [["dup", "1", "from b"]])
    }
}
