import Foundation
@testable import ObjectGraph
import XCTest

final class ValuesTests: XCTestCase {
    func testSHA256KnownAnswers() {
        let hex = { (b: [UInt8]) in b.map { String(format: "%02x", $0) }.joined() }
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Array(String(repeating: "a", count: 1000).utf8))),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    func testCoercionFollowsTheAttributeType() throws {
        XCTAssertEqual(try AttributeValue.integer(5).coerced(to: .double, key: "k", entity: "E"), .double(5))
        XCTAssertEqual(try AttributeValue.boolean(true).coerced(to: .integer16, key: "k", entity: "E"), .integer(1))
        XCTAssertEqual(try AttributeValue.double(0.1).coerced(to: .float, key: "k", entity: "E"), .double(Double(Float(0.1))))
        XCTAssertThrowsError(try AttributeValue.string("x").coerced(to: .integer64, key: "k", entity: "E"))
        XCTAssertThrowsError(try AttributeValue.integer(1 << 31).coerced(to: .integer32, key: "k", entity: "E"))
        XCTAssertEqual(try AttributeValue.integer(Int64(Int32.min)).coerced(to: .integer32, key: "k", entity: "E"), .integer(Int64(Int32.min)))
    }

    func testStoreOrderMatchesSQLite() {
        XCTAssertLessThan(StoreOrder.compare(.null, .integer(-5)), 0)
        XCTAssertLessThan(StoreOrder.compare(.integer(2), .double(2.5)), 0)
        XCTAssertLessThan(StoreOrder.compare(.string("Z"), .string("a")), 0)  // byte order, not locale order
        XCTAssertLessThan(StoreOrder.compare(.string("e"), .string("é")), 0)
        XCTAssertLessThan(StoreOrder.compare(.integer(1_000_000), .string("0")), 0)
    }
}
