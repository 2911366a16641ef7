import Foundation
@testable import ObjectGraph
import XCTest

/// Xcode 3's binary data models (`elements`, Xcode3ModelReader.swift). The real models in
/// ../shared/fixtures/xcode3-models (read in place; those tests skip when absent) must
/// give what their expected.json says and the same models, version hashes included, as
/// their ground truth: Xcode 4's XML conversion or the compiled model. A model built here
/// (Xcode3ArchiveBuilder) covers what no fixture holds; Xcode3DamagedArchiveTests the
/// refusals.
final class Xcode3ModelReaderTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/fixtures/xcode3-models")
        .standardized.path

    func fixturesRoot() throws -> String {
        guard FileManager.default.fileExists(atPath: Self.root + "/expected.json") else { throw XCTSkip("no Xcode 3 fixtures at \(Self.root)") }
        return Self.root
    }

    func load(_ relative: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: "\(try fixturesRoot())/\(relative)")
    }

    // MARK: The fixtures against expected.json

    func testEveryFixtureGivesItsExpectedModel() throws {
        let root = try fixturesRoot()
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        XCTAssertEqual(expected.count, 8)
        for (path, model) in expected.sorted(by: { $0.key < $1.key }) {
            let m = try ManagedObjectModel(contentsOf: "\(root)/\(path)")
            compare(m, model, path)
            XCTAssertNoThrow(try m.validate(), path)
        }
    }

    private func compare(_ m: ManagedObjectModel, _ expected: [String: Any], _ label: String) {
        XCTAssertEqual(m.versionIdentifiers, (expected["version_identifier"] as? String).map { [$0] } ?? [], label)
        XCTAssertEqual(m.configurations, [], label)
        let entities = expected["entities"] as? [[String: Any]] ?? []
        XCTAssertEqual(m.entities.map(\.name), entities.map { $0["name"] as? String ?? "" }, "\(label): entities in name order")
        for e in entities {
            let name = e["name"] as? String ?? ""
            guard let entity = m.entity(named: name) else { XCTFail("\(label): no entity \(name)"); continue }
            let at = "\(label) \(name)"
            XCTAssertEqual(entity.managedObjectClassName, e["class_name"] as? String ?? "ManagedObject", at)
            XCTAssertEqual(entity.superentity?.name, e["parent"] as? String, at)
            XCTAssertEqual(entity.isAbstract, e["abstract"] as? Bool, at)
            compareUserInfo(entity.userInfo, e["user_info"], at)
            XCTAssertEqual(entity.xcodeAttributes.contains { $0 == ("syncable", "YES") }, e["syncable"] as? Bool, "\(at): syncable")
            let own = entity.ownProperties
            let expectedCount = ["attributes", "relationships", "fetched_properties"].reduce(0) { $0 + ((e[$1] as? [Any])?.count ?? 0) }
            XCTAssertEqual(own.count, expectedCount, "\(at): property count")
            for a in e["attributes"] as? [[String: Any]] ?? [] { compareAttribute(entity, a, at) }
            for r in e["relationships"] as? [[String: Any]] ?? [] { compareRelationship(entity, r, at) }
            for f in e["fetched_properties"] as? [[String: Any]] ?? [] {
                let p = entity.ownProperties.first { $0.name == f["name"] as? String } as? FetchedPropertyDescription
                XCTAssertEqual(p?.fetchRequest.entityName, f["destination"] as? String, at)
                XCTAssertEqual(p?.fetchRequest.predicateFormat, f["predicate"] as? String, at)
                XCTAssertEqual(p?.isOptional, f["optional"] as? Bool, at)
                // Its transient flag is not kept, as in `contents` (Xcode3ModelReader+Properties).
                XCTAssertEqual(p?.isTransient, false, at)
            }
        }
        let templates = expected["fetch_requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(m.fetchRequestTemplatesByName.keys.sorted(), templates.map { $0["name"] as? String ?? "" }.sorted(), label)
        for t in templates {
            let ours = m.fetchRequestTemplatesByName[t["name"] as? String ?? ""]
            XCTAssertEqual(ours?.entityName, t["entity"] as? String, label)
            XCTAssertEqual(ours?.predicateFormat, t["predicate"] as? String, label)
        }
    }

    /// String entries are kept; others (Sync Services' nested settings) are left out.
    private func compareUserInfo(_ ours: [String: String], _ expected: Any?, _ at: String) {
        let strings = (expected as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        XCTAssertEqual(ours, strings, "\(at): user info")
    }

    private func compareAttribute(_ entity: EntityDescription, _ e: [String: Any], _ label: String) {
        let name = e["name"] as? String ?? ""
        let at = "\(label).\(name)"
        guard let a = entity.ownProperties.first(where: { $0.name == name }) as? AttributeDescription else { return XCTFail("\(at): no attribute") }
        XCTAssertEqual(a.attributeType.rawValue, e["type_code"] as? Int, at)
        XCTAssertEqual(XcodeNames.name(of: a.attributeType), e["type"] as? String, at)
        XCTAssertEqual(a.isOptional, e["optional"] as? Bool, at)
        XCTAssertEqual(a.isTransient, e["transient"] as? Bool, at)
        XCTAssertEqual(a.isIndexed, e["indexed"] as? Bool, at)
        XCTAssertEqual(a.defaultValue, Self.value(e["default"] as? String, a.attributeType), "\(at): default")
        if let min = e["min"] as? String {
            if a.attributeType == .string { XCTAssertEqual(a.minLength, Int(min), at) } else { XCTAssertEqual(a.minValue, Self.value(min, a.attributeType), at) }
        } else {
            XCTAssertEqual(a.minValue, .null, at)
            XCTAssertNil(a.minLength, at)
        }
        XCTAssertEqual(a.maxValue, Self.value(e["max"] as? String, a.attributeType), at)
        XCTAssertEqual(a.regularExpression, e["regex"] as? String, at)
        XCTAssertEqual(a.valueTransformerName, e["value_transformer"] as? String, at)
        compareUserInfo(a.userInfo, e["user_info"], at)
        XCTAssertEqual(a.xcodeAttributes.contains { $0 == ("syncable", "YES") }, e["syncable"] as? Bool, "\(at): syncable")
    }

    private func compareRelationship(_ entity: EntityDescription, _ e: [String: Any], _ label: String) {
        let name = e["name"] as? String ?? ""
        let at = "\(label).\(name)"
        guard let r = entity.ownProperties.first(where: { $0.name == name }) as? RelationshipDescription else { return XCTFail("\(at): no relationship") }
        XCTAssertEqual(r.destinationEntity?.name, e["destination"] as? String, at)
        XCTAssertEqual(r.inverseRelationship?.name, e["inverse"] as? String, at)
        XCTAssertEqual(r.inverseRelationship?.entity?.name, e["inverse_entity"] as? String, at)
        XCTAssertEqual(r.isToMany, e["to_many"] as? Bool, at)
        XCTAssertEqual(r.minCount, e["min"] as? Int, at)
        XCTAssertEqual(r.maxCount, e["max"] as? Int, at)
        XCTAssertEqual(XcodeNames.name(of: r.deleteRule), e["delete_rule"] as? String, at)
        XCTAssertEqual(r.isOptional, e["optional"] as? Bool, at)
        XCTAssertEqual(r.isTransient, e["transient"] as? Bool, at)
        XCTAssertEqual(r.isOrdered, e["ordered"] as? Bool, at)
        XCTAssertEqual(r.xcodeAttributes.contains { $0 == ("syncable", "YES") }, e["syncable"] as? Bool, "\(at): syncable")
    }

    /// What the archived text of a default or bound means, spelled out per type (the
    /// fixtures use only the types' own spellings; a Date's text gives no value).
    static func value(_ text: String?, _ type: AttributeType) -> AttributeValue {
        guard let text else { return .null }
        switch type {
        case .integer16, .integer32, .integer64: return Int64(text).map { .integer($0) } ?? .null
        case .double, .float: return Double(text).map { .double($0) } ?? .null
        case .decimal: return Decimal(string: text).map { .decimal($0) } ?? .null
        case .boolean: return text == "YES" ? .boolean(true) : text == "NO" ? .boolean(false) : .null
        case .string: return .string(text)
        default: return .null
        }
    }

    func testFixtureSizes() throws {
        let counts: [(String, Int, Int)] = [
            ("mogenerator-test/test.xcdatamodel", 8, 30), ("wordpress-ios-13/WordPress 13.xcdatamodel", 13, 133),
            ("pyobjc-outlineedit/MyDocument.xcdatamodel", 2, 6), ("cappuccino-addressbook/AddressBook.xcdatamodel", 2, 8),
            ("mogenerator-testmule-2008/mogeneratorTestMule_DataModel.xcdatamodel", 5, 23), ("reviewsapp/DataModel.xcdatamodel", 4, 26),
            ("sourcemarkup/MyDocument.xcdatamodel", 8, 25), ("learn-coredata-locations/Locations.xcdatamodel", 1, 3),
        ]
        for (path, entities, properties) in counts {
            let m = try load(path)
            XCTAssertEqual(m.entities.count, entities, path)
            XCTAssertEqual(m.entities.reduce(0) { $0 + $1.ownProperties.count }, properties, path)
        }
    }

    // MARK: The fixtures against their ground truth

    /// Xcode 4 converted these two to XML and changed nothing else: the same model.
    func testXcode4ConversionsGiveTheSameModels() throws {
        let root = try fixturesRoot()
        let mogenerator = try load("mogenerator-test/test.xcdatamodel")
        let mogeneratorXML = try ManagedObjectModel(contentsOf: root + "/mogenerator-test/ground-truth/test.xcdatamodel")
        XCTAssertTrue(mogenerator.isEquivalent(to: mogeneratorXML), "\(mogenerator.jsonString())\n\(mogeneratorXML.jsonString())")
        XCTAssertEqual(mogenerator.entityVersionHashesByName, mogeneratorXML.entityVersionHashesByName)

        let wordpress = try load("wordpress-ios-13/WordPress 13.xcdatamodel")
        let groundTruth = root + "/wordpress-ios-13/ground-truth/WordPress 13.xcdatamodel"
        let wordpressXML = try ManagedObjectModel(contentsOf: groundTruth)
        XCTAssertEqual(wordpress.entityVersionHashesByName, wordpressXML.entityVersionHashesByName)
        // The conversion dropped the Sync Services user info; without it, the models are equal.
        for entity in wordpress.entities {
            try entity.setUserInfo(entity.userInfo.filter { !$0.key.hasPrefix("com.apple.syncservices.") })
            for p in entity.ownProperties { try p.setUserInfo(p.userInfo.filter { !$0.key.hasPrefix("com.apple.syncservices.") }) }
        }
        XCTAssertTrue(wordpress.isEquivalent(to: wordpressXML))
        // ... and wrote syncable="YES" on exactly the elements not marked Syncable = NO.
        let contents = try String(contentsOfFile: groundTruth + "/contents", encoding: .utf8)
        let written = wordpress.xcodeXMLString()
        XCTAssertEqual(written.components(separatedBy: #"syncable="YES""#).count - 1, 58)
        XCTAssertEqual(contents.components(separatedBy: #"syncable="YES""#).count - 1, 58)
    }

    /// The compiled models committed with these two versions: the same entities, hashes.
    func testCompiledModelsGiveTheSameModels() throws {
        let root = try fixturesRoot()
        let outline = try load("pyobjc-outlineedit/MyDocument.xcdatamodel")
        let outlineMom = try ManagedObjectModel(contentsOf: root + "/pyobjc-outlineedit/ground-truth/MyDocument.mom")
        XCTAssertEqual(outline.entityVersionHashesByName, outlineMom.entityVersionHashesByName)
        XCTAssertEqual(outline.entities.map(\.name), outlineMom.entities.map(\.name))

        // The Cappuccino compiler's output is the same archive as an XML property list.
        let xml = try Array(Data(contentsOf: URL(fileURLWithPath: root + "/cappuccino-addressbook/ground-truth/AddressBook.cxcdatamodel")))
        let mom = BinaryPropertyList.encode(Self.archiveObject(try XMLPropertyList.decode(xml)), uniquing: false)
        let addressBookMom = try CompiledModelReader.read(mom, source: "AddressBook.cxcdatamodel")
        let addressBook = try load("cappuccino-addressbook/AddressBook.xcdatamodel")
        XCTAssertEqual(addressBook.entityVersionHashesByName, addressBookMom.entityVersionHashesByName)
        let emails = try XCTUnwrap(addressBook.entity(named: "Address")?.relationshipsByName["emails"])
        XCTAssertEqual(emails.maxCount, 2, "an NSDecimalNumber count")
        XCTAssertEqual(emails.maxCount, (addressBookMom.entity(named: "Address")?.relationshipsByName["emails"])?.maxCount)
        let fetched = try XCTUnwrap(addressBook.entity(named: "EMail")?.ownProperties.first { $0.name == "firstnameFetchedProperty" } as? FetchedPropertyDescription)
        let fetchedMom = try XCTUnwrap(addressBookMom.entity(named: "EMail")?.ownProperties.first { $0.name == "firstnameFetchedProperty" } as? FetchedPropertyDescription)
        XCTAssertEqual(fetched.fetchRequest.entityName, fetchedMom.fetchRequest.entityName)
        XCTAssertEqual(addressBook.fetchRequestTemplatesByName.keys.sorted(), addressBookMom.fetchRequestTemplatesByName.keys.sorted())
    }

    /// An XML property list's value as a binary one's object: `{CF$UID: n}` is a reference.
    static func archiveObject(_ v: PropertyListValue) -> BinaryPropertyList.Object {
        switch v {
        case .string(let s): return .string(s)
        case .integer(let i): return .int(i)
        case .real(let d): return .real(d)
        case .boolean(let b): return .bool(b)
        case .date(let d): return .date(d.timeIntervalSinceReferenceDate)
        case .data(let d): return .data(d)
        case .array(let a): return .array(a.map(archiveObject))
        case .dictionary(let d):
            if d.count == 1, let uid = d["CF$UID"]?.integerValue { return .uid(Int(uid)) }
            return .dict(d.mapValues(archiveObject))
        }
    }

    func testWarningsNameWhatWasNotRead() throws {
        let reviews = try load("reviewsapp/DataModel.xcdatamodel")
        XCTAssertTrue(reviews.loadWarnings.contains { $0.contains("property 'insertionDate'") && $0.contains(#"XD_PAttK_defaultValueAsString="now""#) },
                      "\(reviews.loadWarnings)")
        XCTAssertEqual(reviews.entity(named: "Review")?.attributesByName["insertionDate"]?.defaultValue, .null)
        let wordpress = try load("wordpress-ios-13/WordPress 13.xcdatamodel")
        let skipped = wordpress.loadWarnings.filter { $0.contains("com.apple.syncservices.AutomaticResolutionPolicy") }
        XCTAssertEqual(skipped.count, 2, "\(wordpress.loadWarnings)")
        XCTAssertTrue(skipped.allSatisfy { $0.hasPrefix(Self.root + "/wordpress-ios-13/WordPress 13.xcdatamodel/elements, entity ") }, "\(skipped)")
        XCTAssertEqual(try load("mogenerator-test/test.xcdatamodel").loadWarnings, [])
    }

    /// Models read from `elements` are written as `contents` and as JSON and read back
    /// unchanged (what the fuzz target checks of every model it reads).
    func testEveryFixtureWritesBackAsXMLAndJSON() throws {
        let root = try fixturesRoot()
        let dir = try temporaryDirectory()
        let paths = files(under: root, suffix: ".xcdatamodel/elements")
        XCTAssertEqual(paths.count, 8)
        for path in paths {
            let m = try ManagedObjectModel(contentsOf: String(path.dropLast("/elements".count)))
            for target in ["\(dir)/Copy.xcdatamodel", "\(dir)/copy.json"] {
                try m.write(toPath: target)
                let again = try ManagedObjectModel(contentsOf: target)
                XCTAssertTrue(again.isEquivalent(to: m), "\(path) → \(target)\n\(m.jsonString())\n\(again.jsonString())")
                XCTAssertEqual(again.entityVersionHashesByName, m.entityVersionHashesByName, path)
            }
        }
    }

    func files(under root: String, suffix: String) -> [String] {
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: root)
        while let item = walker?.nextObject() as? String {
            if item.hasSuffix(suffix) { found.append(root + "/" + item) }
        }
        return found.sorted()
    }

    // MARK: Where a model file is accepted

    /// An `.xcdatamodeld` whose versions are Xcode 3 folders, next to an XML version.
    func testVersionedBundleAndModelDirectory() throws {
        let root = try fixturesRoot()
        let dir = try temporaryDirectory()
        let bundle = dir + "/Mixed.xcdatamodeld"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        // Links, so the fixtures are read in place.
        try FileManager.default.createSymbolicLink(atPath: bundle + "/WordPress 13.xcdatamodel", withDestinationPath: root + "/wordpress-ios-13/WordPress 13.xcdatamodel")
        try FileManager.default.createSymbolicLink(atPath: bundle + "/Locations.xcdatamodel", withDestinationPath: root + "/learn-coredata-locations/Locations.xcdatamodel")
        try FileManager.default.createSymbolicLink(atPath: bundle + "/Test.xcdatamodel", withDestinationPath: root + "/mogenerator-test/ground-truth/test.xcdatamodel")
        let current = XMLPropertyList.encode(.dictionary(["_XCCurrentVersionName": .string("WordPress 13.xcdatamodel")]))
        try Data(current.utf8).write(to: URL(fileURLWithPath: bundle + "/.xccurrentversion"))
        XCTAssertEqual(try ManagedObjectModel.versionNames(inBundle: bundle), ["Locations", "Test", "WordPress 13"])
        XCTAssertEqual(try ManagedObjectModel(contentsOf: bundle).entities.count, 13)
        XCTAssertEqual(try ManagedObjectModel(contentsOf: bundle, version: "Locations").entities.map(\.name), ["Event"])
        XCTAssertEqual(try ManagedObjectModel(contentsOf: bundle, version: "Test").entities.count, 8, "the XML version")

        let models = dir + "/models"
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        for (link, target) in [("Locations.xcdatamodel", "learn-coredata-locations/Locations.xcdatamodel"),
                               ("Reviews.xcdatamodel", "reviewsapp/DataModel.xcdatamodel"),
                               ("Markup.xcdatamodel", "sourcemarkup/MyDocument.xcdatamodel")] {
            try FileManager.default.createSymbolicLink(atPath: "\(models)/\(link)", withDestinationPath: "\(root)/\(target)")
        }
        let merged = try ManagedObjectModel(mergingModelsInDirectory: models)
        XCTAssertEqual(merged.entities.count, 1 + 4 + 8)
        XCTAssertEqual(merged.entity(named: "SMIndividual")?.superentity?.name, "SMTextRange")
    }

    /// Xcode reads `contents` when a folder has both; with neither the error says so.
    func testContentsComesFirstAndAFolderNeedsOne() throws {
        let dir = try temporaryDirectory()
        let folder = try Xcode3SampleArchive().b.write(in: dir)
        XCTAssertEqual(try ManagedObjectModel(contentsOf: folder).entities.count, 3)
        let xml = #"<model userDefinedModelVersionIdentifier=""><entity name="Only"/></model>"#
        try Data(xml.utf8).write(to: URL(fileURLWithPath: folder + "/contents"))
        XCTAssertEqual(try ManagedObjectModel(contentsOf: folder).entities.map(\.name), ["Only"])
        let empty = dir + "/Empty.xcdatamodel"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let e = expectError { _ = try ManagedObjectModel(contentsOf: empty) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertEqual(e?.message, "\(empty): the model folder has no 'contents' file (Xcode 4 and later) and no 'elements' file (Xcode 3)")
    }

    // MARK: A model built here

    func testTheSampleArchiveReads() throws {
        let m = try ManagedObjectModel(contentsOf: try Xcode3SampleArchive().b.write(in: try temporaryDirectory()))
        XCTAssertEqual(m.entities.map(\.name), ["Dog", "Person", "Pet"])
        XCTAssertEqual(m.versionIdentifiers, ["v1"])
        let person = try XCTUnwrap(m.entity(named: "Person")), dog = try XCTUnwrap(m.entity(named: "Dog"))
        XCTAssertEqual(dog.superentity?.name, "Pet")
        XCTAssertEqual(person.userInfo, ["table": "person"])
        XCTAssertEqual(person.attributesByName["name"]?.defaultValue, .string("nobody"))
        XCTAssertEqual(person.attributesByName["name"]?.isOptional, false)
        XCTAssertEqual(person.attributesByName["age"]?.defaultValue, .integer(0))
        XCTAssertEqual(dog.attributesByName["barks"]?.defaultValue, .boolean(true))
        let pets = try XCTUnwrap(person.relationshipsByName["pets"])
        XCTAssertTrue(pets.isToMany)
        XCTAssertEqual(pets.deleteRule, .cascade)
        XCTAssertEqual(pets.inverseRelationship?.name, "owner")
        XCTAssertEqual(m.entity(named: "Pet")?.relationshipsByName["owner"]?.inverseRelationship?.name, "pets")
        let barkers = try XCTUnwrap(person.ownProperties.first { $0.name == "barkers" } as? FetchedPropertyDescription)
        XCTAssertEqual(barkers.fetchRequest.entityName, "Dog")
        XCTAssertTrue(barkers.isOptional, "no XD_PPSK_isOptional: optional")
        XCTAssertEqual(m.fetchRequestTemplatesByName["olderThan"]?.predicateFormat, "age > $AGE")
    }

    /// Settings every fixture leaves nil, and forms seen only in other files
    /// (docs/model-format.md): renaming identifiers, version hash modifiers, bounds,
    /// patterns, Spotlight flags, an ordered to-many, an NSDecimalNumber count, a
    /// configuration, an emptied text field.
    func testSettingsNoFixtureHolds() throws {
        var s = Xcode3SampleArchive()
        s.b.set(s.stereotype(of: s.person, "XD_PStereotype"), "XDBucketForOwnedAttributesstorage", s.b.dictionary([
            ("XD_PSK_elementID", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("Human")])),
            ("XD_PSK_versionHashModifier", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("2")])),
            ("XD_PSK_entityClassName", s.b.object("XDUMLPropertyImp", ["_default": .string("$null")])),
        ]))
        let common = s.stereotype(of: s.age, "XD_PPropStereotype")
        s.b.set(common, "XDBucketForOwnedAttributesstorage", s.b.dictionary([
            ("XD_PPSK_isIndexed", s.b.object("XDUMLPropertyImp", ["_default": .bool(true)])),
            ("XD_PPSK_isSpotlightIndexed", s.b.object("XDUMLPropertyImp", ["_default": .bool(true)])),
            ("XD_PPSK_isStoredInTruthFile", s.b.object("XDUMLPropertyImp", ["_default": .bool(true)])),
            ("XD_PPSK_elementID", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("years")])),
            ("XD_PPSK_versionHashModifier", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("v2")])),
        ]))
        s.b.set(s.stereotype(of: s.age, "XD_PAtt_Stereotype"), "XDBucketForOwnedAttributesstorage", s.b.dictionary([
            ("XD_PAttK_attributeType", s.b.object("XDUMLPropertyImp", ["_default": .int(200)])),
            ("XD_PAttK_minValueString", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("1")])),
            ("XD_PAttK_maxValueString", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("250")])),
            ("XD_PAttK_defaultValueAsString", s.b.object("XDUMLPropertyImp", ["_default": s.b.object("NSMutableString", ["NS.string": s.b.string("18")])])),
            ("XD_PAttK_regularExpressionString", s.b.object("XDUMLPropertyImp", ["_default": s.b.string("")])),
        ]))
        // Two as an NSDecimalNumber: mantissa 2 in one little-endian word, exponent 0.
        let two = s.b.object("NSDecimalNumberPlaceholder", [
            "NS.mantissa": .data([2] + [UInt8](repeating: 0, count: 15)), "NS.length": .int(1), "NS.mantissa.bo": .int(1),
            "NS.exponent": .int(0), "NS.negative": .bool(false), "NS.compact": .bool(true),
        ])
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_maxCount", two)
        let prs = s.stereotype(of: s.pets, "XD_PR_Stereotype")
        let owned = s.b.field(prs, "XDBucketForOwnedAttributesstorage")!
        if case .array(var keys)? = s.b.field(owned, "NS.keys"), case .array(var values)? = s.b.field(owned, "NS.objects") {
            keys.append(s.b.string("XD_PRK_ordered"))
            values.append(s.b.object("XDUMLPropertyImp", ["_default": .bool(true)]))
            s.b.set(owned, "NS.keys", .array(keys))
            s.b.set(owned, "NS.objects", .array(values))
        }
        s.b.set(s.model, "_configurationsByName", s.b.dictionary([("Animals", s.b.array([s.pet, s.dog]))]))
        let m = try ManagedObjectModel(contentsOf: try s.b.write(in: try temporaryDirectory()))

        let person = try XCTUnwrap(m.entity(named: "Person"))
        XCTAssertEqual(person.renamingIdentifier, "Human")
        XCTAssertEqual(person.versionHashModifier, "2")
        XCTAssertEqual(person.managedObjectClassName, "ManagedObject", "a nil class name: the default class")
        let age = try XCTUnwrap(person.attributesByName["age"])
        XCTAssertEqual(age.attributeType, .integer32)
        XCTAssertTrue(age.isIndexed)
        XCTAssertTrue(age.isIndexedBySpotlight)
        XCTAssertTrue(age.isStoredInExternalRecord)
        XCTAssertEqual(age.renamingIdentifier, "years")
        XCTAssertEqual(age.versionHashModifier, "v2")
        XCTAssertEqual(age.minValue, .integer(1))
        XCTAssertEqual(age.maxValue, .integer(250))
        XCTAssertEqual(age.defaultValue, .integer(18), "an NSMutableString default")
        XCTAssertNil(age.regularExpression, "an emptied field is no pattern")
        let pets = try XCTUnwrap(person.relationshipsByName["pets"])
        XCTAssertEqual(pets.maxCount, 2)
        XCTAssertTrue(pets.isOrdered)
        XCTAssertEqual(m.configurations, ["Animals"])
        XCTAssertEqual(m.configurationEntityNames("Animals"), ["Dog", "Pet"])
        XCTAssertEqual(m.loadWarnings, [])
    }
}
