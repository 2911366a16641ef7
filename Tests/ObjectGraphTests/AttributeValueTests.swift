import Foundation
import ObjectGraph
import XCTest

/// Conversions of user values (AttributeValue.swift): a value that cannot be stored is an
/// error for the call that gave it, never a trap.
final class AttributeValueTests: XCTestCase {
    func testDecimalsTakeFiniteDoublesOnly() throws {
        for (v, code) in [(Double.infinity, ErrorCode.validationNumberTooLarge), (-Double.infinity, ErrorCode.validationNumberTooSmall),
                          (Double.nan, ErrorCode.validationNumberTooLarge), (1e300, ErrorCode.validationNumberTooLarge),
                          (-Double.greatestFiniteMagnitude, ErrorCode.validationNumberTooLarge)] {
            let e = expectError { _ = try AttributeValue.double(v).coerced(to: .decimal, key: "price", entity: "Book") }
            XCTAssertEqual(e?.code, code, "\(v)")
            XCTAssertTrue(e?.message.contains("Book.price") ?? false, e?.message ?? "")
        }
        XCTAssertEqual(try AttributeValue.double(12.5).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(Decimal(string: "12.5")!))
        XCTAssertEqual(try AttributeValue.double(1e-300).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(0))
        XCTAssertEqual(try AttributeValue.integer(Int64.max).coerced(to: .decimal, key: "price", entity: "Book"), .decimal(Decimal(Int64.max)))
    }

    func testSettingAnInfiniteDecimalFailsAndChangesNothing() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/b.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        try book.setValue(.double(2.5), forKey: "price")
        for v in [Double.infinity, -Double.infinity, Double.nan] {
            XCTAssertNotNil(expectError { try book.setValue(.double(v), forKey: "price") })
            XCTAssertEqual(try book.value(forKey: "price") as AttributeValue, .decimal(Decimal(string: "2.5")!))
        }
        try stack.context.save()
    }

    /// Integer attributes take doubles only when exact and in range (no Int(Double) trap).
    func testOtherNumericConversionsOfExtremeValues() throws {
        for v in [Double.infinity, -Double.infinity, Double.nan, 1e300] {
            for type in [AttributeType.integer16, .integer32, .integer64, .boolean, .date, .string] {
                _ = try? AttributeValue.double(v).coerced(to: type, key: "k", entity: "E")
            }
            XCTAssertNotNil(try? AttributeValue.double(v).coerced(to: .double, key: "k", entity: "E"))
        }
        XCTAssertEqual(try AttributeValue.double(3e38 * 10).coerced(to: .float, key: "k", entity: "E"), .double(Double(Float.infinity)))
    }
}
