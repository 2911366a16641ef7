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

    func testRowsLiveInTheirBlocksStorage() throws {
        let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
        let row = RowSnapshot.make(entity: book, primaryKey: 1, version: 1, values: [.integer(5)])
        XCTAssertEqual(row.address, UnsafeRawPointer(row.block.storage))
        XCTAssertEqual(RowSnapshot.value(atSlot: 0, ofRowAt: row.address), .integer(5))
    }

    /// Full-size storage of a block that went is taken by the next full-size block.
    func testFullSizeStorageIsReused() throws {
        RowBlockPool.drain()
        var storage: UnsafeMutableRawPointer?
        do {
            let block = RowBlock(capacity: RowBlockPool.size)
            storage = block.storage
        }
        let next = RowBlock(capacity: RowBlockPool.size)
        XCTAssertEqual(next.storage, storage)
        XCTAssertNotEqual(RowBlock(capacity: 64).storage, next.storage)
    }

    /// Many rows share a block; each keeps its own entity, key, version and values, and the
    /// block outlives every row taken from it but the last.
    func testRowsOfOneWriterShareBlocks() throws {
        let model = try makeLibraryModel()
        let book = try XCTUnwrap(model.entitiesByName["Book"]), author = try XCTUnwrap(model.entitiesByName["Author"])
        var writer = RowBlockWriter()
        var rows: [RowSnapshot] = []
        for i in 0..<1_000 {
            let entity = i % 3 == 0 ? author : book
            let values = (0..<entity.properties.count).map { catalogue[($0 + i) % catalogue.count] }
            rows.append(writer.make(entity: entity, primaryKey: Int64(i), version: Int64(i % 7), values: values))
        }
        XCTAssertLessThan(Set(rows.map { ObjectIdentifier($0.block) }).count, 100)
        let kept = rows.enumerated().filter { $0.offset % 97 == 0 }.map(\.element)
        rows.removeAll()
        for row in kept {
            let i = Int(row.primaryKey)
            let entity = i % 3 == 0 ? author : book
            XCTAssertTrue(row.entity === entity)
            XCTAssertEqual(row.version, Int64(i % 7))
            XCTAssertEqual(row.values, (0..<entity.properties.count).map { catalogue[($0 + i) % catalogue.count] })
            XCTAssertTrue(row.isSame(as: row))
        }
        XCTAssertFalse(kept[0].isSame(as: kept[1]))
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
        // An entity's rows of one shape share their layout, which names the entity.
        XCTAssertTrue(cells.entity === book)
        XCTAssertEqual(book.rowCells(wide: RowCells.narrow(3)).table.p, book.rowCells(wide: RowCells.narrow(3)).table.p)
        XCTAssertTrue(book.rowCells(wide: RowCells.narrow(3)).table.entity === book)
    }

    func testARowKeepsItsEntityAndLayoutAfterItsModelIsGone() throws {
        // The row's block holds the entity, and the entity its row layouts.
        let row: RowSnapshot = try {
            let book = try XCTUnwrap(try makeLibraryModel().entitiesByName["Book"])
            let slot = try XCTUnwrap(book.layout.slotByName["title"])
            var values = book.layout.defaults
            values[slot] = .string("Kept")
            return RowSnapshot.make(entity: book, primaryKey: 9, version: 2, values: values)
        }()
        XCTAssertEqual(row.entity.name, "Book")
        XCTAssertEqual(row.primaryKey, 9)
        XCTAssertEqual(row.version, 2)
        XCTAssertEqual(row[try XCTUnwrap(row.entity.layout.slotByName["title"])], .string("Kept"))
        let short = RowSnapshot.make(entity: row.entity, primaryKey: 10, version: 1, values: [.integer(1)])
        XCTAssertEqual(short.entity.name, "Book")
        XCTAssertEqual(short.values, [.integer(1)])
    }
}
