import XCTest

@testable import ObjectGraph

/// A save's table of new primary keys against a Dictionary: every object it was given
/// answers its key, through growth, and no other object answers.
final class NewPrimaryKeysTests: XCTestCase {
    func testAgreesWithADictionary() throws {
        let stack = try lendingStack()
        let objects = try (0..<3_000).map { _ in try stack.context.insertObject(entityName: "Tag") }
        var keys = NewPrimaryKeys()  // no capacity given: grows from empty
        var reference: [ObjectIdentifier: Int64] = [:]
        for (i, o) in objects.enumerated() where i % 3 != 0 {
            keys[o] = Int64(i) * 7
            reference[ObjectIdentifier(o)] = Int64(i) * 7
        }
        for o in objects.prefix(100) where reference[ObjectIdentifier(o)] != nil {
            keys[o] = -1  // replaced
            reference[ObjectIdentifier(o)] = -1
        }
        XCTAssertEqual(keys.count, reference.count)
        for o in objects { XCTAssertEqual(keys[o], reference[ObjectIdentifier(o)]) }
        let sized = NewPrimaryKeys(minimumCapacity: 10)
        XCTAssertTrue(sized.isEmpty)
        XCTAssertNil(sized[objects[0]])
    }
}
