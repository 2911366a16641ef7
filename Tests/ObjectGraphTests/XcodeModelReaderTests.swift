import Foundation
import ObjectGraph
import XCTest

/// Reading Xcode's `contents` as Xcode writes it (XcodeModelReader.swift): what Xcode
/// leaves out takes Xcode's default, defaults in another type's spelling are read as Core
/// Data's compiler reads them, and fetch indexes keep their partial predicate and R-tree
/// elements. The fixture is Tests/Fixtures/Models/XcodeDefaults.xcdatamodel.
final class XcodeModelReaderTests: XCTestCase {
    func load() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: "\(ModelFileTests.fixtures)/XcodeDefaults.xcdatamodel")
    }

    func attribute(_ m: ManagedObjectModel, _ entity: String, _ name: String) throws -> AttributeDescription {
        try XCTUnwrap(m.entity(named: entity)?.attributesByName[name], "\(entity).\(name)")
    }

    func testAnAttributeWithoutTypeIsUndefined() throws {
        let m = try load()
        let scratch = try attribute(m, "Place", "scratch")
        XCTAssertEqual(scratch.attributeType, .undefined)
        XCTAssertTrue(scratch.isTransient)
        // Written back as Xcode writes it: no attributeType.
        XCTAssertTrue(m.xcodeXMLString().contains(#"<attribute name="scratch" optional="YES" transient="YES"/>"#), m.xcodeXMLString())
        // Only transient attributes may be Undefined, as Core Data says.
        let xml = #"<model userDefinedModelVersionIdentifier=""><entity name="A"><attribute name="x" optional="YES"/></entity></model>"#
        let e = expectError { _ = try ManagedObjectModel(xcodeXML: Data(xml.utf8), source: "stored.xml") }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains("only transient attributes") ?? false, e?.message ?? "")
    }

    func testOmittedAttributesTakeXcodesDefaults() throws {
        let m = try load()
        XCTAssertFalse(try attribute(m, "Note", "title").isOptional, "no optional attribute: required")
        XCTAssertTrue(try attribute(m, "Note", "stamp").isOptional)
        let place = try XCTUnwrap(m.entity(named: "Note")?.relationshipsByName["place"])
        XCTAssertEqual(place.deleteRule, .nullify, "no deletionRule: Nullify")
        XCTAssertFalse(place.isToMany)
        XCTAssertEqual(place.minCount, 0)
        XCTAssertEqual(place.maxCount, 1)
        let notes = try XCTUnwrap(m.entity(named: "Place")?.relationshipsByName["notes"])
        XCTAssertTrue(notes.isToMany)
        XCTAssertEqual(notes.maxCount, 0, "no maxCount on a to-many: unbounded")
        XCTAssertFalse(notes.isOrdered)
        // A transformable of a custom class needs no transformer name (the default one serves).
        let colour = try attribute(m, "Note", "colour")
        XCTAssertEqual(colour.attributeValueClassName, "Colour", "customClassName is the value class")
        XCTAssertNil(colour.valueTransformerName)
        XCTAssertTrue(m.xcodeXMLString().contains(#"customClassName="Colour""#))
    }

    func testDefaultsInAnotherSpellingAreReadAsCoreDataReadsThem() throws {
        let m = try load()
        XCTAssertEqual(try attribute(m, "Note", "pinned").defaultValue, .integer(0), "Integer 32 default NO")
        XCTAssertEqual(try attribute(m, "Note", "starred").defaultValue, .integer(1), "Integer 16 default YES")
        XCTAssertEqual(try attribute(m, "Note", "words").defaultValue, .integer(12), "the leading number of '12 words'")
        XCTAssertEqual(try attribute(m, "Note", "ratio").defaultValue, .double(0), "no number at all: 0")
        XCTAssertEqual(try attribute(m, "Note", "price").defaultValue, .decimal(Decimal(string: "4.5")!))
        XCTAssertEqual(try attribute(m, "Note", "archived").defaultValue, .boolean(true), "boolValue of 'true'")
        XCTAssertEqual(try attribute(m, "Note", "token").defaultValue, .null, "not a UUID: no default")
        XCTAssertEqual(try attribute(m, "Note", "stamp").defaultValue, .date(Date(timeIntervalSinceReferenceDate: 86400.5)))
        XCTAssertEqual(try attribute(m, "Note", "rank").minValue, .integer(1))
        XCTAssertEqual(try attribute(m, "Note", "rank").maxValue, .integer(10))
        // Each lenient reading is reported, naming the attribute.
        let warnings = m.loadWarnings.joined(separator: "\n")
        for name in ["pinned", "starred", "words", "ratio", "price", "archived", "token", "rank"] {
            XCTAssertTrue(warnings.contains("'\(name)'"), "\(name): \(warnings)")
        }
        XCTAssertFalse(warnings.contains("'title'"))
        // A new object starts with those values.
        let stack = try Stack(model: m, path: try temporaryDirectory() + "/defaults.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        XCTAssertEqual(try note.value(forKey: "pinned"), .integer(0))
        XCTAssertEqual(try note.value(forKey: "starred"), .integer(1))
    }

    func testFetchIndexesKeepPartialPredicatesAndRTreeElements() throws {
        let m = try load()
        let note = try XCTUnwrap(m.entity(named: "Note")), place = try XCTUnwrap(m.entity(named: "Place"))
        XCTAssertEqual(note.fetchIndexes.map(\.name), ["words", "byPlace", "byPlaceAndTitle", "byStampAndTitle", "byTitledOnly"],
                       "an attribute marked indexed gets an index named after it, ahead of the stored ones")
        XCTAssertEqual(note.fetchIndexes.last?.partialPredicate, "title != nil")
        XCTAssertEqual(note.fetchIndexes[3].elements, [.init(property: "stamp", ascending: false), .init(property: "title")])
        XCTAssertEqual(place.fetchIndexes.first?.elements.map(\.collation), [.rtree, .rtree])
        // Written back in Xcode's spelling, and read again unchanged.
        let xml = m.xcodeXMLString()
        XCTAssertTrue(xml.contains(#"<fetchIndex name="byTitledOnly" partialIndexPredicate="title != nil">"#), xml)
        XCTAssertTrue(xml.contains(#"<fetchIndexElement property="latitude" type="RTree" order="ascending"/>"#), xml)
        // byTitledOnly indexes title alone (partial indexes count), so title is indexed, and
        // reading the archive gives it an index of its own ahead of the others.
        let expected = [FetchIndexDescription(name: "title", elements: [.init(property: "title")])] + note.fetchIndexes
        let again = try ManagedObjectModel(xcodeXML: Data(xml.utf8), source: "again.xml")
        XCTAssertEqual(again.entity(named: "Note")?.fetchIndexes, expected)
        XCTAssertEqual(again.entity(named: "Place")?.fetchIndexes, place.fetchIndexes)
        // And through the JSON format.
        let json = try ManagedObjectModel(jsonData: Data(m.jsonString().utf8))
        XCTAssertEqual(json.entity(named: "Note")?.fetchIndexes, expected)
        XCTAssertEqual(json.entity(named: "Place")?.fetchIndexes, place.fetchIndexes)
    }

    func testASubentityMayRedeclareAnInheritedProperty() throws {
        let m = try load()
        let cafe = try XCTUnwrap(m.entity(named: "Cafe")), place = try XCTUnwrap(m.entity(named: "Place"))
        XCTAssertEqual(cafe.properties.map(\.name).filter { $0 == "label" }.count, 1, "each name once")
        XCTAssertTrue(cafe.attributesByName["label"]?.entity === cafe)
        XCTAssertEqual(cafe.attributesByName["label"]?.defaultValue, .string("Coffee"))
        XCTAssertEqual(place.attributesByName["label"]?.defaultValue, .null)
        XCTAssertEqual(cafe.slot(forKey: "label"), place.slot(forKey: "label"), "the redeclaration keeps the inherited slot")
        let stack = try Stack(model: m, path: try temporaryDirectory() + "/cafe.sqlite")
        let c = try stack.context.insertObject(entityName: "Cafe")
        XCTAssertEqual(try c.value(forKey: "label"), .string("Coffee"))
        try stack.context.save()
        let found = try stack.context.fetch(FetchRequest(entityName: "Place", predicate: try ObjectPredicate(format: "label == 'Coffee'")))
        XCTAssertEqual(found.count, 1, "the inherited column holds it, so a fetch of the superentity finds it")
    }
}
