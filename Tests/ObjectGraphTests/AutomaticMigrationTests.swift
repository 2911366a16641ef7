import Foundation
import ObjectGraph
import XCTest

/// Automatic migration on open (`AutomaticMigration.swift`), on stores Apple's Core Data
/// wrote with older model versions (../shared/fixtures/apple-stores; skipped when absent)
/// and on ObjectGraph's own stores.
final class AutomaticMigrationTests: XCTestCase {
    typealias Fixture = AppleStoreTests.Fixture
    static let migrate: [String: PropertyListValue] = [StoreOptionKey.migrateAutomatically: .boolean(true), StoreOptionKey.inferMappingModel: .boolean(true)]

    func model(_ fixture: Fixture, version: String) throws -> ManagedObjectModel {
        guard FileManager.default.fileExists(atPath: AppleStoreTests.root) else { throw XCTSkip("no Apple fixtures") }
        return try ManagedObjectModel(contentsOf: "\(AppleStoreTests.root)/\(fixture.model)", version: version)
    }

    func count(_ context: ManagedObjectContext, _ entity: String) throws -> Int {
        try context.count(for: FetchRequest(entityName: entity))
    }

    func wiboscoVersion(_ n: Int) throws -> ManagedObjectModel {
        try model(AppleStoreTests.wibosco1, version: n == 1 ? "CoreDataMigration_Example" : "CoreDataMigration_Example \(n)")
    }

    /// The app's own mappings: version 2 renamed `color` to `hexColor`; version 3 moved
    /// the colour into a Color entity. Version 4 only adds an attribute (inferred).
    func wiboscoMappings(_ v1: ManagedObjectModel, _ v2: ManagedObjectModel, _ v3: ManagedObjectModel) throws -> [MappingModel] {
        let rename = try MappingModel.inferred(from: v1, to: v2)
        let post = try XCTUnwrap(rename.entityMappings.first { $0.destinationEntityName == "Post" })
        try XCTUnwrap(post.attributeMappings.first { $0.name == "hexColor" }).valueExpression = "$source.color"
        let toColor = EntityMapping(
            name: "PostToColor", kind: .custom, sourceEntityName: "Post", destinationEntityName: "Color",
            attributeMappings: [PropertyMapping(name: "hex", valueExpression: "$source.hexColor"), PropertyMapping(name: "colorID", valueExpression: "$source.postID")],
            sourceExpression: EntityMapping.defaultSourceExpression(forEntityNamed: "Post"), migrationPolicyName: "NSEntityMigrationPolicy")
        let postToPost = EntityMapping(
            name: "PostToPost", kind: .transform, sourceEntityName: "Post", destinationEntityName: "Post",
            attributeMappings: [PropertyMapping(name: "date", valueExpression: "$source.date"), PropertyMapping(name: "postID", valueExpression: "$source.postID")],
            relationshipMappings: [
                PropertyMapping(name: "color", valueExpression: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PostToColor\", $source)")
            ],
            sourceExpression: EntityMapping.defaultSourceExpression(forEntityNamed: "Post"))
        // Xcode records both entities' version hashes: they pick the mapping for 2 → 3.
        let post2 = try XCTUnwrap(v2.entity(named: "Post")).versionHash
        toColor.sourceEntityVersionHash = post2
        toColor.destinationEntityVersionHash = try XCTUnwrap(v3.entity(named: "Color")).versionHash
        postToPost.sourceEntityVersionHash = post2
        postToPost.destinationEntityVersionHash = try XCTUnwrap(v3.entity(named: "Post")).versionHash
        return [rename, MappingModel(entityMappings: [toColor, postToPost])]
    }

    /// Every old wibosco store opens with the newest model: its rows kept, the rename
    /// and the move into Color carried through the app's mappings, the rest inferred.
    func testWiboscoStoresMigrateToTheNewestVersion() throws {
        let (v1, v2, v3, v4) = (try wiboscoVersion(1), try wiboscoVersion(2), try wiboscoVersion(3), try wiboscoVersion(4))
        let mappings = try wiboscoMappings(v1, v2, v3)
        for (fixture, posts) in [(AppleStoreTests.wibosco1, 1001), (AppleStoreTests.wibosco2, 5979), (AppleStoreTests.wibosco3, -1)] {
            let path = try AppleStoreTests.copy(fixture)
            let before = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
            let expected = posts >= 0 ? posts : sqliteRows(path, "SELECT COUNT(*) FROM ZPOST").first.flatMap { Int($0[0]) } ?? -1
            let coordinator = try PersistentStoreCoordinator(model: v4, models: [v1, v2, v3], mappings: mappings)
            let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate)
            XCTAssertEqual(store.identifier, before[StoreMetadataKey.storeUUID]?.stringValue, fixture.store)
            let context = ManagedObjectContext(coordinator: coordinator)
            XCTAssertEqual(try count(context, "Post"), expected, fixture.store)
            let hidden = try context.fetch(FetchRequest(entityName: "Post", predicate: try ObjectPredicate(format: "hide == NO")))
            XCTAssertEqual(hidden.count, expected, "the new attribute takes its default")
            if fixture.store == AppleStoreTests.wibosco1.store {
                // MANIFEST fact: the earliest post's colour survives the rename and the move.
                let first = try context.fetch(FetchRequest(entityName: "Post", sortKeys: [SortKey("date")])).first
                XCTAssertEqual(try first?.value(forKey: "postID"), .string("D77C3BF0-09D0-43FF-AE8E-4415E8E7D6AB"))
                XCTAssertEqual(try first?.object(forKey: "color")?.value(forKey: "hex"), .string("28DF9C"))
                XCTAssertEqual(try count(context, "Color"), 1001)
            }
            XCTAssertTrue(v4.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        }
    }

    /// A store already at the newest version opens unchanged.
    func testWiboscoCurrentStoreIsNotTouched() throws {
        let path = try AppleStoreTests.copy(AppleStoreTests.wiboscoWAL)
        let coordinator = try PersistentStoreCoordinator(model: try wiboscoVersion(4))
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate)
        XCTAssertGreaterThan(try count(ManagedObjectContext(coordinator: coordinator), "Post"), 0)
    }

    /// Without the app's mappings the rename cannot be inferred and the new required
    /// relationship of version 3 stops inference: 134190, and the file is untouched.
    func testWiboscoWithoutMappingsFailsAndLeavesTheFile() throws {
        let path = try AppleStoreTests.copy(AppleStoreTests.wibosco1)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let coordinator = try PersistentStoreCoordinator(model: try wiboscoVersion(4))
        let e = expectError { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate) }
        XCTAssertEqual(e?.code, ErrorCode.inferredMappingModel)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "color")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).filter { $0.contains("migrating") }
        XCTAssertEqual(leftovers, [])
    }

    /// bookmigration: Model1 (no model cache in the store) to the current Model3, the
    /// source model found among the versions given; every book and user kept.
    func testBookStoreMigratesToCurrentVersion() throws {
        let fixture = AppleStoreTests.book
        let (m1, m2, m3) = (try model(fixture, version: "Model1"), try model(fixture, version: "Model2"), try model(fixture, version: "Model3"))
        let path = try AppleStoreTests.copy(fixture)
        let coordinator = try PersistentStoreCoordinator(model: m3, models: [m1, m2])
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate)
        let context = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(try count(context, "Book"), 4)
        XCTAssertEqual(try count(context, "User"), 3)
        XCTAssertEqual(try count(context, "File"), 0)
        let titles = try context.fetch(FetchRequest(entityName: "Book")).map { try $0.value(forKey: "title") }
        XCTAssertFalse(titles.contains(.null))
        // The migrated store takes new objects in the new layout.
        let book = try context.fetch(FetchRequest(entityName: "Book"))[0]
        let author = try context.insertObject(entityName: "Author")
        try author.setValue(.string("Pratchett"), forKey: "name")
        try author.addObject(book, forKey: "books")
        try context.save()
    }

    /// mwkcoredata: the version-2 store opens with the current version (1): the Dept
    /// entity is dropped, every employee kept. Without the source model: 134130.
    func testMWKStoreMigratesToCurrentVersion() throws {
        let fixture = AppleStoreTests.mwk2
        let current = try model(fixture, version: "MWKCoreDataTests")
        let v2 = try model(fixture, version: "MWKCoreDataTests2")
        let path = try AppleStoreTests.copy(fixture)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let bare = try PersistentStoreCoordinator(model: current)
        XCTAssertEqual(expectError { try bare.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate) }?.code, ErrorCode.migrationMissingSourceModel)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        let coordinator = try PersistentStoreCoordinator(model: current, models: [v2])
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: Self.migrate)
        let context = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(try count(context, "Employee"), 3)
        XCTAssertEqual(sqliteRows(path, "SELECT name FROM sqlite_master WHERE name = 'ZDEPT'").count, 0)
    }

    /// mwkcoredata version 1 to 3 splits `name` into two required attributes: not
    /// inferable (134190 naming the property); a policy does it.
    func testMWKNameSplitNeedsAPolicy() throws {
        let fixture = AppleStoreTests.mwk1
        let v1 = try model(fixture, version: "MWKCoreDataTests")
        let v3 = try model(fixture, version: "MWKCoreDataTests3")
        let e = expectError { _ = try MappingModel.inferred(from: v1, to: v3) }
        XCTAssertEqual(e?.code, ErrorCode.inferredMappingModel)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), "Employee")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "firstName")

        final class SplitName: EntityMigrationPolicy, @unchecked Sendable {
            override func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
                let employee = try manager.destinationContext!.insertObject(entityName: "Employee")
                guard case .string(let name) = try source.value(forKey: "name") else { return }
                let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
                try employee.setValue(.string(parts.first ?? ""), forKey: "firstName")
                try employee.setValue(.string(parts.count > 1 ? parts[1] : ""), forKey: "lastName")
                manager.associate(source: source, destination: employee, mapping: mapping)
            }
        }
        EntityMigrationPolicy.register("SplitName", factory: { SplitName() })
        defer { EntityMigrationPolicy.register("SplitName", factory: nil) }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(
                name: "EmployeeToEmployee", kind: .custom, sourceEntityName: "Employee", destinationEntityName: "Employee",
                sourceExpression: EntityMapping.defaultSourceExpression(forEntityNamed: "Employee"), migrationPolicyName: "SplitName"),
            EntityMapping(name: "AddDept", kind: .add, destinationEntityName: "Dept"),
        ])
        let path = try AppleStoreTests.copy(fixture)
        let coordinator = try PersistentStoreCoordinator(model: v3, models: [v1], mappings: [mapping])
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: [StoreOptionKey.migrateAutomatically: .boolean(true)])
        let context = ManagedObjectContext(coordinator: coordinator)
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        XCTAssertEqual(employees.count, 3)
        for e in employees { XCTAssertNotEqual(try e.value(forKey: "firstName"), .string("")) }
    }
}
