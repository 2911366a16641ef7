import Foundation
import ObjectGraph
import XCTest

final class ModelTests: XCTestCase {
    /// A new model frozen by coordinators made at the same moment on several threads: each
    /// thread rebuilt the entities' layouts at once, and one freed what another was reading.
    func testCoordinatorsMadeAtOnceOnSeveralThreadsFreezeANewModelOnce() throws {
        for _ in 0..<40 {
            let model = try makeLibraryModel()
            let outcomes = Results()
            runTogether(4) { n in
                do throws(ObjectGraphError) {
                    let coordinator = try PersistentStoreCoordinator(model: model)
                    _ = try coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
                    let context = ManagedObjectContext(coordinator: coordinator)
                    let book = try context.insertObject(entityName: "Book")
                    try book.setValue(.string("copy \(n)"), forKey: "title")
                    try context.save()
                    if case .string(let title) = try book.value(forKey: "title") { outcomes.append(.success(title)) }
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            XCTAssertEqual(outcomes.all.map { (try? $0.get()) ?? "failed: \($0)" }.sorted(), ["copy 0", "copy 1", "copy 2", "copy 3"])
            XCTAssertFalse(model.isEditable)
        }
    }

    func testSlotsPutTheSuperentityFirst() throws {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string)
        try book.setSuperentity(item)
        XCTAssertEqual(book.properties.map(\.name), ["name", "title"])
        XCTAssertEqual(book.slot(forKey: "name"), 0)
        XCTAssertEqual(book.slot(forKey: "title"), 1)
        XCTAssertTrue(book.isKind(of: item))
        XCTAssertFalse(item.isKind(of: book))
        XCTAssertTrue(book.rootEntity === item)
    }

    func testDuplicateReservedAndInvalidNamesAreRefused() throws {
        let model = ManagedObjectModel()
        let e = try model.addEntity(named: "Thing")
        try e.addAttribute(named: "name", type: .string)
        XCTAssertEqual(expectError { try e.addAttribute(named: "name", type: .integer16) }?.code, ErrorCode.invalidModel)
        XCTAssertEqual(expectError { try e.addAttribute(named: "entity", type: .string) }?.code, ErrorCode.invalidModel)
        XCTAssertEqual(expectError { try e.addAttribute(named: "1abc", type: .string) }?.code, ErrorCode.invalidModel)
        XCTAssertEqual(expectError { try model.addEntity(named: "Thing") }?.code, ErrorCode.invalidModel)
    }

    func testInheritanceCyclesAreRefused() throws {
        let model = ManagedObjectModel()
        let a = try model.addEntity(named: "A"), b = try model.addEntity(named: "B")
        try b.setSuperentity(a)
        let e = expectError { try a.setSuperentity(b) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains("cycle") ?? false)
    }

    func testInverseMustPointBack() throws {
        let model = ManagedObjectModel()
        let a = try model.addEntity(named: "A"), b = try model.addEntity(named: "B"), c = try model.addEntity(named: "C")
        let ab = try a.addRelationship(named: "b", destination: b)
        let cb = try c.addRelationship(named: "b", destination: b)
        let e = expectError { try ab.setInverse(cb) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
    }

    func testDefaultValueMustSuitTheType() throws {
        let model = ManagedObjectModel()
        let e = try model.addEntity(named: "Thing")
        XCTAssertEqual(expectError { try e.addAttribute(named: "n", type: .integer16, defaultValue: "x") }?.code, ErrorCode.typeMismatch)
        XCTAssertEqual(expectError { try e.addAttribute(named: "m", type: .integer16, defaultValue: 40000) }?.code, ErrorCode.validationNumberTooLarge)
    }

    func testModelBecomesImmutableOnceACoordinatorUsesIt() throws {
        let model = try makeLibraryModel()
        XCTAssertTrue(model.isEditable)
        _ = try PersistentStoreCoordinator(model: model)
        XCTAssertFalse(model.isEditable)
        XCTAssertEqual(expectError { try model.addEntity(named: "Late") }?.code, ErrorCode.modelImmutable)
        let book = model.entity(named: "Book")!
        XCTAssertEqual(expectError { try book.addAttribute(named: "late", type: .string) }?.code, ErrorCode.modelImmutable)
        XCTAssertEqual(expectError { try book.property(named: "title")!.setOptional(true) }?.code, ErrorCode.modelImmutable)
    }

    func testJSONRoundTripGivesAnEqualModel() throws {
        let model = try makeLibraryModel()
        let json = model.jsonString()
        let again = try ManagedObjectModel(jsonData: Data(json.utf8))
        XCTAssertEqual(again.jsonString(), json)
        XCTAssertEqual(again.entityVersionHashesByName, model.entityVersionHashesByName)
        let book = again.entity(named: "Book")!
        XCTAssertEqual((book.property(named: "pages") as? AttributeDescription)?.attributeType, .integer32)
        XCTAssertEqual((book.property(named: "title") as? AttributeDescription)?.defaultValue, .string("Untitled"))
        let books = again.entity(named: "Author")!.property(named: "books") as! RelationshipDescription
        XCTAssertTrue(books.isToMany)
        XCTAssertEqual(books.deleteRule, .cascade)
        XCTAssertEqual(books.inverseRelationship?.name, "author")
    }

    func testJSONModelFileErrorsNameFileEntityAndKey() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/bad.json"
        try Data(#"{"format":"objectgraph-model","entities":[{"name":"Book","attributes":[{"name":"t","type":"strng"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let e = expectError { _ = try ManagedObjectModel(contentsOf: path) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains(path) ?? false)
        XCTAssertTrue(e?.message.contains("entity 'Book', property 't'") ?? false)
        XCTAssertTrue(e?.message.contains("strng") ?? false)

        let unknownKey = #"{"format":"objectgraph-model","entities":[{"name":"Book","colour":1}]}"#
        XCTAssertTrue(expectError { _ = try ManagedObjectModel(jsonData: Data(unknownKey.utf8)) }?.message.contains("colour") ?? false)
        let badDestination = #"{"format":"objectgraph-model","entities":[{"name":"Book","relationships":[{"name":"x","destination":"Nope"}]}]}"#
        XCTAssertTrue(expectError { _ = try ManagedObjectModel(jsonData: Data(badDestination.utf8)) }?.message.contains("Nope") ?? false)
        XCTAssertEqual(expectError { _ = try ManagedObjectModel(jsonData: Data("not json".utf8)) }?.code, ErrorCode.invalidModel)
    }

    func testVersionHashesAreStableAndChangeOnlyWithTheListedInputs() throws {
        let a = try makeLibraryModel().entityVersionHashesByName
        let b = try makeLibraryModel().entityVersionHashesByName
        XCTAssertEqual(a, b)
        XCTAssertEqual(a["Book"]?.count, 32)

        // A default value or class name does not count.
        let withDefault = try makeLibraryModel()
        try (withDefault.entity(named: "Book")!.property(named: "copies") as! AttributeDescription).setDefaultValue(7)
        try withDefault.entity(named: "Book")!.setManagedObjectClassName("BookObject")
        XCTAssertEqual(withDefault.entityVersionHashesByName, a)

        // Optionality, type and new attributes do.
        let optional = try makeLibraryModel()
        try optional.entity(named: "Book")!.property(named: "title")!.setOptional(true)
        XCTAssertNotEqual(optional.entityVersionHashesByName["Book"], a["Book"])
        XCTAssertEqual(optional.entityVersionHashesByName["Author"], a["Author"])
        let retyped = try makeLibraryModel()
        try (retyped.entity(named: "Book")!.property(named: "pages") as! AttributeDescription).setAttributeType(.integer64)
        XCTAssertNotEqual(retyped.entityVersionHashesByName["Book"], a["Book"])
        let added = try makeLibraryModel()
        try added.entity(named: "Author")!.addAttribute(named: "born", type: .date)
        XCTAssertNotEqual(added.entityVersionHashesByName["Author"], a["Author"])
    }
}
