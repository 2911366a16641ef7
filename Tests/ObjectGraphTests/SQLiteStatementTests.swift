import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// One statement type for every `sqlite3_step` (`SQLiteStatement.swift`,
/// `SQLiteConnection.swift`): binding, the row cursor, errors and resets.
final class SQLiteStatementTests: XCTestCase {
    func connection() throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: try temporaryDirectory() + "/statement.sqlite")
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL, b BLOB, d REAL)")
        return db
    }

    func testValuesRoundTripEveryByteAndAnEmptyBlobStaysABlob() throws {
        let db = try connection()
        let insert = try db.prepare("INSERT INTO t (k, v, b, d) VALUES (?, ?, ?, ?)")
        insert.bind(1, 1)
        insert.bind(2, text: "a\u{0}b é")
        insert.bind(3, bytes: [])
        insert.bind(4, double: 2.5)
        XCTAssertEqual(try insert.runCountingChanges(), 1)
        let select = try db.prepare("SELECT v, b, typeof(b), d, k FROM t")
        let row = try select.firstRow { s in (s.text(0), s.bytes(1), s.text(2), s.double(3), s.int64(4), s.isNull(1)) }
        XCTAssertEqual(row?.0, "a\u{0}b é")
        XCTAssertEqual(row?.1, [])
        XCTAssertEqual(row?.2, "blob")
        XCTAssertEqual(row?.3, 2.5)
        XCTAssertEqual(row?.4, 1)
        XCTAssertEqual(row?.5, false)
    }

    func testTheCursorVisitsEveryRowAndTheStatementRunsAgainAfterward() throws {
        let db = try connection()
        let insert = try db.prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        for k in 1...3 {
            insert.bind(1, Int64(k))
            insert.bind(2, text: "v\(k)")
            try insert.run()
        }
        let select = try db.prepare("SELECT k FROM t WHERE k >= ? ORDER BY k")
        select.bind(1, 2)
        var seen: [Int64] = []
        try select.forEachRow { seen.append($0.int64(0)) }
        XCTAssertEqual(seen, [2, 3])
        // Reset by forEachRow, with its binding kept: the same rows again.
        seen = []
        while try select.step() { seen.append(select.int64(0)) }
        select.reset()
        XCTAssertEqual(seen, [2, 3])
        // The cache hands the statement out again with no bindings: NULL matches nothing.
        XCTAssertNil(try db.prepare("SELECT k FROM t WHERE k >= ? ORDER BY k").firstRow { $0.int64(0) })
    }

    func testAFailedStepIsAnSQLiteErrorWithItsExtendedCodeAndTheStatementStaysUsable() throws {
        let db = try connection()
        let insert = try db.prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        insert.bind(1, 1)
        let error = expectError { try insert.run() }  // v is NOT NULL
        XCTAssertEqual(error?.domain, ObjectGraphError.sqliteDomain)
        XCTAssertEqual(error?.code, Int(SQLITE_CONSTRAINT | (5 << 8)))  // SQLITE_CONSTRAINT_NOTNULL
        XCTAssertTrue(error?.message.contains("NOT NULL") ?? false, error?.message ?? "")
        insert.bind(2, text: "now set")
        try insert.run()
        XCTAssertEqual(try db.strings("SELECT v FROM t"), ["now set"])
    }

    func testQueryConstantsBindOnlyWhatSQLCompares() throws {
        let db = try connection()
        let s = try db.prepare("SELECT ?, ?, ?, ?")
        try s.bind(queryValues: [.integer(7), .double(1.5), .string("x"), .null])
        let row = try s.firstRow { ($0.int64(0), $0.double(1), $0.text(2), $0.isNull(3)) }
        XCTAssertEqual(row?.0, 7)
        XCTAssertEqual(row?.1, 1.5)
        XCTAssertEqual(row?.2, "x")
        XCTAssertEqual(row?.3, true)
        XCTAssertEqual(expectError { try s.bind(queryValues: [.data(Data([1]))]) }?.code, ErrorCode.invalidArgument)
    }

    func testAClosedConnectionRefusesToPrepare() throws {
        let db = try connection()
        db.close()
        let error = expectError { _ = try db.prepare("SELECT 1") }
        XCTAssertEqual(error?.code, Int(SQLITE_MISUSE))
    }
}
