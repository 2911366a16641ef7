import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Join tables and columns come from an existing store's file (`SQLiteSchema+ExistingJoins
/// .swift`, `SQLiteStore+Checking.swift`, `SQLiteInPlaceMigration.swift`): Core Data may name
/// a many-to-many's table after either relationship and give its columns other collision
/// suffixes than the ones a new store would get; such a store opens, reads, saves and
/// migrates through the names it has.
final class ExistingJoinTablesTests: XCTestCase {
    static let model = ModelFileTests.fixtures + "/JoinTables.xcdatamodel"

    /// A store in which `User.blocking` and `Contact.parentGroups` hold pairs, then renamed
    /// as another Core Data version names them: the reflexive pair's table after the other
    /// side (`Z_8BLOCKEDBY`) and a collision suffix 2 instead of 1 (`Z_4PARENTGROUPS2`).
    func renamedStore() throws -> String {
        let path = try temporaryDirectory() + "/joins.sqlite"
        let stack = try Stack(model: try ManagedObjectModel(contentsOf: Self.model), path: path)
        let ann = try stack.context.insertObject(entityName: "User"), bob = try stack.context.insertObject(entityName: "User")
        try ann.setObjects([bob], forKey: "blocking")
        let contact = try stack.context.insertObject(entityName: "Contact"), group = try stack.context.insertObject(entityName: "Group")
        try contact.setObjects([group], forKey: "parentGroups")
        try stack.context.save()
        try stack.coordinator.removePersistentStore(stack.store)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        for sql in ["ALTER TABLE Z_8BLOCKING RENAME TO Z_8BLOCKEDBY", "ALTER TABLE Z_6PARENTGROUPS RENAME COLUMN Z_4PARENTGROUPS1 TO Z_4PARENTGROUPS2"] {
            XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        }
        sqlite3_close(db)
        return path
    }

    func users(_ context: ManagedObjectContext) throws -> (blocker: ManagedObject, blocked: ManagedObject) {
        let users = try context.fetch(FetchRequest(entityName: "User", sortKeys: []))
        let blocker = try XCTUnwrap(users.first { (try? $0.objects(forKey: "blocking").count) == 1 })
        let blocked = try XCTUnwrap(users.first { $0 !== blocker })
        return (blocker, blocked)
    }

    func testAStoreWhoseJoinTablesAreNamedOtherwiseOpensReadsAndSaves() throws {
        let path = try renamedStore()
        let stack = try Stack(model: try ManagedObjectModel(contentsOf: Self.model), path: path)
        let (blocker, blocked) = try users(stack.context)
        XCTAssertEqual(try blocked.objects(forKey: "blockedBy").map(\.objectID), [blocker.objectID])
        let contact = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Contact")).first)
        XCTAssertEqual(try contact.objects(forKey: "parentGroups").count, 1)
        // A predicate through the pair runs in SQL against the file's names.
        let blockedOnes = FetchRequest(entityName: "User", predicate: try ObjectPredicate(format: "blockedBy.@count > 0"))
        XCTAssertEqual(try stack.context.fetch(blockedOnes).map(\.objectID), [blocked.objectID])
        try blocked.addObject(blocker, forKey: "blocking")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_8BLOCKEDBY"), [["2"]])
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_8BLOCKING'"), [["0"]], "no table of the predicted name")
    }

    func testSuchAStoreMigratesInPlaceWithItsPairs() throws {
        let path = try renamedStore()
        let v2 = try ManagedObjectModel(contentsOf: Self.model).copy()
        try v2.setVersionIdentifiers(["2"])
        try v2.entity(named: "User")?.addAttribute(named: "nickname", type: .string)
        let coordinator = try PersistentStoreCoordinator(model: v2)
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path,
                                           options: [StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true)])
        let context = ManagedObjectContext(coordinator: coordinator)
        let (blocker, blocked) = try users(context)
        XCTAssertEqual(try blocked.objects(forKey: "blockedBy").map(\.objectID), [blocker.objectID])
        XCTAssertEqual(try context.fetch(FetchRequest(entityName: "Contact")).first?.objects(forKey: "parentGroups").count, 1)
    }
}
