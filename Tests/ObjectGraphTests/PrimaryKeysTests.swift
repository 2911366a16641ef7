import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// Counters read from files (`PrimaryKeys` in RowSnapshot.swift, `nextVersion` in
/// ContextSave.swift): a store whose key counter or row version is at `Int64.max` opens,
/// and the save that would pass it fails with 134030 instead of trapping or wrapping.
final class PrimaryKeysTests: XCTestCase {
    func sqlite(_ path: String, _ sql: String) {
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        sqlite3_close(db)
    }

    func testKeyRanges() throws {
        let model = try makeLibraryModel()
        let book = model.entity(named: "Book")!
        XCTAssertEqual(try PrimaryKeys.first(after: 0, count: 3, root: book, store: "s"), 1)
        XCTAssertEqual(try PrimaryKeys.first(after: Int64.max - 3, count: 3, root: book, store: "s"), Int64.max - 2)
        XCTAssertEqual(try PrimaryKeys.last(first: Int64.max - 2, count: 3, root: book, store: "s"), Int64.max)
        for (after, count) in [(Int64.max, 1), (Int64.max - 2, 3), (Int64(1), Int.max)] {
            XCTAssertEqual(expectError { _ = try PrimaryKeys.first(after: after, count: count, root: book, store: "s") }?.code, ErrorCode.storeSave)
        }
        XCTAssertEqual(expectError { _ = try PrimaryKeys.first(after: -4, count: 1, root: book, store: "s") }?.code, ErrorCode.storeSave)
        XCTAssertEqual(expectError { _ = try PrimaryKeys.last(first: 0, count: 1, root: book, store: "s") }?.code, ErrorCode.storeSave)
        XCTAssertEqual(expectError { _ = try PrimaryKeys.last(first: Int64.min, count: 1, root: book, store: "s") }?.code, ErrorCode.storeSave)
    }

    func testSQLiteKeyCounterAtItsLargestFailsTheSave() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path)
            try stack.context.insertObject(entityName: "Author").setValue("Ann", forKey: "name")
            try stack.context.save()
        }
        sqlite(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Author'")
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        try stack.context.insertObject(entityName: "Author").setValue("Bob", forKey: "name")
        let e = expectError { try stack.context.save() }
        XCTAssertEqual(e?.code, ErrorCode.storeSave)
        XCTAssertTrue(e?.message.contains("no primary keys left") ?? false, e?.message ?? "")
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZAUTHOR"), [["1"]])
        // One key short of the end still works; the counter then stands at the end.
        sqlite(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775806 WHERE Z_NAME = 'Author'")
        let again = try Stack(model: try makeLibraryModel(), path: path)
        try again.context.insertObject(entityName: "Author").setValue("Cy", forKey: "name")
        try again.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT MAX(Z_PK) FROM ZAUTHOR"), [["9223372036854775807"]])
        // A damaged (negative) counter is an error too, not a key of 0 or below.
        sqlite(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = -5 WHERE Z_NAME = 'Book'")
        let damaged = try Stack(model: try makeLibraryModel(), path: path)
        try damaged.context.insertObject(entityName: "Book").setValue("T", forKey: "title")
        XCTAssertEqual(expectError { try damaged.context.save() }?.code, ErrorCode.storeSave)
    }

    func testRowVersionAtItsLargestFailsTheUpdate() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path)
            try stack.context.insertObject(entityName: "Author").setValue("Ann", forKey: "name")
            try stack.context.save()
        }
        sqlite(path, "UPDATE ZAUTHOR SET Z_OPT = 9223372036854775807")
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        let author = try stack.context.fetch(FetchRequest(entityName: "Author"))[0]
        try author.setValue("Anne", forKey: "name")
        let e = expectError { try stack.context.save() }
        XCTAssertEqual(e?.code, ErrorCode.storeSave)
        XCTAssertTrue(e?.message.contains("Z_OPT") ?? false, e?.message ?? "")
        XCTAssertEqual(sqliteRows(path, "SELECT ZNAME, Z_OPT FROM ZAUTHOR"), [["Ann", "9223372036854775807"]])
        // The object can still be deleted.
        try stack.context.rollback()
        try stack.context.delete(author)
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZAUTHOR"), [["0"]])
    }

    /// Atomic stores: a file holding the largest key, and a subclass handing out bad keys.
    func testAtomicStoreKeysAreChecked() throws {
        final class EdgeStore: AtomicStore, @unchecked Sendable {
            nonisolated(unsafe) static var firstKey: Int64? = nil
            init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
                try super.init(type: "Edge", path: path, model: model)
                let author = model.entity(named: "Author")!
                var values = [AttributeValue](repeating: .null, count: author.properties.count)
                values[author.slot(forKey: "name")!] = "Max"
                try addCacheNodes([AtomicStoreCacheNode(entity: author, referenceObject: Int64.max, version: 1, values: values)])
            }
            override func save() throws(ObjectGraphError) {}
            override func newReferenceObjects(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
                if let k = Self.firstKey { return k }
                return try super.newReferenceObjects(for: entity, count: count)
            }
        }
        PersistentStoreCoordinator.registerStoreType("Edge") { (path, model) throws(ObjectGraphError) in try EdgeStore(path: path, model: model) }
        let stack = try Stack(model: try makeLibraryModel(), path: "edge", type: "Edge")
        XCTAssertEqual(try stack.context.fetch(FetchRequest(entityName: "Author")).count, 1)
        try stack.context.insertObject(entityName: "Author").setValue("New", forKey: "name")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSave)
        for bad in [Int64(0), -7, Int64.max] {
            EdgeStore.firstKey = bad
            let ctx = ManagedObjectContext(coordinator: stack.coordinator)
            for _ in 0..<2 { try ctx.insertObject(entityName: "Book").setValue("T", forKey: "title") }
            XCTAssertEqual(expectError { try ctx.save() }?.code, ErrorCode.storeSave, "first key \(bad)")
        }
        EdgeStore.firstKey = 10
        let ctx = ManagedObjectContext(coordinator: stack.coordinator)
        try ctx.insertObject(entityName: "Book").setValue("T", forKey: "title")
        try ctx.save()
    }
}
