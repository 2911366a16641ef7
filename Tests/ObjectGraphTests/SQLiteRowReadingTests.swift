import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// How the SQLite store reads a fetched row's columns into its cells (SQLiteRowReading.swift).
final class SQLiteRowReadingTests: XCTestCase {
    /// Numbers are read with one call, and the type only for a 0: a stored 0 stays 0, a NULL
    /// stays nil, and a value of another storage class in a number column reads as SQLite
    /// converts it, as it did when the type was read first.
    func testNumberColumnsReadZeroNullAndOtherStorageClasses() throws {
        let path = try temporaryDirectory() + "/numbers.sqlite"
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let cases: [(copies: String, weight: String, expected: (AttributeValue, AttributeValue))] = [
            ("0", "0.0", (.integer(0), .double(0))),
            ("NULL", "NULL", (.null, .null)),
            ("-5", "-0.5", (.integer(-5), .double(-0.5))),
            ("2.75", "3", (.integer(2), .double(3))),
            ("'12'", "'1.5'", (.integer(12), .double(1.5))),
            ("'abc'", "'x'", (.integer(0), .double(0))),
            ("9223372036854775807", "1e308", (.integer(.max), .double(1e308))),
        ]
        for (i, _) in cases.enumerated() { try stack.context.insertObject(entityName: "Book").setValue(.string("b\(i)"), forKey: "title") }
        try stack.context.save()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        for (i, c) in cases.enumerated() {
            let sql = "UPDATE ZBOOK SET ZCOPIES = \(c.copies), ZWEIGHT = \(c.weight) WHERE ZTITLE = 'b\(i)'"
            XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        }
        sqlite3_close(db)
        let context = ManagedObjectContext(coordinator: stack.coordinator)
        let request = FetchRequest(entityName: "Book")
        request.sortKeys = [SortKey("title")]
        let books = try context.fetch(request)
        XCTAssertEqual(books.count, cases.count)
        for (book, c) in zip(books, cases) {
            XCTAssertEqual(try book.value(forKey: "copies"), c.expected.0, "copies \(c.copies)")
            XCTAssertEqual(try book.value(forKey: "weight"), c.expected.1, "weight \(c.weight)")
        }
    }
}
