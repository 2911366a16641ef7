import Foundation
import ObjectGraph
import XCTest

/// Entities built in code (EntityDescription.swift): a subentity may redeclare a property
/// it inherits, as Core Data allows.
final class EntityDescriptionTests: XCTestCase {
    func testARedeclaredPropertyReplacesTheInheritedOneInItsSlot() throws {
        let model = ManagedObjectModel()
        let place = try model.addEntity(named: "Place"), cafe = try model.addEntity(named: "Cafe")
        try cafe.setSuperentity(place)
        try place.addAttribute(named: "label", type: .string)
        try place.addAttribute(named: "rank", type: .integer16)
        let label = try cafe.addAttribute(named: "label", type: .string, defaultValue: .string("Coffee"))
        XCTAssertEqual(cafe.properties.map(\.name), ["label", "rank"])
        XCTAssertTrue(cafe.property(named: "label") === label)
        XCTAssertEqual(label.slot, place.slot(forKey: "label"))
        XCTAssertNoThrow(try model.validate())
        // Its own names stay unique.
        let e = expectError { try cafe.addAttribute(named: "label", type: .string) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        // Declared the other way round: the parent gets a property a subentity already has.
        try place.addAttribute(named: "roast", type: .string)
        XCTAssertNoThrow(try cafe.addAttribute(named: "roast", type: .string))
        XCTAssertEqual(cafe.properties.map(\.name), ["label", "rank", "roast"])
    }
}
