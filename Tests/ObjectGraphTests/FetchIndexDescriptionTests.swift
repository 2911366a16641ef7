import Foundation
import ObjectGraph
import XCTest

/// Fetch indexes and the indexed flag, as Core Data defines them (FetchIndexDescription.swift,
/// PropertyDescription.isIndexed): a property is indexed exactly when an index of it alone
/// exists; a relationship always is; archives turn the flag into an index named after it.
final class FetchIndexDescriptionTests: XCTestCase {
    func makeThing() throws -> (ManagedObjectModel, EntityDescription) {
        let model = ManagedObjectModel()
        let thing = try model.addEntity(named: "Thing")
        for name in ["a", "b", "c"] { try thing.addAttribute(named: name, type: .string) }
        try thing.addAttribute(named: "lat", type: .float)
        return (model, thing)
    }

    func testAPropertyIsIndexedByAnIndexOfItAlone() throws {
        let (_, thing) = try makeThing()
        let a = try XCTUnwrap(thing.attributesByName["a"]), b = try XCTUnwrap(thing.attributesByName["b"])
        let c = try XCTUnwrap(thing.attributesByName["c"])
        XCTAssertFalse(a.isIndexed)
        try a.setIndexed(true)
        XCTAssertTrue(a.isIndexed)
        XCTAssertEqual(thing.fetchIndexes.map(\.name), ["a"], "an index named after it")
        try thing.setFetchIndexes([
            FetchIndexDescription(name: "byB", elements: [.init(property: "b")]),
            FetchIndexDescription(name: "byAC", elements: [.init(property: "a"), .init(property: "c")]),
        ])
        XCTAssertTrue(b.isIndexed)
        XCTAssertFalse(a.isIndexed, "one element of several")
        XCTAssertFalse(c.isIndexed)
        try thing.setFetchIndexes([
            FetchIndexDescription(name: "downC", elements: [.init(property: "c", ascending: false)]),
            FetchIndexDescription(name: "partialA", elements: [.init(property: "a")], partialPredicate: "a != nil"),
        ])
        XCTAssertFalse(c.isIndexed, "a descending index")
        XCTAssertTrue(a.isIndexed, "a partial one counts")
        try a.setIndexed(false)
        XCTAssertEqual(thing.fetchIndexes.map(\.name), ["downC"], "false removes the indexes that made it indexed")
    }

    func testARelationshipIsAlwaysIndexed() throws {
        let model = ManagedObjectModel()
        let folder = try model.addEntity(named: "Folder"), note = try model.addEntity(named: "Note")
        let notes = try folder.addRelationship(named: "notes", destination: note, toMany: true)
        let toFolder = try note.addRelationship(named: "folder", destination: folder)
        try notes.setInverse(toFolder)
        XCTAssertTrue(toFolder.isIndexed, "by its foreign key")
        XCTAssertTrue(notes.isIndexed)
        try toFolder.setIndexed(false)
        XCTAssertTrue(toFolder.isIndexed)
    }

    func testRTreeElementsIndexNumbersOnly() throws {
        let (model, thing) = try makeThing()
        try thing.setFetchIndexes([FetchIndexDescription(name: "byPlace", elements: [.init(property: "lat", collation: .rtree)])])
        XCTAssertNoThrow(try model.validate())
        try thing.setFetchIndexes([FetchIndexDescription(name: "byWord", elements: [.init(property: "a", collation: .rtree)])])
        let e = expectError { try model.validate() }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains("R-tree") ?? false, e?.message ?? "")
    }

    func testAnArchiveKeepsTheIndexesAndTheFlags() throws {
        let (model, thing) = try makeThing()
        try thing.setFetchIndexes([
            FetchIndexDescription(name: "byB", elements: [.init(property: "b")]),
            FetchIndexDescription(name: "byADown", elements: [.init(property: "a", ascending: false)], partialPredicate: "a != nil"),
            FetchIndexDescription(name: "byPlace", elements: [.init(property: "lat", collation: .rtree)]),
        ])
        for back in [try ManagedObjectModel(jsonData: Data(model.jsonString().utf8)), try ManagedObjectModel(xcodeXML: Data(model.xcodeXMLString().utf8))] {
            let entity = try XCTUnwrap(back.entity(named: "Thing"))
            XCTAssertEqual(entity.fetchIndexes.map(\.name), ["b", "byB", "byADown", "byPlace"], "b is indexed, so it gets its own index first")
            XCTAssertEqual(entity.fetchIndexes[2].partialPredicate, "a != nil")
            XCTAssertEqual(entity.fetchIndexes[3].elements.first?.collation, .rtree)
            XCTAssertFalse(entity.attributesByName["a"]?.isIndexed ?? true)
        }
    }

    func testIndexesLeaveTheVersionHashAlone() throws {
        let (_, thing) = try makeThing()
        let before = thing.versionHash
        try thing.setFetchIndexes([FetchIndexDescription(name: "byA", elements: [.init(property: "a")])])
        XCTAssertEqual(thing.versionHash, before)
    }
}
