import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// The model a store keeps of itself (`SQLiteModelCache.swift`, `Inflate.swift`): Apple's
/// stores cache their compiled model DEFLATE-compressed in `Z_MODELCACHE`.
final class SQLiteModelCacheTests: XCTestCase {
    func copy(_ fixture: AppleStoreTests.Fixture) throws -> String { try AppleStoreTests.copy(fixture) }

    func testEveryAppleStoresCachedModelHasTheStoresVersionHashes() throws {
        var read = 0
        for fixture in AppleStoreTests.all {
            let path = try copy(fixture)
            let model: ManagedObjectModel
            do {
                model = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: path)
            } catch {
                // Written by a Core Data older than the cache.
                if error.code == ErrorCode.migrationMissingSourceModel, error.message.contains("no Z_MODELCACHE table") {
                    continue
                }
                throw error
            }
            read += 1
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
            guard case .dictionary(let hashes)? = metadata[StoreMetadataKey.modelVersionHashes] else {
                return XCTFail("\(fixture.store): no version hashes")
            }
            var expected: [String: [UInt8]] = [:]
            for (name, value) in hashes { if case .data(let d) = value { expected[name] = Array(d) } }
            XCTAssertEqual(model.entityVersionHashesByName, expected, fixture.store)
            // The cached model opens its store.
            let coordinator = try PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        }
        XCTAssertGreaterThanOrEqual(read, 9)
    }

    func testTheCachedModelReadsTheRows() throws {
        let path = try copy(AppleStoreTests.wibosco1)
        let model = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: path)
        let coordinator = try PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        let context = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Post")), 1001)
    }

    func testStoresWithoutACachedModelAndDamagedCaches() throws {
        let dir = try temporaryDirectory()
        let ours = try Stack(model: try makeLibraryModel(), path: dir + "/ours.sqlite")
        _ = ours
        // A store written before stores kept their model, or by an older Core Data.
        sqliteExec(dir + "/ours.sqlite", "DROP TABLE Z_MODELCACHE")
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: dir + "/ours.sqlite") }?.code,
                       ErrorCode.migrationMissingSourceModel)
        let binary = try Stack(model: try makeLibraryModel(), path: dir + "/b.binary", type: StoreType.binary)
        try binary.context.save()
        _ = try binary.context.insertObject(entityName: "Author").setValue(.string("x"), forKey: "name")
        try binary.context.save()
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: dir + "/b.binary") }?.code,
                       ErrorCode.migrationMissingSourceModel)
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: dir + "/none.sqlite") }?.code,
                       ErrorCode.storeOpen)
        // A damaged cache is an error that says so, never a crash.
        sqliteExec(dir + "/ours.sqlite", "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB); INSERT INTO Z_MODELCACHE VALUES (x'ff00ff00ff');")
        let e = expectError { _ = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: dir + "/ours.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.migrationMissingSourceModel)
        XCTAssertTrue(e?.message.contains("decompress") ?? false)
    }

    /// A new store keeps its model as Core Data does: the table Apple creates, one row,
    /// written with the schema, and read back with the hashes of the store's metadata.
    func testANewStoreKeepsItsModel() throws {
        let dir = try temporaryDirectory()
        for (label, model) in [("library", try makeLibraryModel()), ("warehouse", try makeWarehouseModel()),
                               ("everything", try CompiledModelWriterTests.makeEverythingModel())] {
            let path = "\(dir)/\(label).sqlite"
            let coordinator = try PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
            XCTAssertEqual(sqliteRows(path, "SELECT sql FROM sqlite_master WHERE name = 'Z_MODELCACHE'"), [["CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"]])
            XCTAssertEqual(sqliteRows(path, "SELECT count(*) FROM Z_MODELCACHE"), [["1"]])
            let cached = try SQLiteStore.cachedModel(at: path)
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
            let hashes = try XCTUnwrap(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue).compactMapValues(\.dataValue)
            XCTAssertEqual(cached.entityVersionHashesByName, hashes, label)
            XCTAssertEqual(try CompiledModelWriterTests.structure(cached), try CompiledModelWriterTests.structure(model), label)
            XCTAssertTrue(cached.isConfiguration(nil, compatibleWithStoreMetadata: metadata), label)
            // The cached model opens its store.
            let again = try PersistentStoreCoordinator(model: cached)
            try again.addPersistentStore(type: StoreType.sqlite, path: path)
        }
        // Opening an existing store leaves its cache alone.
        let path = "\(dir)/library.sqlite"
        sqliteExec(path, "UPDATE Z_MODELCACHE SET Z_CONTENT = x'00'")
        let reopened = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try reopened.addPersistentStore(type: StoreType.sqlite, path: path)
        XCTAssertEqual(sqliteRows(path, "SELECT hex(Z_CONTENT) FROM Z_MODELCACHE"), [["00"]])
    }

    /// `writeModelCache` (which migration calls after changing a store in place) creates
    /// the table when it is missing and keeps exactly one row.
    func testWritingTheCacheReplacesIt() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/s.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        sqliteExec(path, "DROP TABLE Z_MODELCACHE")
        let other = try makeWarehouseModel()
        for _ in 0..<2 {
            let db = try SQLiteConnection(path: path, readOnly: false)
            try db.execute("BEGIN IMMEDIATE")
            try SQLiteStore.writeModelCache(other, db: db)
            try db.execute("COMMIT")
            db.close()
        }
        XCTAssertEqual(sqliteRows(path, "SELECT count(*) FROM Z_MODELCACHE"), [["1"]])
        XCTAssertEqual(sqliteRows(path, "SELECT sql FROM sqlite_master WHERE name = 'Z_MODELCACHE'"), [["CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"]])
        XCTAssertEqual(try SQLiteStore.cachedModel(at: path).entityVersionHashesByName, other.entityVersionHashesByName)
    }

    func testInflateAgainstStoredAndDamagedStreams() throws {
        // A stored block: header bits 1 (last), 00 (stored), then LEN, NLEN and the bytes.
        let stored: [UInt8] = [0x01, 0x03, 0x00, 0xFC, 0xFF, 0x61, 0x62, 0x63]
        XCTAssertEqual(try Inflate.decompress(stored), Array("abc".utf8))
        // Fixed Huffman "a" then end of block.
        XCTAssertEqual(try Inflate.decompress([0x4B, 0x04, 0x00]), Array("a".utf8))
        for damaged: [UInt8] in [[], [0x07], [0x01, 0x03, 0x00, 0xFF, 0xFF], [0x05, 0xFF, 0xFF, 0xFF]] {
            XCTAssertThrowsError(try Inflate.decompress(damaged))
        }
    }
}

/// Runs SQL on a file directly (test setup).
func sqliteExec(_ path: String, _ sql: String) {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { return }
    sqlite3_exec(db, sql, nil, nil, nil)
    sqlite3_close(db)
}
