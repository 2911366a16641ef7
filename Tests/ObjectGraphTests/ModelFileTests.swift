import Foundation
import ObjectGraph
import XCTest

/// The model files: Xcode's XML (`.xcdatamodel`, `.xcdatamodeld`), the JSON format, and
/// the hand-written fixtures in Tests/Fixtures/Models.
final class ModelFileTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Models").path
    static let bundles = ["Inheritance", "Library", "AllTypes", "Shop", "Versions"]

    func load(_ name: String, version: String? = nil) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: "\(Self.fixtures)/\(name).xcdatamodeld", version: version)
    }

    func testEveryFixtureRoundTripsThroughXcodeXMLAndJSON() throws {
        let dir = try temporaryDirectory()
        for name in Self.bundles {
            // A first save records each indexed attribute's flag, which reading turns into
            // an index named after it (Core Data's rule): from then on the round trip is exact.
            let first = "\(dir)/\(name)First.xcdatamodel"
            try load(name).write(toPath: first)
            let model = try ManagedObjectModel(contentsOf: first)
            // XML → write → read
            let xml = "\(dir)/\(name).xcdatamodel"
            try model.write(toPath: xml)
            let again = try ManagedObjectModel(contentsOf: xml)
            XCTAssertTrue(model.isEquivalent(to: again), "\(name): XML round trip")
            XCTAssertEqual(again.xcodeXMLString(), model.xcodeXMLString(), name)
            // XML → JSON → XML
            let json = "\(dir)/\(name).json"
            try model.write(toPath: json)
            let fromJSON = try ManagedObjectModel(contentsOf: json)
            XCTAssertTrue(fromJSON.isEquivalent(to: model), "\(name): JSON round trip")
            XCTAssertEqual(fromJSON.entityVersionHashesByName, model.entityVersionHashesByName, name)
            let bundle = "\(dir)/\(name)Copy.xcdatamodeld"
            try fromJSON.write(toPath: bundle)
            XCTAssertTrue(try ManagedObjectModel(contentsOf: bundle).isEquivalent(to: model), "\(name): JSON → xcdatamodeld")
        }
    }

    func testInheritanceThreeLevelsDeep() throws {
        let m = try load("Inheritance")
        let vehicle = try XCTUnwrap(m.entity(named: "Vehicle")), car = try XCTUnwrap(m.entity(named: "Car"))
        let sports = try XCTUnwrap(m.entity(named: "SportsCar"))
        XCTAssertTrue(vehicle.isAbstract)
        XCTAssertTrue(sports.superentity === car && car.superentity === vehicle)
        XCTAssertTrue(sports.isKind(of: vehicle) && !vehicle.isKind(of: sports))
        XCTAssertEqual(sports.properties.map(\.name), ["wheels", "maker", "owner", "doors", "plate", "topSpeed"])
        XCTAssertEqual(vehicle.subentitiesByName.keys.sorted(), ["Car"])
        XCTAssertEqual(car.renamingIdentifier, "Automobile")
        XCTAssertEqual(vehicle.renamingIdentifier, "Vehicle")
        XCTAssertEqual(sports.versionHashModifier, "fast")
        XCTAssertEqual(vehicle.userInfo, ["table": "vehicles"])
        XCTAssertEqual(car.managedObjectClassName, "Car")
        let plate = try XCTUnwrap(car.property(named: "plate"))
        XCTAssertEqual(plate.renamingIdentifier, "registration")
        XCTAssertEqual(plate.versionHashModifier, "v2")
        XCTAssertEqual(plate.userInfo, ["format": "upper"])
        XCTAssertTrue((vehicle.property(named: "maker"))!.isIndexed)
        let person = try XCTUnwrap(m.entity(named: "Person"))
        let fast = try XCTUnwrap(person.fetchedPropertiesByName["fastCars"])
        XCTAssertEqual(fast.fetchRequest.entityName, "SportsCar")
        XCTAssertEqual(fast.fetchRequest.predicateFormat, "owner == $FETCH_SOURCE AND topSpeed > 200")
        XCTAssertEqual(fast.slot, -1)
        XCTAssertEqual(person.relationships(withDestination: vehicle).map(\.name), ["vehicles"])
        XCTAssertNotNil(person.propertiesByName["fastCars"])
        XCTAssertTrue(m.loadWarnings.isEmpty, "the diagram layout is kept silently")
    }

    func testManyToManyOrderedAndDeleteRules() throws {
        let m = try load("Library")
        let book = try XCTUnwrap(m.entity(named: "Book"))
        let authors = try XCTUnwrap(book.relationshipsByName["authors"])
        XCTAssertTrue(authors.isToMany && authors.inverseRelationship!.isToMany)
        XCTAssertEqual(authors.minCount, 1)
        XCTAssertEqual(authors.maxCount, 10)
        XCTAssertEqual(book.relationshipsByName["loans"]?.deleteRule, .deny)
        XCTAssertEqual(book.relationshipsByName["shelf"]?.deleteRule, .noAction)
        let shelf = try XCTUnwrap(m.entity(named: "Shelf")?.relationshipsByName["books"])
        XCTAssertTrue(shelf.isOrdered)
        XCTAssertEqual(shelf.deleteRule, .cascade)
        XCTAssertEqual(book.uniquenessConstraints, [["title"]])
        XCTAssertEqual(m.entity(named: "Shelf")?.fetchIndexes.first?.elements.first?.property, "label")
        let name = try XCTUnwrap(m.entity(named: "Author")?.attributesByName["name"])
        XCTAssertEqual(name.minLength, 1)
        XCTAssertEqual(name.maxLength, 200)
        XCTAssertEqual(m.versionIdentifiers, ["library-1"])
    }

    /// Found by the compiled-model fuzzer: a compiled model whose undefined attribute had a
    /// default loaded, but wrote Xcode XML (and JSON) its own readers refused. Undefined
    /// attributes have no default: the compiled reader skips it with a warning.
    func testUndefinedAttributesHaveNoDefault() throws {
        let model = ManagedObjectModel()
        let e = try model.addEntity(named: "Thing")
        let scratch = try e.addAttribute(named: "scratch", type: .undefined)
        try scratch.setTransient(true)
        XCTAssertEqual(expectError { try scratch.setDefaultValue(.string("x")) }?.code, ErrorCode.invalidModel)
        try scratch.setDefaultValue(.null)
        XCTAssertNotNil(try ManagedObjectModel(xcodeXML: Data(model.xcodeXMLString().utf8)).entity(named: "Thing"))
        XCTAssertNotNil(try ManagedObjectModel(jsonData: Data(model.jsonString().utf8)).entity(named: "Thing"))
    }

    func testEveryAttributeType() throws {
        let model = try load("AllTypes")
        let s = try XCTUnwrap(model.entity(named: "Sample"))
        let a = s.attributesByName
        XCTAssertEqual(Set(a.values.map(\.attributeType)), Set(AttributeType.allCases.filter { $0 != .objectID }))
        XCTAssertEqual(a["small"]?.defaultValue, .integer(-5))
        XCTAssertEqual(a["small"]?.minValue, .integer(-10))
        XCTAssertEqual(a["small"]?.maxValue, .integer(10))
        XCTAssertEqual(a["large"]?.defaultValue, .integer(9_007_199_254_740_993))
        XCTAssertEqual(a["price"]?.defaultValue, .decimal(Decimal(string: "12.5")!))
        XCTAssertEqual(a["weight"]?.defaultValue, .double(1.5))
        XCTAssertEqual(a["code"]?.regularExpression, "[A-Z]+[0-9]*")
        XCTAssertEqual(a["code"]?.minLength, 2)
        XCTAssertEqual(a["available"]?.defaultValue, .boolean(true))
        XCTAssertEqual(a["published"]?.defaultValue, .date(Date(timeIntervalSinceReferenceDate: 86400)))
        XCTAssertEqual(a["published"]?.maxValue, .date(Date(timeIntervalSinceReferenceDate: 1e9)))
        XCTAssertTrue(a["cover"]!.allowsExternalBinaryDataStorage)
        XCTAssertTrue(a["identifier"]!.preservesValueInHistoryOnDeletion)
        XCTAssertEqual(a["link"]?.defaultValue, .uri(URL(string: "https://example.org/b")!))
        XCTAssertEqual(a["colour"]?.valueTransformerName, "ColourTransformer")
        XCTAssertTrue(model.xcodeXMLString().contains(#"customClassName="Colour""#))
        XCTAssertTrue(a["scratch"]!.isTransient)
        XCTAssertTrue(a["searchText"]!.isIndexedBySpotlight && a["searchText"]!.isStoredInExternalRecord)
    }

    func testTwoVersionsTheCurrentOneAndANamedOne() throws {
        let path = "\(Self.fixtures)/Versions.xcdatamodeld"
        XCTAssertEqual(try ManagedObjectModel.versionNames(inBundle: path), ["Versions", "Versions 2"])
        XCTAssertEqual(try ManagedObjectModel.currentVersionName(inBundle: path), "Versions 2")
        let current = try load("Versions"), first = try load("Versions", version: "Versions")
        XCTAssertEqual(current.versionIdentifiers, ["2"])
        XCTAssertEqual(first.versionIdentifiers, ["1"])
        XCTAssertNotNil(current.entity(named: "Tag"))
        XCTAssertNil(first.entity(named: "Tag"))
        XCTAssertEqual(current.entity(named: "Note")?.property(named: "text")?.renamingIdentifier, "body")
        XCTAssertNotEqual(current.entityVersionHashesByName["Note"], first.entityVersionHashesByName["Note"])
        let e = expectError { _ = try self.load("Versions", version: "Versions 9") }
        XCTAssertTrue(e?.message.contains("Versions 9") ?? false)
    }

    func testMalformedModelsEachGiveTheirError() throws {
        let dir = "\(Self.fixtures)/Invalid"
        let lines = try String(contentsOfFile: dir + "/EXPECTED.tsv", encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 25)
        for line in lines {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            let path = dir + "/" + parts[0]
            let e = expectError { _ = try ManagedObjectModel(contentsOf: path) }
            XCTAssertEqual(e?.code, ErrorCode.invalidModel, parts[0])
            XCTAssertTrue(e?.message.contains(parts[1]) ?? false, "\(parts[0]): \(e?.message ?? "no error")")
            XCTAssertTrue(e?.message.contains(parts[0]) ?? false, "\(parts[0]): the message names the file")
        }
    }

    func testErrorsNameFileEntityAndPropertyInUserInfo() throws {
        let e = expectError { _ = try ManagedObjectModel(contentsOf: "\(Self.fixtures)/Invalid/unknown-destination.xcdatamodel") }
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), "A")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "r")
        XCTAssertTrue(e?.userInfoValue(forKey: ErrorUserInfoKey.filePath)?.hasSuffix("contents") ?? false)
    }

    func testUnknownElementsAreKeptWithAWarning() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" userDefinedModelVersionIdentifier="">
                <entity name="A" syncable="YES">
                    <attribute name="x" optional="YES" attributeType="String" allowsCloudEncryption="YES"/>
                    <futureIndex kind="vector"><part name="x"/></futureIndex>
                </entity>
                <futureSetting value="1"/>
            </model>
            """
        let m = try ManagedObjectModel(xcodeXML: Data(xml.utf8), source: "future.xml")
        XCTAssertEqual(m.loadWarnings.count, 2)
        XCTAssertTrue(m.loadWarnings[0].contains("futureIndex"))
        let written = m.xcodeXMLString()
        XCTAssertTrue(written.contains(#"<futureIndex kind="vector">"#))
        XCTAssertTrue(written.contains(#"<futureSetting value="1"/>"#))
        XCTAssertTrue(written.contains(#"allowsCloudEncryption="YES""#))
        XCTAssertTrue(written.contains(#"syncable="YES""#))
    }

    func testXMLParserHandlesEntitiesCommentsAndCDATA() throws {
        let xml = """
            <?xml version="1.0"?><!-- a comment --><!DOCTYPE model>
            <model><entity name="A&amp;B&#65;"><userInfo><entry key="k" value="&lt;&quot;&gt;"/></userInfo></entity></model>
            """
        let e = expectError { _ = try ManagedObjectModel(xcodeXML: Data(xml.utf8)) }
        XCTAssertTrue(e?.message.contains("A&BA") ?? false, "the name is decoded before it is checked")
        let deep = String(repeating: "<a>", count: 100_000)
        XCTAssertEqual(expectError { _ = try ManagedObjectModel(xcodeXML: Data(deep.utf8)) }?.code, ErrorCode.invalidModel)
    }
}
