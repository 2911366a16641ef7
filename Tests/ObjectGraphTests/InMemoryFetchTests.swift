import Foundation
@testable import ObjectGraph
import XCTest

/// The in-memory steps of a fetch (`InMemoryFetch.swift`): the order and window every
/// path shares with the SQLite store's `ORDER BY …, Z_PK LIMIT … OFFSET …`.
final class InMemoryFetchTests: XCTestCase {
    func testTheWindowSkipsThenLimitsAndNeverFails() {
        let items = Array(1...5)
        XCTAssertEqual(InMemoryFetch.window(items, offset: 0, limit: 0), items)
        XCTAssertEqual(InMemoryFetch.window(items, offset: 1, limit: 2), [2, 3])
        XCTAssertEqual(InMemoryFetch.window(items, offset: 4, limit: 10), [5])
        XCTAssertEqual(InMemoryFetch.window(items, offset: 9, limit: 0), [])
        XCTAssertEqual(InMemoryFetch.window(items, offset: 2, limit: Int.max), [3, 4, 5], "no overflow")
        XCTAssertEqual(InMemoryFetch.window(items, offset: Int.max, limit: Int.max), [])
        XCTAssertEqual(InMemoryFetch.window(count: 5, offset: 1, limit: 2), 2)
        XCTAssertEqual(InMemoryFetch.window(count: 5, offset: 9, limit: 2), 0)
        XCTAssertEqual(InMemoryFetch.window(count: 5, offset: 0, limit: 0), 5)
    }

    func testTiesGoToStoredRowsByKeyThenToNewObjectsInTheirOrder() throws {
        typealias Item = (name: String, tie: InMemoryFetch.Tie)
        let items: [Item] = [
            ("new second", .new(sequence: 2)), ("key 9", .stored(primaryKey: 9, store: "A")),
            ("new first", .new(sequence: 1)), ("key 2 of B", .stored(primaryKey: 2, store: "B")),
            ("key 2 of A", .stored(primaryKey: 2, store: "A")),
        ]
        let sorted = try InMemoryFetch.sort(items, by: [], values: { _ in [] }, tie: { item, _ in item.tie })
        XCTAssertEqual(sorted.map(\.name), ["key 2 of A", "key 2 of B", "key 9", "new first", "new second"])
    }

    func testValuesCompareAsSQLiteOrdersThemAndDescendingKeysReverse() throws {
        let values: [AttributeValue] = [.string("b"), .null, .integer(2), .double(1.5), .string("A"), .data(Data([0]))]
        let ascending = try InMemoryFetch.sort(values, by: [SortKey("v")], values: { [$0] }, tie: { _, i in .new(sequence: i) })
        XCTAssertEqual(ascending, [.null, .double(1.5), .integer(2), .string("A"), .string("b"), .data(Data([0]))])
        let caseless = try InMemoryFetch.sort(
            [AttributeValue.string("b"), .string("A")], by: [SortKey("v", comparison: .caseInsensitiveCompare)], values: { [$0] },
            tie: { _, i in .new(sequence: i) })
        XCTAssertEqual(caseless, [.string("A"), .string("b")])
        let descending = try InMemoryFetch.sort(values, by: [SortKey("v", ascending: false)], values: { [$0] }, tie: { _, i in .new(sequence: i) })
        XCTAssertEqual(descending, ascending.reversed())
    }
}
