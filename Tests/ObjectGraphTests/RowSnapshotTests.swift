import Foundation
import XCTest

@testable import ObjectGraph

/// Rows keep their values in cells of 8 or 16 bytes laid out per entity (`RowCells`): every
/// kind of value must come back unchanged from every slot, whatever the slot's width.
final class RowSnapshotTests: XCTestCase {
    /// One value of each kind, heap-allocated text and bytes included.
    private let catalogue: [AttributeValue] = [
        .null, .integer(-42), .integer(.max), .double(-0.5), .boolean(true), .boolean(false),
        .date(Date(timeIntervalSinceReferenceDate: 123_456.789)), .string("short"),
        .string(String(repeating: "long text ✓ ", count: 20)), .uri("https://example.com/a%20b"),
        .data(Data([1, 2, 3])), .data(Data(repeating: 7, count: 1_000)), .decimal(Decimal(string: "12.345")!),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        .transformable(.string("kept in a box")),
    ]

    func testEveryKindOfValueComesBackFromEverySlot() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        let count = book.properties.count
        for (k, value) in catalogue.enumerated() {
            for slot in 0..<count {
                // The other slots hold other values, so a cell written past its end shows.
                var values = (0..<count).map { catalogue[($0 + k + 1) % catalogue.count] }
                values[slot] = value
                let row = RowSnapshot.make(entity: book, primaryKey: 9, version: 2, values: values)
                XCTAssertEqual(row[slot], value, "slot \(slot)")
                XCTAssertEqual(row.values, values)
                XCTAssertEqual(row.count, count)
                XCTAssertEqual(row.value(at: count), .null)
            }
        }
    }

    func testValuesStartWhereTheBufferSays() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        let row = RowSnapshot.make(entity: book, primaryKey: 1, version: 1, values: [.integer(5)])
        let address = try XCTUnwrap(RowSnapshot.address(of: row))
        let elements = row.withUnsafeMutablePointerToElements { UnsafeRawPointer($0) }
        XCTAssertEqual(address + RowSnapshot.valuesOffset, elements)
        let header = row.withUnsafeMutablePointerToHeader { UnsafeRawPointer($0) }
        XCTAssertEqual(address + RowSnapshot.headerOffset, header)
        XCTAssertEqual(MemoryLayout<RowSnapshotHeader>.offset(of: \.cells), 0)
        XCTAssertEqual(RowSnapshot.value(atSlot: 0, ofRowAt: address), .integer(5))
    }

    func testValuesOutliveTheirRow() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        var copies: [AttributeValue] = []
        do {
            let values = (0..<book.properties.count).map { catalogue[$0 % catalogue.count] }
            let row = RowSnapshot.make(entity: book, primaryKey: 1, version: 1, values: values)
            copies = row.values
        }
        XCTAssertEqual(copies, (0..<book.properties.count).map { catalogue[$0 % catalogue.count] })
    }

    func testRowsWithOtherCountsThanTheirEntity() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        let empty = RowSnapshot.make(entity: book, primaryKey: 3, version: 1, values: [])
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.value(at: 0), .null)
        XCTAssertEqual(empty.primaryKey, 3)
        XCTAssertEqual(empty.version, 1)
        let short = RowSnapshot.make(entity: book, primaryKey: 4, version: 1, values: catalogue)
        XCTAssertEqual(short.values, catalogue)
    }

    func testEntityRowsPackNumbersInWords() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        let cells = book.layout.cells.table
        let count = book.properties.count
        var bytes = ((count + 1) / 2 + 7) / 8 * 8  // the kinds come first, two to a byte
        for (slot, p) in book.properties.enumerated() {
            let type = (p as? AttributeDescription)?.attributeType
            let wide = [.string, .uri, .binaryData, .uuid].contains(type)
            XCTAssertEqual(cells.isWide(slot), wide && RowCell.wideFits, p.name)
            XCTAssertEqual(cells.offset(slot), bytes)
            bytes += cells.isWide(slot) ? 16 : 8
        }
        XCTAssertEqual(cells.count, count)
        XCTAssertEqual(cells.bytes, bytes)
        XCTAssertEqual(cells.words * 8, bytes)
        // Entities of one shape share their layout.
        XCTAssertEqual(RowCells.narrow(3).table.p, RowCells.narrow(3).table.p)
    }
}
