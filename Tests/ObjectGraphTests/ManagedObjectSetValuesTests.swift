import XCTest

@testable import ObjectGraph

/// `setValues(_:atSlots:)`: several attributes as one change, checked before anything is set.
final class ManagedObjectSetValuesTests: XCTestCase {
    private func stack() throws -> (Stack, ManagedObject, slot: (String) -> Int) {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/set.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        return (stack, book, { book.entity.slot(forKey: $0)! })
    }

    func testSetsEveryValueAndSaves() throws {
        let (stack, book, slot) = try stack()
        try book.setValues([.integer(12), .double(1.5), .string("Kindred")], atSlots: [slot("pages"), slot("weight"), slot("title")])
        XCTAssertEqual(try book.value(forKey: "pages"), .integer(12))
        XCTAssertEqual(try book.value(forKey: "weight"), .double(1.5))
        XCTAssertEqual(try book.value(forKey: "title"), .string("Kindred"))
        try stack.context.save()
        XCTAssertFalse(book.hasChanges)
        try book.setValues([.integer(13)], atSlots: [slot("pages")])
        XCTAssertTrue(book.isUpdated)
        XCTAssertTrue(stack.context.updatedObjects.contains { $0 === book })
    }

    func testARefusedSlotOrValueSetsNothing() throws {
        let (stack, book, slot) = try stack()
        defer { withExtendedLifetime(stack) {} }
        try book.setValue(.integer(1), forKey: "pages")
        let outOfRange = expectError { try book.setValues([.integer(2), .integer(3)], atSlots: [slot("pages"), 999]) }
        XCTAssertEqual(outOfRange?.code, ErrorCode.invalidArgument)
        let relationship = expectError { try book.setValues([.integer(2), .integer(3)], atSlots: [slot("pages"), slot("author")]) }
        XCTAssertNotNil(relationship)
        let wrongType = expectError { try book.setValues([.integer(2), .string("many")], atSlots: [slot("pages"), slot("copies")]) }
        XCTAssertNotNil(wrongType)
        let mismatched = expectError { try book.setValues([.integer(2)], atSlots: [slot("pages"), slot("copies")]) }
        XCTAssertEqual(mismatched?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(try book.value(forKey: "pages"), .integer(1))
    }

    func testValuesOfAnotherTypeAreConvertedAsSetValueWould() throws {
        let (stack, book, slot) = try stack()
        try book.setValues([.integer(3), .integer(7)], atSlots: [slot("weight"), slot("copies")])
        let byOne = try stack.context.insertObject(entityName: "Book")
        try byOne.setValue(.integer(3), forKey: "weight")
        XCTAssertEqual(try book.value(forKey: "weight"), try byOne.value(forKey: "weight"))
        XCTAssertEqual(try book.value(forKey: "copies"), .integer(7))
    }

    func testOneUndoStepRestoresEveryValue() throws {
        let (stack, book, slot) = try stack()
        try stack.context.save()
        let manager = ObjectUndoManager()
        stack.context.undoManager = manager
        try book.setValues([.integer(40), .string("Dawn")], atSlots: [slot("pages"), slot("title")])
        try stack.context.processPendingChanges()
        try stack.context.undo()
        XCTAssertEqual(try book.value(forKey: "pages"), .integer(0))
        XCTAssertEqual(try book.value(forKey: "title"), .string("Untitled"))
    }
}
