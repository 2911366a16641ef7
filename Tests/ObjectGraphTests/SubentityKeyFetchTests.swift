import Foundation
import ObjectGraph
import XCTest

/// A fetch of an entity may use a key only a subentity declares (`FetchValidation.swift`,
/// `SQLPredicateTranslator.swift`, `ManagedObject+KeyValue.swift`, `RowReader.swift`):
/// instances without the key do not match, on every store type, and sorting by it puts
/// them first (nil), as Core Data's one table per hierarchy gives.
final class SubentityKeyFetchTests: XCTestCase {
    func stack(_ type: String) throws -> Stack {
        let model = try ManagedObjectModel(contentsOf: ModelFileTests.fixtures + "/Inheritance.xcdatamodeld")
        let path = type == StoreType.inMemory ? "" : try temporaryDirectory() + "/vehicles.store"
        let stack = try Stack(model: model, path: path, type: type)
        for (entity, plate, speed) in [("Car", "CAR1", nil), ("SportsCar", "FAST1", 250.0), ("SportsCar", "SLOW1", 90.0), ("Car", "CAR2", nil)] {
            let o = try stack.context.insertObject(entityName: entity)
            try o.setValue(.string(plate), forKey: "plate")
            if let speed { try o.setValue(.double(speed), forKey: "topSpeed") }
        }
        try stack.context.save()
        return stack
    }

    func plates(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { o in if case .string(let s) = try o.value(forKey: "plate") { s } else { "?" } }
    }

    func testAKeyOnlyASubentityDeclaresMatchesItsInstancesOnly() throws {
        for type in [StoreType.sqlite, StoreType.binary, StoreType.inMemory] {
            let stack = try stack(type)
            let fast = FetchRequest(entityName: "Car", predicate: try ObjectPredicate(format: "topSpeed > 100"))
            XCTAssertEqual(try plates(stack.context.fetch(fast)), ["FAST1"], type)
            XCTAssertEqual(try stack.context.count(for: fast), 1, type)
            XCTAssertEqual(try stack.context.fetchObjectIDs(fast).count, 1, type)
            let none = FetchRequest(entityName: "Car", predicate: try ObjectPredicate(format: "topSpeed == nil"))
            XCTAssertEqual(Set(try plates(stack.context.fetch(none))), ["CAR1", "CAR2"], type)
            let sorted = FetchRequest(entityName: "Car", sortKeys: [SortKey("topSpeed"), SortKey("plate")])
            XCTAssertEqual(try plates(stack.context.fetch(sorted)), ["CAR1", "CAR2", "SLOW1", "FAST1"], type)
            // The same with a pending change: in memory, an unsaved car has no speed either.
            let pending = try stack.context.insertObject(entityName: "Car")
            try pending.setValue(.string("NEW1"), forKey: "plate")
            XCTAssertEqual(try plates(stack.context.fetch(fast)), ["FAST1"], type)
            XCTAssertEqual(try plates(stack.context.fetch(sorted)), ["CAR1", "CAR2", "NEW1", "SLOW1", "FAST1"], type)
            // A key no entity of the hierarchy declares is still an error.
            let unknown = FetchRequest(entityName: "Car", predicate: try ObjectPredicate(format: "wings > 1"))
            XCTAssertEqual(expectError { _ = try stack.context.fetch(unknown) }?.code, ErrorCode.unknownKey, type)
        }
    }
}
