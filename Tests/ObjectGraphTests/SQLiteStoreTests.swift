import CSQLite
import Foundation
import ObjectGraph
import XCTest

final class SQLiteStoreTests: XCTestCase {
    func testNewStoreHasCoreDataLayout() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        _ = try Stack(model: try makeLibraryModel(), path: path)
        let schema = sqliteRows(path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0[0] }
        XCTAssertEqual(schema, [
            "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZRATING INTEGER )",
            "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR, ZPAGES INTEGER, ZCOPIES INTEGER, ZPRICE DECIMAL, ZWEIGHT FLOAT, ZWIDTH FLOAT, ZINPRINT INTEGER, ZPUBLISHED TIMESTAMP, ZCOVER BLOB, ZISBNUUID BLOB, ZLINK VARCHAR, ZAUTHOR INTEGER )",
            "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        ])
        XCTAssertEqual(sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"), [["1", "Author", "0", "0"], ["2", "Book", "0", "0"]])
        XCTAssertEqual(sqliteRows(path, "PRAGMA journal_mode"), [["wal"]])
    }

    func testMetadataIsABinaryPlistWithTheModelsHashes() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        let model = try makeLibraryModel()
        let stack = try Stack(model: model, path: path)
        let hex = sqliteRows(path, "SELECT hex(Z_PLIST), Z_UUID FROM Z_METADATA")
        XCTAssertEqual(hex.count, 1)
        XCTAssertEqual(hex[0][1], stack.store.identifier)
        let bytes = stride(from: 0, to: hex[0][0].count, by: 2).map { i -> UInt8 in
            let start = hex[0][0].index(hex[0][0].startIndex, offsetBy: i)
            return UInt8(hex[0][0][start...hex[0][0].index(after: start)], radix: 16)!
        }
        let plist = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as! [String: Any]
        XCTAssertEqual(plist["NSStoreType"] as? String, "SQLite")
        XCTAssertEqual(plist["NSStoreUUID"] as? String, stack.store.identifier)
        XCTAssertEqual(plist["NSStoreModelVersionIdentifiers"] as? [String], ["1"])
        let hashes = plist["NSStoreModelVersionHashes"] as! [String: Data]
        XCTAssertEqual(hashes.mapValues { Array($0) }, model.entityVersionHashesByName)
    }

    func testOpeningWithAnIncompatibleModelFailsNamingTheEntity() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        _ = try Stack(model: try makeLibraryModel(), path: path)
        let changed = try makeLibraryModel()
        try changed.entity(named: "Author")!.addAttribute(named: "born", type: .date)
        let e = expectError { _ = try Stack(model: changed, path: path) }
        XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash)
        XCTAssertEqual(e?.domain, ObjectGraphError.cocoaDomain)
        XCTAssertTrue(e?.message.contains("'Author'") ?? false, e?.message ?? "")
        // The store is untouched and still opens with its own model.
        XCTAssertNoThrow(try Stack(model: try makeLibraryModel(), path: path))
    }

    func testAFileThatIsNotAStoreIsRefused() throws {
        let dir = try temporaryDirectory()
        let garbage = dir + "/garbage.sqlite"
        try Data("this is not a database at all, just some text".utf8).write(to: URL(fileURLWithPath: garbage))
        let e = expectError { _ = try Stack(model: try makeLibraryModel(), path: garbage) }
        XCTAssertEqual(e?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(e?.message.contains("not an SQLite database") ?? false)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: garbage)), Data("this is not a database at all, just some text".utf8))

        let other = dir + "/other.sqlite"
        var db: OpaquePointer?
        _ = other.withCString { sqlite3_open($0, &db) }
        sqlite3_exec(db, "CREATE TABLE t(x)", nil, nil, nil)
        sqlite3_close(db)
        let e2 = expectError { _ = try Stack(model: try makeLibraryModel(), path: other) }
        XCTAssertEqual(e2?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(e2?.message.contains("not a Core Data store") ?? false)
    }

    func testAPathThatCannotBeOpenedIsAnOpenError() throws {
        let e = expectError { _ = try Stack(model: try makeLibraryModel(), path: "/nonexistent-dir-og/sub/x.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.storeOpen)
        XCTAssertEqual(e?.details.first?.domain, ObjectGraphError.sqliteDomain)
    }

    func testUnknownStoreTypeIsRefused() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: "Paper", path: "/tmp/x") }?.code, ErrorCode.storeInvalidType)
    }

    func testInheritanceSharesTheRootTableWithEntityNumbers() throws {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.setSuperentity(item)
        try book.addAttribute(named: "pages", type: .integer32)
        let disc = try model.addEntity(named: "Disc")
        try disc.setSuperentity(item)
        try disc.addAttribute(named: "pages", type: .integer16)
        let path = try temporaryDirectory() + "/items.sqlite"
        let stack = try Stack(model: model, path: path)
        XCTAssertEqual(sqliteRows(path, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [["1", "Item", "0"], ["2", "Book", "1"], ["3", "Disc", "1"]])
        XCTAssertEqual(sqliteRows(path, "SELECT sql FROM sqlite_master WHERE name = 'ZITEM'")[0][0],
                       "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZPAGES INTEGER, ZPAGES1 INTEGER )")
        let b = try stack.context.insertObject(entityName: "Book")
        try b.setValue(300, forKey: "pages")
        let d = try stack.context.insertObject(entityName: "Disc")
        try d.setValue(2, forKey: "pages")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT Z_PK, Z_ENT, ZPAGES, ZPAGES1 FROM ZITEM ORDER BY Z_PK"),
                       [["1", "2", "300", "NULL"], ["2", "3", "NULL", "2"]])
        XCTAssertEqual(sqliteRows(path, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1"), [["2"]])
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Item")), 2)
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Disc")), 1)
    }
}
