import Foundation
import ObjectGraph
import XCTest

/// Inferred mapping models (`MappingInference.swift`, §2.21 rule 5).
final class MappingInferenceTests: XCTestCase {
    /// Version 1 of a small catalogue: Shelf ←→> Item.
    func version1() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string)
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "title", type: .string)
        try item.addAttribute(named: "weight", type: .integer32)
        try item.addAttribute(named: "obsolete", type: .string)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
        try items.setInverse(onShelf)
        let gone = try model.addEntity(named: "Gone")
        try gone.addAttribute(named: "x", type: .integer16)
        return model
    }

    /// Version 2: Item's `title` renamed `name`, `weight` a double, `obsolete` dropped,
    /// `rating` added; Gone removed; Fresh added; Shelf unchanged.
    func version2() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string)
        let item = try model.addEntity(named: "Item")
        let name = try item.addAttribute(named: "name", type: .string)
        try name.setRenamingIdentifier("title")
        try item.addAttribute(named: "weight", type: .double)
        try item.addAttribute(named: "rating", type: .integer16, optional: false, defaultValue: 3)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
        try items.setInverse(onShelf)
        let fresh = try model.addEntity(named: "Fresh")
        try fresh.addAttribute(named: "y", type: .string)
        return model
    }

    func testNamesKindsAndOrder() throws {
        let mapping = try MappingModel.inferred(from: try version1(), to: try version2())
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["IEM_Add_Fresh", "IEM_Transform_Item", "IEM_Copy_Shelf", "IEM_Remove_Gone"])
        XCTAssertEqual(mapping.entityMappings.map(\.kind), [.add, .transform, .copy, .remove])
        let add = mapping.entityMappings[0]
        XCTAssertNil(add.sourceEntityName)
        XCTAssertEqual(add.destinationEntityName, "Fresh")
        XCTAssertNil(add.sourceExpression)
        let remove = mapping.entityMappings[3]
        XCTAssertEqual(remove.sourceEntityName, "Gone")
        XCTAssertNil(remove.destinationEntityName)
        XCTAssertEqual(remove.sourceEntityVersionHash?.count, 32)
    }

    func testPropertyMappingsReadTheMatchedSourceProperty() throws {
        let v1 = try version1(), v2 = try version2()
        let item = try XCTUnwrap(try MappingModel.inferred(from: v1, to: v2).entityMappingsByName["IEM_Transform_Item"])
        XCTAssertEqual(item.sourceEntityVersionHash, v1.entity(named: "Item")?.versionHash)
        XCTAssertEqual(item.destinationEntityVersionHash, v2.entity(named: "Item")?.versionHash)
        let values = Dictionary(uniqueKeysWithValues: item.attributeMappings.map { ($0.name, $0.valueExpression) })
        XCTAssertEqual(values["name"], "FUNCTION($source, \"valueForKey:\", \"title\")", "matched by renaming identifier")
        XCTAssertEqual(values["weight"], "FUNCTION($source, \"valueForKey:\", \"weight\")", "numeric types convert")
        XCTAssertEqual(values["rating"], .some(nil), "a new attribute takes its default")
        XCTAssertNil(values["obsolete"] ?? nil)
        XCTAssertEqual(
            item.relationshipMappings.map(\.valueExpression),
            ["FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"shelf\", FUNCTION($source, \"valueForKey:\", \"shelf\"))"])
        XCTAssertNotNil(try item.sourceExpression.map { try ObjectExpression(format: $0) }, "the source expression parses")
    }

    func testEntityRenamedThroughRenamingIdentifier() throws {
        let v1 = try version1()
        let renamed = ManagedObjectModel()
        let box = try renamed.addEntity(named: "Box")
        try box.setRenamingIdentifier("Gone")
        try box.addAttribute(named: "x", type: .integer16)
        let mapping = try MappingModel.inferred(from: v1, to: renamed)
        let names = mapping.entityMappings.map(\.name)
        XCTAssertTrue(names.contains("IEM_Transform_Gone") || names.contains("IEM_Copy_Gone"), "\(names)")
        XCTAssertEqual(mapping.entityMappings.first { $0.destinationEntityName == "Box" }?.sourceEntityName, "Gone")
    }

    func testChangesThatCannotBeInferred() throws {
        let v1 = try version1()
        // A required attribute without a default.
        let required = try version1()
        try required.entity(named: "Item")!.addAttribute(named: "code", type: .string, optional: false)
        var e = expectError { _ = try MappingModel.inferred(from: v1, to: required) }
        XCTAssertEqual(e?.code, ErrorCode.inferredMappingModel)
        XCTAssertEqual(e?.userInfoValue(forKey: "reason"), "the required attribute is new and has no default value")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), "Item")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "code")
        // A type its values cannot become.
        let retyped = try version1()
        try retyped.entity(named: "Item")!.removeProperty(named: "title")
        try retyped.entity(named: "Item")!.addAttribute(named: "title", type: .date)
        e = expectError { _ = try MappingModel.inferred(from: v1, to: retyped) }
        XCTAssertEqual(e?.code, ErrorCode.inferredMappingModel)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "title")
        XCTAssertTrue(e?.message.contains("string to date") ?? false, e?.message ?? "")
        // With a default, a new required attribute is fine.
        let defaulted = try version1()
        try defaulted.entity(named: "Item")!.addAttribute(named: "code", type: .string, optional: false, defaultValue: "none")
        XCTAssertNoThrow(try MappingModel.inferred(from: v1, to: defaulted))
    }

    func testIdenticalModelsCopyEverything() throws {
        let mapping = try MappingModel.inferred(from: try version1(), to: try version1())
        XCTAssertEqual(mapping.entityMappings.map(\.kind), [.copy, .copy, .copy])
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["IEM_Copy_Gone", "IEM_Copy_Item", "IEM_Copy_Shelf"])
    }
}
