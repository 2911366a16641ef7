import Foundation
import ObjectGraph
import XCTest

/// Lightweight migration of ObjectGraph's own SQLite stores in place
/// (`SQLiteInPlacePlan.swift`, `SQLiteInPlaceMigration.swift`, `AutomaticMigration.swift`).
final class SQLiteInPlaceMigrationTests: XCTestCase {
    func testAddRenameDropInPlaceKeepsRowsKeysAndIdentity() throws {
        let path = try Catalogue.makeStore()
        let before = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
        let keys = sqliteRows(path, "SELECT Z_PK, ZTITLE FROM ZITEM ORDER BY Z_PK")
        let v1 = try Catalogue.version1()
        let coordinator = try PersistentStoreCoordinator(model: try Catalogue.version2(), models: [v1])
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Catalogue.migrateOptions)
        XCTAssertEqual(store.identifier, before[StoreMetadataKey.storeUUID]?.stringValue)
        XCTAssertEqual(store.metadata["app.custom"], .string("kept"))
        try Catalogue.checkMigrated(ManagedObjectContext(coordinator: coordinator))
        XCTAssertEqual(sqliteRows(path, "SELECT Z_PK, ZNAME FROM ZITEM ORDER BY Z_PK"), keys, "rows keep their primary keys")
        XCTAssertEqual(sqliteRows(path, "SELECT name FROM sqlite_master WHERE name LIKE 'Z_MIGRATING%' OR name = 'ZGONE'"), [])
        // New objects get keys above every old one, and the store reopens without options.
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try context.insertObject(entityName: "Item")
        try item.setValue(.string("new"), forKey: "name")
        try context.save()
        let pk = Int(sqliteRows(path, "SELECT MAX(Z_PK) FROM ZITEM")[0][0]) ?? 0
        XCTAssertEqual(pk, keys.count + 1)
        try coordinator.removePersistentStore(store)
        let again = try Stack(model: try Catalogue.version2(), path: path)
        XCTAssertEqual(try again.context.count(for: FetchRequest(entityName: "Item")), 6)
    }

    func testWithoutTheOptionTheStoreIsIncompatible() throws {
        let path = try Catalogue.makeStore()
        let coordinator = try PersistentStoreCoordinator(model: try Catalogue.version2(), models: [try Catalogue.version1()])
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }?.code, ErrorCode.storeIncompatibleVersionHash)
        let noInference: [String: PropertyListValue] = [StoreOptionKey.migrateAutomatically: .boolean(true)]
        XCTAssertEqual(
            expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: noInference) }?.code,
            ErrorCode.migrationMissingMappingModel)
        // A store without its own model, and no versions given: 134130, the file untouched.
        let cached = try Data(contentsOf: URL(fileURLWithPath: path))
        let copy = path + ".nocache.sqlite"
        try cached.write(to: URL(fileURLWithPath: copy))
        sqliteExec(copy, "DELETE FROM Z_MODELCACHE")
        let bare = try Data(contentsOf: URL(fileURLWithPath: copy))
        // Read-only, the store is never rewritten: it stays incompatible.
        var readOnly = Catalogue.migrateOptions
        readOnly[StoreOptionKey.readOnly] = .boolean(true)
        XCTAssertEqual(
            expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: readOnly) }?.code,
            ErrorCode.storeIncompatibleVersionHash)
        let noSource = try PersistentStoreCoordinator(model: try Catalogue.version2())
        let e = expectError { try noSource.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: copy, options: Catalogue.migrateOptions) }
        XCTAssertEqual(e?.code, ErrorCode.migrationMissingSourceModel)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), bare)
    }

    /// The store keeps its own model: no versions need be given, and after migrating it
    /// keeps the new one.
    func testTheStoresOwnModelIsTheSource() throws {
        let path = try Catalogue.makeStore()
        let coordinator = try PersistentStoreCoordinator(model: try Catalogue.version2())
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Catalogue.migrateOptions)
        try Catalogue.checkMigrated(ManagedObjectContext(coordinator: coordinator))
        let kept = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: path)
        XCTAssertEqual(kept.entityVersionHashesByName, try Catalogue.version2().entityVersionHashesByName)
    }

    /// A value the new model requires is missing in one row: 134110 naming the entity and
    /// property, and the file is byte for byte what it was.
    func testFailureRollsBackToTheSameBytes() throws {
        let path = try Catalogue.makeStore(labelled: false)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let coordinator = try PersistentStoreCoordinator(model: try Catalogue.version2(shelfLabelRequired: true), models: [try Catalogue.version1()])
        let e = expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Catalogue.migrateOptions) }
        XCTAssertEqual(e?.code, ErrorCode.migration)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), "Shelf")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "label")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-journal"))
    }

    /// Entity numbers change (a new entity sorts first): subentity rows keep their entity.
    func testInheritanceSurvivesRenumbering() throws {
        func model(extra: Bool) throws -> ManagedObjectModel {
            let m = ManagedObjectModel()
            if extra { try m.addEntity(named: "Aardvark").addAttribute(named: "n", type: .integer16) }
            let vehicle = try m.addEntity(named: "Vehicle")
            try vehicle.addAttribute(named: "wheels", type: .integer16)
            let car = try m.addEntity(named: "Car")
            try car.addAttribute(named: "doors", type: .integer16)
            let owner = try m.addEntity(named: "Owner")
            try vehicle.setSubentities([car])
            let owns = try owner.addRelationship(named: "vehicle", destination: vehicle)
            let by = try vehicle.addRelationship(named: "owner", destination: owner)
            try owns.setInverse(by)
            return m
        }
        let path = try temporaryDirectory() + "/vehicles.sqlite"
        do {
            let stack = try Stack(model: try model(extra: false), path: path)
            let car = try stack.context.insertObject(entityName: "Car")
            try car.setValue(.integer(4), forKey: "doors")
            let bike = try stack.context.insertObject(entityName: "Vehicle")
            try bike.setValue(.integer(2), forKey: "wheels")
            let owner = try stack.context.insertObject(entityName: "Owner")
            try owner.setObject(car, forKey: "vehicle")
            try stack.context.save()
        }
        let coordinator = try PersistentStoreCoordinator(model: try model(extra: true), models: [try model(extra: false)])
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Catalogue.migrateOptions)
        let context = ManagedObjectContext(coordinator: coordinator)
        let cars = try context.fetch(FetchRequest(entityName: "Car"))
        XCTAssertEqual(cars.count, 1)
        XCTAssertEqual(try cars[0].value(forKey: "doors"), .integer(4))
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Vehicle")), 2)
        let owner = try XCTUnwrap(try context.fetch(FetchRequest(entityName: "Owner")).first)
        XCTAssertEqual(try owner.object(forKey: "vehicle")?.entity.name, "Car", "the Z<n>_ column is renumbered")
        XCTAssertEqual(sqliteRows(path, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { $0[1] }, ["Aardvark", "Owner", "Vehicle", "Car"])
    }
}
