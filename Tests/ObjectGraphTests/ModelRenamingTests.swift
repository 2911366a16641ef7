import Foundation
@testable import ObjectGraph
import XCTest

/// Entities and properties renamed before the model is used: the model is re-keyed and
/// every reference follows.
final class ModelRenamingTests: XCTestCase {
    func testRenamingAnEntityReKeysTheModel() throws {
        let model = try makeLendingModel()
        let book = try XCTUnwrap(model.entity(named: "Book"))
        let author = try XCTUnwrap(model.entity(named: "Author"))
        try model.setEntities([book, author], forConfiguration: "Shelf")
        try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Book", predicateFormat: "pages > 10"), forName: "long")
        let before = book.versionHash
        try book.setName("Volume")
        XCTAssertTrue(model.entity(named: "Volume") === book)
        XCTAssertNil(model.entity(named: "Book"))
        XCTAssertTrue(model.entitiesByName["Volume"] === book)
        XCTAssertEqual((author.property(named: "books") as? RelationshipDescription)?.destinationEntity?.name, "Volume")
        XCTAssertEqual(model.entities(forConfiguration: "Shelf")?.map(\.name), ["Volume", "Author"])
        XCTAssertEqual(model.fetchRequestTemplate(named: "long")?.entityName, "Volume")
        XCTAssertNotEqual(book.versionHash, before)
        XCTAssertEqual(model.entityVersionHashesByName["Volume"], book.versionHash)
        XCTAssertEqual(expectError { try book.setName("") }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try book.setName("Author") }?.code, ErrorCode.invalidArgument)
        XCTAssertNoThrow(try book.setName("Volume"), "its own name is not taken")
    }

    func testRenamingAPropertyReKeysTheEntity() throws {
        let model = try makeLendingModel()
        let book = try XCTUnwrap(model.entity(named: "Book"))
        try book.setUniquenessConstraints([["title", "isbn"]])
        try book.setFetchIndexes([FetchIndexDescription(name: "byTitle", elements: [.init(property: "title")])])
        let title = try XCTUnwrap(book.property(named: "title"))
        let writtenBy = try XCTUnwrap(book.property(named: "author") as? RelationshipDescription)
        try title.setName("heading")
        try writtenBy.setName("writer")
        XCTAssertTrue(book.property(named: "heading") === title)
        XCTAssertNil(book.property(named: "title"))
        XCTAssertEqual(book.uniquenessConstraints, [["heading", "isbn"]])
        XCTAssertEqual(book.fetchIndexes.first?.elements.map(\.property), ["heading"])
        XCTAssertTrue(title.isIndexed)
        XCTAssertEqual((model.entity(named: "Author")?.property(named: "books") as? RelationshipDescription)?.inverseRelationship?.name, "writer")
        XCTAssertEqual(expectError { try title.setName("") }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try title.setName("pages") }?.code, ErrorCode.invalidArgument)

        // The renamed model works, and is frozen once in use.
        ManagedObjectClasses.register(BookObject.self)
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/renamed.sqlite")
        let author = try stack.context.insertObject(entityName: "Author")
        try author.setValue("Terry", forKey: "name")
        let volume = try stack.context.insertObject(entityName: "Book")
        try volume.setValue("Mort", forKey: "heading")
        try volume.setObject(author, forKey: "writer")
        try stack.context.save()
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "writer.name == 'Terry'"))), 1)
        XCTAssertEqual(expectError { try title.setName("caption") }?.code, ErrorCode.modelImmutable)
        XCTAssertEqual(expectError { try book.setName("Tome") }?.code, ErrorCode.modelImmutable)
    }
}
