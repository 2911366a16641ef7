import Foundation
import ObjectGraph
import XCTest

/// The reference's rules for models: §2.1 (definition and mutability), §2.18 (templates),
/// §2.19 (configurations), §2.20 (version hashes), each in a named test.
final class ModelRulesTests: XCTestCase {
    func shop() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: ModelFileTests.fixtures + "/Shop.xcdatamodeld")
    }

    // §2.1.1: every setter fails once the model is in use; a copy is editable.
    func testRule2_1_1_EveryModelObjectIsImmutableOnceUsed() throws {
        let m = try ManagedObjectModel(contentsOf: ModelFileTests.fixtures + "/Inheritance.xcdatamodeld")
        try m.freeze()
        let car = m.entity(named: "Car")!, a = car.attributesByName["plate"]!, r = m.entity(named: "Vehicle")!.relationshipsByName["owner"]!
        let f = m.entity(named: "Person")!.fetchedPropertiesByName["fastCars"]!
        let attempts: [() throws -> Void] = [
            { _ = try m.addEntity(named: "X") }, { try m.setVersionIdentifiers(["9"]) }, { try m.setEntities([car], forConfiguration: "C") },
            { try m.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Car"), forName: "T") }, { try m.setLocalizationDictionary([:]) },
            { try m.removeEntity(named: "Car") }, { try car.setAbstract(true) }, { try car.setManagedObjectClassName("X") },
            { try car.setUserInfo([:]) }, { try car.setRenamingIdentifier("X") }, { try car.setVersionHashModifier("x") },
            { try car.setSubentities([]) }, { try car.setUniquenessConstraints([]) }, { _ = try car.addAttribute(named: "y", type: .string) },
            { try a.setOptional(true) }, { try a.setTransient(true) }, { try a.setIndexed(true) }, { try a.setDefaultValue("x") },
            { try a.setValidationPredicates([], warnings: []) }, { try a.setValueTransformerName(nil) }, { try a.setLengthBounds(min: 1, max: 2) },
            { try a.setRegularExpression("x") }, { try a.setUserInfo([:]) }, { try r.setDeleteRule(.cascade) }, { try r.setCounts(min: 0, max: 1) },
            { try r.setOrdered(false) }, { try r.setInverse(nil) }, { try f.setFetchRequest(f.fetchRequest) },
        ]
        for (i, attempt) in attempts.enumerated() {
            XCTAssertEqual(expectError(attempt)?.code, ErrorCode.modelImmutable, "attempt \(i)")
        }
        let copy = try m.copy()
        XCTAssertTrue(copy.isEditable)
        XCTAssertTrue(copy.isEquivalent(to: m))
        XCTAssertFalse(copy.entity(named: "Car") === car)
        try copy.entity(named: "Car")!.setAbstract(true)
        XCTAssertFalse(m.entity(named: "Car")!.isAbstract)
    }

    // §2.1.3: undefined is legal only for transient attributes.
    func testRule2_1_3_UndefinedTypeOnlyForTransients() throws {
        let m = ManagedObjectModel()
        let e = try m.addEntity(named: "E")
        let a = try e.addAttribute(named: "scratch", type: .undefined)
        XCTAssertEqual(expectError { try m.validate() }?.code, ErrorCode.invalidModel)
        try a.setTransient(true)
        try m.validate()
    }

    // §2.1.4: the hierarchy is built top-down with setSubentities.
    func testRule2_1_4_SubentitiesBuildTheHierarchy() throws {
        let m = ManagedObjectModel()
        let a = try m.addEntity(named: "A"), b = try m.addEntity(named: "B"), c = try m.addEntity(named: "C")
        try a.addAttribute(named: "x", type: .string)
        try a.setSubentities([b, c])
        XCTAssertTrue(b.superentity === a && c.superentity === a)
        XCTAssertNotNil(b.property(named: "x"))
        try a.setSubentities([c])
        XCTAssertNil(b.superentity)
    }

    // §2.1.5: reserved names.
    func testRule2_1_5_ReservedPropertyNames() throws {
        let e = try ManagedObjectModel().addEntity(named: "E")
        for name in ["description", "objectID", "entity", "isDeleted"] {
            XCTAssertEqual(expectError { try e.addAttribute(named: name, type: .string) }?.code, ErrorCode.invalidModel, name)
        }
    }

    // §2.1.6: a copy is a different object, found by name.
    func testRule2_1_6_CopiesAreKeyedByName() throws {
        let m = try shop()
        let c = try m.copy()
        XCTAssertFalse(c.entity(named: "Order") === m.entity(named: "Order"))
        XCTAssertEqual(c.entityVersionHashesByName, m.entityVersionHashesByName)
    }

    // §2.1.7: expression descriptions never join an entity.
    func testRule2_1_7_ExpressionDescriptionsAreNotEntityProperties() throws {
        let d = ExpressionDescription(name: "maxTotal", expressionFormat: "max:(total)", resultType: .double)
        XCTAssertEqual(d.expressionResultType, .double)
        XCTAssertEqual(d.expressionFormat, "max:(total)")
        let m = try shop()
        let order = m.entity(named: "Order")!
        XCTAssertEqual(order.allProperties.count, 3)
    }

    // §2.1.8: the class name defaults to the plain managed object class.
    func testRule2_1_8_ClassNameDefault() throws {
        let e = try ManagedObjectModel().addEntity(named: "E")
        XCTAssertEqual(e.managedObjectClassName, "ManagedObject")
        try e.setManagedObjectClassName("Thing")
        XCTAssertEqual(e.managedObjectClassName, "Thing")
    }

    // §2.18: templates, variables, substitution, and the error naming a missing variable.
    func testRule2_18_FetchRequestTemplatesAndSubstitutionVariables() throws {
        let m = try shop()
        let large = try XCTUnwrap(m.fetchRequestTemplate(named: "LargeOrders"))
        XCTAssertEqual(large.substitutionVariables, ["MINIMUM", "PREFIX", "SINCE"])
        XCTAssertEqual(large.fetchLimit, 50)
        XCTAssertTrue(large.returnsDistinctResults)
        XCTAssertEqual(m.fetchRequestTemplatesByName.keys.sorted(), ["AllAudit", "CustomersInCity", "LargeOrders"])
        let r = try m.fetchRequestFromTemplate(
            named: "LargeOrders", substitutionVariables: ["MINIMUM": 100, "PREFIX": "Jo\"e", "SINCE": .date(Date(timeIntervalSinceReferenceDate: 5))])
        XCTAssertEqual(r.predicateFormat, #"total >= 100 AND customer.name BEGINSWITH "Jo\"e" AND placed > CAST(5.0, "NSDate")"#)
        XCTAssertEqual(r.fetchLimit, 50, "the copy keeps the template's settings")
        XCTAssertEqual(m.fetchRequestTemplate(named: "LargeOrders"), large, "the template itself is unchanged")
        let e = expectError { _ = try m.fetchRequestFromTemplate(named: "LargeOrders", substitutionVariables: ["MINIMUM": 1, "PREFIX": "a"]) }
        XCTAssertTrue(e?.message.contains("$SINCE") ?? false)
        XCTAssertEqual(e?.userInfoValue(forKey: "variable"), "SINCE")
        let nilTest = try m.fetchRequestFromTemplate(named: "CustomersInCity", substitutionVariables: ["CITY": .null])
        XCTAssertEqual(nilTest.predicateFormat, "city == nil")
        XCTAssertEqual(FetchRequestTemplate(entityName: "A", predicateFormat: #"name == "$NOT" AND x == $YES_1"#).substitutionVariables, ["YES_1"])
        XCTAssertNotNil(expectError { try m.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Ghost"), forName: "G") })
        XCTAssertNotNil(expectError { _ = try m.fetchRequestFromTemplate(named: "Nope", substitutionVariables: [:]) })
    }

    // §2.19: configurations are overlapping named subsets; nil means every entity.
    func testRule2_19_Configurations() throws {
        let m = try shop()
        XCTAssertEqual(m.configurations, ["Sales", "Audit"])
        XCTAssertEqual(m.entities(forConfiguration: "Sales")?.map(\.name), ["Customer", "Order"])
        XCTAssertEqual(m.entities(forConfiguration: nil)?.count, 3)
        XCTAssertNil(m.entities(forConfiguration: "Nope"))
        try m.setEntities([m.entity(named: "Order")!, m.entity(named: "AuditEntry")!], forConfiguration: "Overlap")
        XCTAssertEqual(m.configurations.count, 3)
        let other = try ManagedObjectModel().addEntity(named: "Stranger")
        XCTAssertNotNil(expectError { try m.setEntities([other], forConfiguration: "Bad") })
    }

    // §2.20.1–2: exactly the listed inputs change the hash, input by input.
    func testRule2_20_VersionHashInputs() throws {
        func hash(_ change: (EntityDescription) throws -> Void) throws -> [UInt8] {
            let m = ManagedObjectModel()
            let base = try m.addEntity(named: "Base"), e = try m.addEntity(named: "E")
            try e.setSuperentity(base)
            try e.addAttribute(named: "a", type: .string)
            let r = try e.addRelationship(named: "r", destination: base)
            let back = try base.addRelationship(named: "back", destination: e, toMany: true)
            try r.setInverse(back)
            try change(e)
            return e.versionHash
        }
        let original = try hash { _ in }
        XCTAssertEqual(try hash { _ in }, original, "deterministic")
        let changing: [String: (EntityDescription) throws -> Void] = [
            "abstract": { try $0.setAbstract(true) },
            "versionHashModifier": { try $0.setVersionHashModifier("2") },
            "superentity's hash": { try $0.superentity!.setAbstract(true) },
            "new attribute": { try $0.addAttribute(named: "b", type: .string) },
            "optional": { try $0.property(named: "a")!.setOptional(false) },
            "transient": { try $0.property(named: "a")!.setTransient(true) },
            "attribute type": { try ($0.property(named: "a") as! AttributeDescription).setAttributeType(.integer32) },
            "property modifier": { try $0.property(named: "a")!.setVersionHashModifier("x") },
            "min count": { try ($0.property(named: "r") as! RelationshipDescription).setCounts(min: 1, max: 1) },
            "max count": { try ($0.property(named: "r") as! RelationshipDescription).setCounts(min: 0, max: 5) },
            "inverse name": { try ($0.property(named: "r") as! RelationshipDescription).setInverse(nil) },
            "uniqueness constraint": { try $0.setUniquenessConstraints([["a"]]) },
        ]
        for (what, change) in changing { XCTAssertNotEqual(try hash(change), original, what) }
        let keeping: [String: (EntityDescription) throws -> Void] = [
            "class name": { try $0.setManagedObjectClassName("X") },
            "user info": { try $0.setUserInfo(["k": "v"]) },
            "renaming identifier": { try $0.setRenamingIdentifier("Old") },
            "default value": { try ($0.property(named: "a") as! AttributeDescription).setDefaultValue("d") },
            "validation predicate": { try $0.property(named: "a")!.setValidationPredicates(["length > 1"], warnings: ["short"]) },
            "indexed": { try $0.property(named: "a")!.setIndexed(true) },
            "delete rule": { try ($0.property(named: "r") as! RelationshipDescription).setDeleteRule(.cascade) },
            "fetched property": { try $0.addFetchedProperty(named: "f", fetchRequest: FetchRequestTemplate(entityName: "Base")) },
            "length bounds": { try ($0.property(named: "a") as! AttributeDescription).setLengthBounds(min: 1, max: 3) },
        ]
        for (what, change) in keeping { XCTAssertEqual(try hash(change), original, what) }
    }

    // §2.20.4–5: compatibility with store metadata, per configuration; merging for metadata.
    func testRule2_20_CompatibilityWithStoreMetadata() throws {
        let m = try shop()
        let hashes = m.entityVersionHashesByName
        func metadata(_ names: [String]) -> [String: PropertyListValue] {
            [StoreMetadataKey.modelVersionHashes: .dictionary(Dictionary(uniqueKeysWithValues: names.map { ($0, .data(hashes[$0]!)) }))]
        }
        XCTAssertTrue(m.isConfiguration(nil, compatibleWithStoreMetadata: metadata(["Customer", "Order", "AuditEntry"])))
        XCTAssertTrue(m.isConfiguration("Sales", compatibleWithStoreMetadata: metadata(["Customer", "Order"])))
        XCTAssertFalse(m.isConfiguration("Audit", compatibleWithStoreMetadata: metadata(["Customer", "Order"])))
        XCTAssertFalse(m.isConfiguration(nil, compatibleWithStoreMetadata: metadata(["Customer", "Order"])))
        var changed = metadata(["Customer", "Order"])
        changed[StoreMetadataKey.modelVersionHashes] = .dictionary(["Customer": .data(hashes["Order"]!), "Order": .data(hashes["Order"]!)])
        XCTAssertFalse(m.isConfiguration("Sales", compatibleWithStoreMetadata: changed))

        let library = try ManagedObjectModel(contentsOf: ModelFileTests.fixtures + "/Library.xcdatamodeld")
        let merged = try ManagedObjectModel(merging: [m, library])
        XCTAssertEqual(merged.entities.count, 7)
        XCTAssertEqual(Set(merged.versionIdentifiers), ["shop", "library-1"])
        XCTAssertEqual(merged.fetchRequestTemplatesByName.count, 3)
        XCTAssertNotNil(expectError { _ = try ManagedObjectModel(merging: [m, m]) })
        XCTAssertNil(ManagedObjectModel.merging([m, library], forStoreMetadata: metadata(["Customer"])))
        var all = metadata(["Customer", "Order", "AuditEntry"])
        var d = all[StoreMetadataKey.modelVersionHashes]!.dictionaryValue!
        for (k, v) in library.entityVersionHashesByName { d[k] = .data(v) }
        all[StoreMetadataKey.modelVersionHashes] = .dictionary(d)
        XCTAssertNotNil(ManagedObjectModel.merging([m, library], forStoreMetadata: all))
    }

    func testLoadingEveryModelInADirectory() throws {
        let dir = try temporaryDirectory()
        try shop().write(toPath: dir + "/Shop.xcdatamodeld")
        try ManagedObjectModel(contentsOf: ModelFileTests.fixtures + "/Library.xcdatamodeld").write(toPath: dir + "/Library.json")
        try Data("ignored".utf8).write(to: URL(fileURLWithPath: dir + "/README.txt"))
        let merged = try ManagedObjectModel(mergingModelsInDirectory: dir)
        XCTAssertEqual(merged.entities.count, 7)
        XCTAssertNotNil(expectError { _ = try ManagedObjectModel(mergingModelsInDirectory: dir + "/missing") })
    }

    func testLocalizationDictionary() throws {
        let m = try shop()
        try m.setLocalizationDictionary(["Entity/Order": "Bestellung", "Property/name": "Name", "Property/name/Entity/Customer": "Kundenname"])
        XCTAssertEqual(m.localizedName(ofEntity: "Order"), "Bestellung")
        XCTAssertEqual(m.localizedName(ofProperty: "name", entity: "Customer"), "Kundenname")
        XCTAssertEqual(m.localizedName(ofProperty: "name", entity: "Other"), "Name")
        let again = try ManagedObjectModel(jsonData: Data(m.jsonString().utf8))
        XCTAssertEqual(again.localizationDictionary, m.localizationDictionary)
        XCTAssertTrue(try ManagedObjectModel(xcodeXML: Data(m.xcodeXMLString().utf8)).isEquivalent(to: m))
    }
}
