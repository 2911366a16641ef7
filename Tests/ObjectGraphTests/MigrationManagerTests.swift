import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// The migration manager (`MigrationManager.swift`, `EntityMigrationPolicy.swift`,
/// `MigrationExpressions.swift`; §1.20, §1.21, §2.21 rules 1–4 and 8).
final class MigrationManagerTests: XCTestCase {
    func manager() throws -> MigrationManager {
        try MigrationManager(sourceModel: try Catalogue.version1(), destinationModel: try Catalogue.version2())
    }

    func leftovers(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).filter { $0.contains("migrating") }
    }

    func testInferredMigrationToANewFileKeepsEverything() throws {
        let source = try Catalogue.makeStore()
        let original = try Data(contentsOf: URL(fileURLWithPath: source))
        let destination = (source as NSString).deletingLastPathComponent + "/v2.sqlite"
        let m = try manager()
        var fractions: [Double] = []
        m.progressHandler = { fractions.append($0) }
        try m.migrateStore(from: source, to: destination)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), original, "the source is only read")
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions, fractions.sorted(), "progress only grows")
        XCTAssertEqual(m.migrationProgress, 0, "0 again once done")
        XCTAssertNil(m.sourceContext)
        let stack = try Stack(model: try Catalogue.version2(), path: destination)
        try Catalogue.checkMigrated(stack.context)
        let sourceMetadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: source)
        XCTAssertEqual(stack.store.identifier, sourceMetadata[StoreMetadataKey.storeUUID]?.stringValue, "the destination keeps the source's UUID")
        XCTAssertEqual(stack.store.metadata["app.custom"], .string("kept"))
        XCTAssertEqual(try leftovers(destination), [])
    }

    func testCancelLeavesNothingAtTheDestination() throws {
        let source = try Catalogue.makeStore(items: 600)
        let destination = (source as NSString).deletingLastPathComponent + "/v2.sqlite"
        let m = try manager()
        m.progressHandler = { if $0 > 0.1 { m.cancel() } }
        let e = expectError { try m.migrateStore(from: source, to: destination) }
        XCTAssertEqual(e?.code, ErrorCode.migrationCancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertEqual(try leftovers(destination), [])
        // The caller's own error comes back as given.
        m.progressHandler = { if $0 > 0.1 { m.cancel(ObjectGraphError(code: 42, message: "stop")) } }
        XCTAssertEqual(expectError { try m.migrateStore(from: source, to: destination) }?.code, 42)
    }

    func testErrorsNameWhatFailed() throws {
        let source = try Catalogue.makeStore()
        let dir = (source as NSString).deletingLastPathComponent
        let m = try manager()
        let mapping = try MappingModel.inferred(from: m.sourceModel, to: m.destinationModel)
        // A hash that does not match: 134110 naming the entity.
        let wrongHash = mapping.copy()
        wrongHash.entityMappings[1].sourceEntityVersionHash = [UInt8](repeating: 1, count: 32)
        var e = expectError { try m.migrateStore(from: source, mapping: wrongHash, to: dir + "/a.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.migration)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), wrongHash.entityMappings[1].sourceEntityName)
        // An expression that fails at run time: the mapping and the property are named.
        let badExpression = mapping.copy()
        let item = try XCTUnwrap(badExpression.entityMappingsByName["IEM_Transform_Item"])
        item.attributeMappings[0].valueExpression = "$source.nothingHere"
        e = expectError { try m.migrateStore(from: source, mapping: badExpression, to: dir + "/b.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.migration)
        XCTAssertTrue(e?.message.contains("IEM_Transform_Item") ?? false, e?.message ?? "")
        XCTAssertTrue(e?.message.contains(item.attributeMappings[0].name) ?? false, e?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/b.sqlite"))
        // A policy nothing registered: 134170.
        let unregistered = mapping.copy()
        unregistered.entityMappings[1].migrationPolicyName = "NoSuchPolicy"
        XCTAssertEqual(expectError { try m.migrateStore(from: source, mapping: unregistered, to: dir + "/c.sqlite") }?.code, ErrorCode.entityMigrationPolicy)
        // A destination that cannot be made: 134160.
        XCTAssertEqual(expectError { try m.migrateStore(from: source, to: dir + "/no/such/dir/f.sqlite") }?.code, ErrorCode.migrationManagerDestinationStore)
        // A missing source: 134150.
        XCTAssertEqual(expectError { try m.migrateStore(from: dir + "/none.sqlite", to: dir + "/d.sqlite") }?.code, ErrorCode.migrationManagerSourceStore)
        // Objects that fail the destination's validation: 134110, nothing written.
        let strict = try MigrationManager(sourceModel: try Catalogue.version1(), destinationModel: try Catalogue.version2(shelfLabelRequired: true))
        let unlabelled = try Catalogue.makeStore(labelled: false)
        let target = (unlabelled as NSString).deletingLastPathComponent + "/e.sqlite"
        XCTAssertEqual(expectError { try strict.migrateStore(from: unlabelled, to: target) }?.code, ErrorCode.migration)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        for path in ["a", "c", "d"] { XCTAssertFalse(FileManager.default.fileExists(atPath: "\(dir)/\(path).sqlite")) }
        XCTAssertEqual(try leftovers(source), [])
    }

    /// A custom mapping: each Tag becomes a Label, and each Item's labels are found
    /// through the association tables; a policy sees every stage in order.
    func testPoliciesStagesAndAssociations() throws {
        let v1 = try Catalogue.version1()
        let v2 = ManagedObjectModel()
        let label = try v2.addEntity(named: "Label")
        try label.addAttribute(named: "text", type: .string)
        try label.addAttribute(named: "shout", type: .string)
        let thing = try v2.addEntity(named: "Thing")
        try thing.addAttribute(named: "title", type: .string)
        let labels = try thing.addRelationship(named: "labels", destination: label, toMany: true)
        let things = try label.addRelationship(named: "things", destination: thing, toMany: true)
        try labels.setInverse(things)

        final class Recorder: EntityMigrationPolicy, @unchecked Sendable {
            static let calls = Mutex<[String]>([])
            func note(_ s: String) { Self.calls.withLock { $0.append(s) } }
            override func beginEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) { note("begin \(mapping.name)") }
            override func endInstanceCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) { note("created \(mapping.name)") }
            override func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) { note("related \(mapping.name)") }
            override func performCustomValidation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) { note("validate \(mapping.name)") }
            override func endEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) { note("end \(mapping.name)") }
            override func perform(_ selector: String, arguments: [PredicateValue], manager: MigrationManager) throws(ObjectGraphError) -> PredicateValue {
                guard selector == "shout:", case .scalar(.string(let s))? = arguments.first else { return try super.perform(selector, arguments: arguments, manager: manager) }
                return .scalar(.string(s.uppercased() + "!"))
            }
        }
        EntityMigrationPolicy.register("Recorder", factory: { Recorder() })
        defer { EntityMigrationPolicy.register("Recorder", factory: nil) }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(
                name: "TagToLabel", kind: .custom, sourceEntityName: "Tag", destinationEntityName: "Label",
                attributeMappings: [
                    PropertyMapping(name: "text", valueExpression: "$source.word"),
                    PropertyMapping(name: "shout", valueExpression: "FUNCTION($entityPolicy, \"shout:\", $source.word)"),
                ],
                sourceExpression: EntityMapping.defaultSourceExpression(forEntityNamed: "Tag"), migrationPolicyName: "Recorder"),
            EntityMapping(
                name: "ItemToThing", kind: .transform, sourceEntityName: "Item", destinationEntityName: "Thing",
                attributeMappings: [PropertyMapping(name: "title", valueExpression: "FUNCTION($source, \"valueForKey:\", \"title\")")],
                relationshipMappings: [
                    PropertyMapping(
                        name: "labels", valueExpression: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"TagToLabel\", $source.tags)")
                ],
                sourceExpression: "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Item\", \"weight >= 10\"), $manager.sourceContext, NO)",
                migrationPolicyName: "Recorder"),
        ])
        let source = try Catalogue.makeStore()
        let destination = (source as NSString).deletingLastPathComponent + "/things.sqlite"
        let m = try MigrationManager(sourceModel: v1, destinationModel: v2)
        try m.migrateStore(from: source, mapping: mapping, to: destination)
        XCTAssertEqual(Recorder.calls.withLock { $0 }, [
            "begin TagToLabel", "created TagToLabel", "begin ItemToThing", "created ItemToThing",
            "related TagToLabel", "related ItemToThing",
            "validate TagToLabel", "end TagToLabel", "validate ItemToThing", "end ItemToThing",
        ])
        let stack = try Stack(model: v2, path: destination)
        let thingsFound = try stack.context.fetch(FetchRequest(entityName: "Thing", sortKeys: [SortKey("title")]))
        XCTAssertEqual(thingsFound.count, 4, "the source predicate keeps items of weight 10 or more")
        let three = try XCTUnwrap(thingsFound.first { (try? $0.value(forKey: "title")) == .string("item 3") })
        XCTAssertEqual(Set(try three.objects(forKey: "labels").map { try $0.value(forKey: "shout") }), [.string("RED!"), .string("GREEN!"), .string("BLUE!")])
        XCTAssertThrowsError(try m.destinationInstances(forEntityMappingNamed: "NoSuchMapping", sourceInstances: nil))
    }

    /// A policy's own error ends the migration as it is; nothing reaches the destination.
    func testPolicyErrorComesThroughUnchanged() throws {
        final class Refuser: EntityMigrationPolicy, @unchecked Sendable {
            override func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
                throw ObjectGraphError(code: 7777, message: "refused \(try source.value(forKey: "title"))")
            }
        }
        EntityMigrationPolicy.register("Refuser", factory: { Refuser() })
        defer { EntityMigrationPolicy.register("Refuser", factory: nil) }
        let m = try manager()
        let mapping = try MappingModel.inferred(from: m.sourceModel, to: m.destinationModel)
        mapping.entityMappingsByName["IEM_Transform_Item"]?.migrationPolicyName = "Refuser"
        let source = try Catalogue.makeStore()
        let destination = (source as NSString).deletingLastPathComponent + "/v2.sqlite"
        let e = expectError { try m.migrateStore(from: source, mapping: mapping, to: destination) }
        XCTAssertEqual(e?.code, 7777)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    /// An existing destination receives the migrated objects in one save.
    func testAppendsToAnExistingDestination() throws {
        let source = try Catalogue.makeStore()
        let destination = (source as NSString).deletingLastPathComponent + "/v2.sqlite"
        do {
            let stack = try Stack(model: try Catalogue.version2(), path: destination)
            try stack.context.insertObject(entityName: "Aisle").setValue(.integer(1), forKey: "number")
            try stack.context.save()
        }
        try manager().migrateStore(from: source, to: destination)
        let stack = try Stack(model: try Catalogue.version2(), path: destination)
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Aisle")), 1)
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Item")), 5)
    }
}
