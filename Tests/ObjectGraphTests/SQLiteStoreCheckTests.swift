import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Opening an existing SQLite store checks it through a connection that cannot change it
/// (SQLiteStore.open, SQLiteConnection(readOnly:)): a refused store, its -wal and its
/// -shm stay byte for byte, so a foreign or stale -wal is never checkpointed into it.
final class SQLiteStoreCheckTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory() }

    /// The contents of a store file and its side files (nil for a missing one).
    func contents(_ path: String) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: path + $0) }
    }

    /// Leaves beside `target` the -wal and -shm of another database that `build` writes
    /// (with checkpoints off, so its pages stay in its WAL).
    func plantWAL(beside target: String, _ build: (OpaquePointer?) -> Void) throws {
        let other = dir + "/other-\(UUID().uuidString).sqlite"
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(other, &db), SQLITE_OK)
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0", nil, nil, nil)
        build(db)
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: target + suffix)
            try FileManager.default.copyItem(atPath: other + suffix, toPath: target + suffix)
        }
        sqlite3_close(db)
    }

    /// A closed, intact library store with one author.
    func makeStore(_ name: String) throws -> String {
        let path = dir + "/" + name
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        try stack.context.insertObject(entityName: "Author").setValue("Ann", forKey: "name")
        try stack.context.save()
        try stack.coordinator.removePersistentStore(stack.store)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "closed cleanly")
        return path
    }

    func testAForeignWALOfAnotherDatabaseIsRefusedAndLeftAlone() throws {
        let path = try makeStore("books.sqlite")
        try plantWAL(beside: path) { db in
            sqlite3_exec(db, "CREATE TABLE u (y); CREATE TABLE v (z); INSERT INTO u VALUES (randomblob(5000)), (randomblob(5000))", nil, nil, nil)
        }
        let before = contents(path)
        XCTAssertTrue(before.allSatisfy { $0 != nil })
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let e = expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }
        XCTAssertEqual(e?.code, ErrorCode.storeInvalidType)
        XCTAssertEqual(contents(path), before, "the store, its -wal and its -shm are unchanged")
        // Refused again, just the same: nothing was checkpointed in between.
        XCTAssertEqual(expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }?.code, ErrorCode.storeInvalidType)
        XCTAssertEqual(contents(path), before)
        // Without the foreign files the store is whole.
        try FileManager.default.removeItem(atPath: path + "-wal")
        try FileManager.default.removeItem(atPath: path + "-shm")
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        XCTAssertEqual(try stack.context.fetch(FetchRequest(entityName: "Author")).count, 1)
    }

    func testAForeignWALOfAStoreOfAnotherModelIsRefusedAndLeftAlone() throws {
        let path = try makeStore("books.sqlite")
        // The WAL of a live store of another model, copied while its writer has it open.
        let otherModel = ManagedObjectModel()
        try otherModel.addEntity(named: "Tag").addAttribute(named: "label", type: .string)
        let otherPath = dir + "/tags.sqlite"
        let other = try Stack(model: otherModel, path: otherPath)
        try other.context.insertObject(entityName: "Tag").setValue("x", forKey: "label")
        try other.context.save()
        for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: otherPath + suffix, toPath: path + suffix) }
        let before = contents(path)
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let e = expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }
        XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash)
        XCTAssertEqual(contents(path), before)
        // Reading the metadata without a stack changes nothing either.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
        XCTAssertEqual(metadata[StoreMetadataKey.storeUUID], .string(other.store.identifier), "the file reads as the other store")
        XCTAssertEqual(contents(path), before)
    }

    /// Another model's store, refused with no side files at all: the file stays as it was.
    func testARefusedCleanStoreIsUnchanged() throws {
        let path = try makeStore("books.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let model = ManagedObjectModel()
        try model.addEntity(named: "Tag").addAttribute(named: "label", type: .string)
        let coordinator = try PersistentStoreCoordinator(model: model)
        XCTAssertEqual(expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }?.code,
                       ErrorCode.storeIncompatibleVersionHash)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        // Any -wal SQLite needed to read it is empty: no page was written into it.
        XCTAssertEqual(FileManager.default.contents(atPath: path + "-wal")?.count ?? 0, 0)
    }

    /// The store's own WAL (a writer that is still open, or one that died) is read and kept.
    func testAStoresOwnWALIsReadAsUsual() throws {
        let path = dir + "/books.sqlite"
        let writer = try Stack(model: try makeLibraryModel(), path: path)
        try writer.context.insertObject(entityName: "Author").setValue("Ann", forKey: "name")
        try writer.context.save()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
        let reader = try Stack(model: try makeLibraryModel(), path: path)
        XCTAssertEqual(try reader.context.fetch(FetchRequest(entityName: "Author")).count, 1)
        try reader.context.insertObject(entityName: "Author").setValue("Bob", forKey: "name")
        try reader.context.save()
        let fresh = ManagedObjectContext(coordinator: writer.coordinator)
        XCTAssertEqual(try fresh.fetch(FetchRequest(entityName: "Author")).count, 2)
    }

    /// Stores kept in a rollback journal mode (DELETE), as these options add them.
    let rollbackJournal: [String: PropertyListValue] = [StoreOptionKey.sqlitePragmas: .dictionary(["journal_mode": .string("DELETE")])]

    /// A closed library store in rollback-journal mode with one author, Ann.
    func makeRollbackJournalStore() throws -> String {
        let path = dir + "/books.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: rollbackJournal)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertObject(entityName: "Author").setValue("Ann", forKey: "name")
        try context.save()
        return path
    }

    /// A store kept in a rollback journal mode whose writer died mid-transaction: the hot
    /// journal is rolled back (this needs a writer), and the store opens as committed.
    func testAHotRollbackJournalIsRolledBack() throws {
        let path = try makeRollbackJournalStore()
        // A transaction whose journal is left behind, as a killed writer leaves it.
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; DELETE FROM ZAUTHOR; INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (9, 1, 1, 'x')", nil, nil, nil)
        sqlite3_exec(db, "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT 10 + Z_PK, 1, 1, hex(randomblob(3000)) FROM ZAUTHOR", nil, nil, nil)
        let journal = FileManager.default.contents(atPath: path + "-journal")
        try FileManager.default.copyItem(atPath: path, toPath: dir + "/crashed.sqlite")
        if let journal { XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/crashed.sqlite-journal", contents: journal)) }
        sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
        sqlite3_close(db)
        guard journal != nil else { throw XCTSkip("SQLite kept the transaction in memory: no hot journal to test") }
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: dir + "/crashed.sqlite", options: rollbackJournal)
        let context = ManagedObjectContext(coordinator: coordinator)
        let names = try context.fetch(FetchRequest(entityName: "Author")).map { try $0.value(forKey: "name") as AttributeValue }
        XCTAssertEqual(names, ["Ann"])
    }

    /// A copy taken while a save was spilling into the main file, with its hot journal:
    /// reading its metadata without a stack (a read-only connection, which cannot roll the
    /// journal back) is refused naming the unfinished save, rather than reading half a save
    /// or calling the file something else; nothing changes.
    func testMetadataOfAStoreWithAnUnfinishedSaveIsRefusedNamingIt() throws {
        let path = try makeRollbackJournalStore()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        // The save spills into the main file before it commits (a one-page cache).
        sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE ZAUTHOR SET ZNAME = 'unsaved'; CREATE TABLE ZSPILL (ZDATA BLOB)", nil, nil, nil)
        sqlite3_exec(db, "INSERT INTO ZSPILL SELECT randomblob(4000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n)", nil, nil, nil)
        let copy = dir + "/copy.sqlite"
        for suffix in ["", "-journal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
        sqlite3_close(db)
        let before = [copy, copy + "-journal"].map { FileManager.default.contents(atPath: $0) }
        let e = expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: StoreType.sqlite, at: copy) }
        XCTAssertEqual(e?.code, ErrorCode.storeOpen)
        XCTAssertTrue(e?.message.contains("rolled back") ?? false, e?.message ?? "")
        XCTAssertEqual([copy, copy + "-journal"].map { FileManager.default.contents(atPath: $0) }, before)
        // A writer rolls it back: the store is as last saved.
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: copy, options: rollbackJournal)
        let context = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(try context.fetch(FetchRequest(entityName: "Author")).map { try $0.value(forKey: "name") as AttributeValue }, ["Ann"])
    }

    /// With versioning ignored, a store whose tables lack the model's columns opens:
    /// the columns are added and read as nil; a read-only store still refuses (134020).
    func testIgnoreVersioningAddsMissingColumns() throws {
        let path = try Catalogue.makeStore()
        let ignore: [String: PropertyListValue] = [StoreOptionKey.ignoreVersioning: .boolean(true)]
        let readOnly = try PersistentStoreCoordinator(model: try Catalogue.version2())
        var options = ignore
        options[StoreOptionKey.readOnly] = .boolean(true)
        XCTAssertEqual(expectError { try readOnly.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: options) }?.code,
                       ErrorCode.storeIncompatibleSchema)
        let coordinator = try PersistentStoreCoordinator(model: try Catalogue.version2())
        try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: ignore)
        let context = ManagedObjectContext(coordinator: coordinator)
        let items = try context.fetch(FetchRequest(entityName: "Item"))
        XCTAssertEqual(items.count, 5)
        XCTAssertEqual(try items[0].value(forKey: "name"), .null)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Aisle")), 0)
        try context.insertObject(entityName: "Aisle").setValue(.integer(2), forKey: "number")
        try context.save()
    }

    // MARK: Read-only stores (SQLiteStore.openReadOnly, SQLiteConnection(createsNoFiles:))

    /// Every file in `dir` with its bytes: what a read-only open must leave as it was.
    func folder(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) { out[name] = FileManager.default.contents(atPath: dir + "/" + name) }
        return out
    }

    /// Opens `path` read-only, counts its authors and closes it.
    func readOnlyCount(_ path: String) throws -> Int {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path,
                                                       options: [StoreOptionKey.readOnly: .boolean(true), StoreOptionKey.sqliteAnalyze: .boolean(true), StoreOptionKey.sqliteManualVacuum: .boolean(true)])
        let n = try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Author"))
        try coordinator.removePersistentStore(store)
        return n
    }

    func testAReadOnlyStoreWhoseWALHoldsCommitsIsReadWithoutChangingAByte() throws {
        // A copy taken while a writer had it open: the commits are in the -wal only.
        let live = dir + "/live.sqlite"
        let writer = try Stack(model: try makeLibraryModel(), path: live)
        for name in ["Ann", "Bob", "Cy"] { try writer.context.insertObject(entityName: "Author").setValue(.string(name), forKey: "name") }
        try writer.context.save()
        let copyDir = dir + "/copy"
        try FileManager.default.createDirectory(atPath: copyDir, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: copyDir + "/live.sqlite" + suffix) }
        XCTAssertGreaterThan(FileManager.default.contents(atPath: copyDir + "/live.sqlite-wal")?.count ?? 0, 0)
        let before = try folder(copyDir)
        XCTAssertEqual(try readOnlyCount(copyDir + "/live.sqlite"), 3)
        XCTAssertEqual(try folder(copyDir), before)
        _ = writer
    }

    func testReadingAClosedStoresMetadataOrModelLeavesNothingBesideIt() throws {
        let path = try makeStore("quiet.sqlite")
        let before = try folder(dir)
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)[StoreMetadataKey.storeType], .string(StoreType.sqlite))
        _ = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: path)
        XCTAssertEqual(try folder(dir), before)
        // A read-only store takes read locks as SQLite does (a -shm, an empty -wal); the
        // store file itself keeps every byte.
        XCTAssertEqual(try readOnlyCount(path), 1)
        XCTAssertEqual(FileManager.default.contents(atPath: path), before["quiet.sqlite"])
        XCTAssertEqual(FileManager.default.contents(atPath: path + "-wal")?.count ?? 0, 0)
    }

    func testAReadOnlyStoreInARollbackJournalModeKeepsItsMode() throws {
        let path = dir + "/delete.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path,
                                                       options: [StoreOptionKey.sqlitePragmas: .dictionary(["journal_mode": .string("DELETE")])])
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertObject(entityName: "Author").setValue(.string("Ann"), forKey: "name")
        try context.save()
        try coordinator.removePersistentStore(store)
        let before = try folder(dir)
        XCTAssertEqual(try readOnlyCount(path), 1)
        XCTAssertEqual(try folder(dir), before)
        XCTAssertEqual(sqliteRows(path, "PRAGMA journal_mode"), [["delete"]])
    }

    // MARK: A store whose creation was killed (Tests/Fixtures/Stores/KilledCreation)

    /// Left by a process SIGKILLed as it began the new store's WAL: a 4,096-byte database
    /// in WAL mode with no tables, a `-wal` holding only its header, and a `-shm` of an
    /// earlier WAL. A reader cannot use that `-shm` (SQLITE_PROTOCOL); the store must open
    /// all the same, be created, and take saves.
    func testAStoreWhoseCreationWasKilledOpensAndTakesSaves() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Stores/KilledCreation/store.sqlite").path
        let path = dir + "/killed.sqlite"
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: fixture + suffix, toPath: path + suffix) }
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        try stack.context.insertObject(entityName: "Author").setValue(.string("Ann"), forKey: "name")
        try stack.context.save()
        try stack.coordinator.removePersistentStore(stack.store)
        XCTAssertEqual(try readOnlyCount(path), 1)
        // Read-only, the same leftovers are refused with the reason, and left as they were.
        let readOnlyPath = dir + "/killed-read-only.sqlite"
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: fixture + suffix, toPath: readOnlyPath + suffix) }
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let error = expectError {
            _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: readOnlyPath, options: [StoreOptionKey.readOnly: .boolean(true)])
        }
        XCTAssertEqual(error?.code, ErrorCode.storeOpen)
        XCTAssertTrue(error?.message.contains("open it once for writing") ?? false, error?.message ?? "")
        XCTAssertEqual(contents(readOnlyPath), contents(fixture))
    }
}
