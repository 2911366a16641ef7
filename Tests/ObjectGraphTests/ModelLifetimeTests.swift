import XCTest

@testable import ObjectGraph

/// Model objects point at entities without keeping them alive: a property or relationship
/// that outlives its model reads nil for its entities, as with weak references.
final class ModelLifetimeTests: XCTestCase {
    func testPropertiesOutlivingTheirModelSeeNoEntity() throws {
        var attribute: AttributeDescription?
        var relationship: RelationshipDescription?
        weak var entity: EntityDescription?
        do {
            let model = ManagedObjectModel()
            let author = try model.addEntity(named: "Author")
            let book = try model.addEntity(named: "Book")
            let novel = try model.addEntity(named: "Novel")
            try novel.setSuperentity(book)
            attribute = try author.addAttribute(named: "name", type: .string)
            relationship = try book.addRelationship(named: "author", destination: author)
            XCTAssertTrue(attribute?.entity === author)
            XCTAssertTrue(relationship?.destinationEntity === author)
            XCTAssertTrue(novel.superentity === book)
            entity = author
        }
        XCTAssertNil(entity, "the entities went away with their model")
        XCTAssertNil(attribute?.entity)
        XCTAssertNil(relationship?.entity)
        XCTAssertNil(relationship?.destinationEntity)
    }
}
