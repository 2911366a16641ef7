import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// An atomic store that keeps nothing and reports every save as a conflict, as a
/// subclass that checks its own file would.
final class ConflictingStore: AtomicStore, @unchecked Sendable {
    init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        try super.init(type: "Conflicting", path: path, model: model)
    }

    override func hasStoredData() -> Bool { false }

    override func save() throws(ObjectGraphError) {
        throw ObjectGraphError(code: ErrorCode.storeSaveConflicts, message: "someone else saved the conflicting store")
    }
}

/// Stores shared by several writers (issue 11 item 6): the SQLite store's default busy
/// timeout and its creation race, and the Binary store's refusal to overwrite another
/// writer's save. Other processes are played by other coordinators of this process: the
/// file locks are flock locks, which exclude two descriptors of one process as they
/// exclude two processes (the C and Python tests use real processes).
final class StoreProcessSafetyTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func busyTimeoutPragma(_ store: PersistentStore) throws -> [String] {
        try (store as! SQLiteStore).open().strings("PRAGMA busy_timeout")
    }

    private func insertAuthor(_ context: ManagedObjectContext, _ name: String) throws {
        try context.insertObject(entityName: "Author").setValue(.string(name), forKey: "name")
    }

    private func authorNames(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Author")).compactMap { $0.string("name") }.sorted()
    }

    private func authorNames(atBinary path: String) throws -> [String] {
        try authorNames(Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary).context)
    }

    // MARK: SQLite: the busy timeout

    func testSQLiteStoreOpenedWithoutTheTimeoutOptionWaits240Seconds() throws {
        XCTAssertEqual(StoreOptions.defaultTimeout, 240)
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/default.sqlite")
        XCTAssertNil(stack.store.options[StoreOptionKey.timeout], "the option stays absent")
        XCTAssertEqual((stack.store as! SQLiteStore).busyTimeout, 240)
        XCTAssertEqual(try busyTimeoutPragma(stack.store), ["240000"], "SQLite's busy timeout, in milliseconds")
        // An existing file opened again gets it too.
        let again = try Stack(model: try makeLibraryModel(), path: dir + "/default.sqlite")
        XCTAssertEqual(try busyTimeoutPragma(again.store), ["240000"])
    }

    func testSQLiteStoreWithAnExplicitTimeoutOfZeroFailsAtOnceOnALockedFile() throws {
        let path = dir + "/zero.sqlite"
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: [StoreOptionKey.timeout: .integer(0)])
        XCTAssertEqual((store as! SQLiteStore).busyTimeout, 0)
        XCTAssertEqual(try busyTimeoutPragma(store), ["0"])
        let other = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: dir + "/half.sqlite", options: [StoreOptionKey.timeout: .real(0.5)])
        XCTAssertEqual(try busyTimeoutPragma(other), ["500"])

        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        XCTAssertEqual(sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil), SQLITE_OK)
        let context = ManagedObjectContext(coordinator: coordinator)
        try insertAuthor(context, "Locked out")
        let error = expectError { try context.save() }
        XCTAssertEqual(error?.code, ErrorCode.storeTimeout)
        XCTAssertTrue(error?.message.contains("waited 0.0 s") ?? false, error?.message ?? "")
        XCTAssertEqual(sqlite3_exec(db, "COMMIT", nil, nil, nil), SQLITE_OK)
        try context.save()
    }

    // MARK: SQLite: creating one new file from two coordinators at once

    func testTwoCoordinatorsCreatingOneNewSQLiteFileFromTwoThreadsBothSucceedWithOneUUID() throws {
        let model = try makeLibraryModel()
        for round in 0..<8 {
            let path = dir + "/race-\(round).sqlite"
            let results = Results()
            runTogether(2) { _ in
                let result: Result<String, ObjectGraphError>
                do {
                    let coordinator = try PersistentStoreCoordinator(model: model)
                    let store = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
                    let context = ManagedObjectContext(coordinator: coordinator)
                    try context.insertObject(entityName: "Author").setValue("writer", forKey: "name")
                    try context.save()
                    result = .success(store.identifier)
                } catch let error as ObjectGraphError {
                    result = .failure(error)
                } catch {
                    result = .failure(ObjectGraphError(code: 0, message: "\(error)"))
                }
                results.append(result)
            }
            let identifiers = try results.all.map { try $0.get() }
            XCTAssertEqual(identifiers.count, 2)
            XCTAssertEqual(Set(identifiers).count, 1, "round \(round): both coordinators opened the same store")
            XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_METADATA"), [["1"]])
            XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZAUTHOR"), [["2"]])
        }
    }

    // MARK: Binary: saves of two writers

    func testBinarySaveOverAnotherWritersSaveFailsWith134050WritesNothingAndKeepsItsRows() throws {
        let path = dir + "/shared.binary"
        let first = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(first.context, "Ann")
        try first.context.save()

        // Another writer reads the file and saves over it.
        let second = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(second.context, "Bob")
        try second.context.save()
        let written = try Data(contentsOf: URL(fileURLWithPath: path))

        // The first store still holds what it read; saving it would drop Bob.
        try insertAuthor(first.context, "Cy")
        let error = expectError { try first.context.save() }
        XCTAssertEqual(error?.code, ErrorCode.storeSaveConflicts)
        XCTAssertEqual(error?.domain, ObjectGraphError.cocoaDomain)
        XCTAssertEqual(error?.userInfoValue(forKey: ErrorUserInfoKey.filePath), path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), written, "nothing was written")
        XCTAssertEqual(try authorNames(ManagedObjectContext(coordinator: first.coordinator)), ["Ann"], "the store's rows are as they were")
        XCTAssertTrue(first.context.hasChanges, "the context keeps its changes")
        XCTAssertEqual(expectError { try first.context.save() }?.code, ErrorCode.storeSaveConflicts, "it keeps refusing")

        // A fresh coordinator sees the other writer's save intact, and a retry there lands.
        XCTAssertEqual(try authorNames(atBinary: path), ["Ann", "Bob"])
        let retry = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(retry.context, "Cy")
        try retry.context.save()
        XCTAssertEqual(try authorNames(atBinary: path), ["Ann", "Bob", "Cy"])
        // The second writer's store read Bob's save, not the retry: it is refused too.
        try insertAuthor(second.context, "Dee")
        XCTAssertEqual(expectError { try second.context.save() }?.code, ErrorCode.storeSaveConflicts)
        // Its own saves, one after another, never conflict.
        try insertAuthor(retry.context, "Eve")
        try retry.context.save()
        try retry.context.delete(try retry.context.fetch(FetchRequest(entityName: "Author")).first { $0.string("name") == "Ann" }!)
        try retry.context.save()
        XCTAssertEqual(try authorNames(atBinary: path), ["Bob", "Cy", "Eve"])
    }

    func testTwoNewBinaryStoresOnOnePathOnlyTheFirstSaveLands() throws {
        let path = dir + "/new.binary"
        let first = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        let second = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(first.context, "Ann")
        try insertAuthor(second.context, "Bob")
        try second.context.save()
        XCTAssertEqual(expectError { try first.context.save() }?.code, ErrorCode.storeSaveConflicts)
        XCTAssertEqual(try authorNames(atBinary: path), ["Bob"])
    }

    func testBinaryStoreWhoseFileWasRemovedDoesNotRecreateIt() throws {
        let path = dir + "/removed.binary"
        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(stack.context, "Ann")
        try stack.context.save()
        try FileManager.default.removeItem(atPath: path)
        try insertAuthor(stack.context, "Bob")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSaveConflicts)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testAFailedFirstBinarySaveLeavesNoFileBehind() throws {
        let path = dir + "/first.binary"
        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        // A directory where the temporary file goes makes the write fail.
        try FileManager.default.createDirectory(atPath: path + ".tmp-\(getpid())", withIntermediateDirectories: false)
        try insertAuthor(stack.context, "Ann")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSave)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the empty file locked for the save is gone")
        try FileManager.default.removeItem(atPath: path + ".tmp-\(getpid())")
        try stack.context.save()
        XCTAssertEqual(try authorNames(atBinary: path), ["Ann"])
    }

    func testMovedBinaryStoreTakesOverTheFileAtItsNewPath() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/a.binary", type: StoreType.binary)
        try insertAuthor(stack.context, "Ann")
        try stack.context.save()
        let other = try Stack(model: try makeLibraryModel(), path: dir + "/b.binary", type: StoreType.binary)
        try insertAuthor(other.context, "Bob")
        try other.context.save()
        try stack.coordinator.setPath(dir + "/b.binary", for: stack.store)
        try insertAuthor(stack.context, "Cy")
        try stack.context.save()
        XCTAssertEqual(try authorNames(atBinary: dir + "/b.binary"), ["Ann", "Cy"])
    }

    func testConflictThrownByAnAtomicSubclassPassesThroughUnwrapped() throws {
        PersistentStoreCoordinator.registerStoreType("Conflicting", factory: { (path, model) throws(ObjectGraphError) in
            try ConflictingStore(path: path, model: model)
        })
        defer { PersistentStoreCoordinator.registerStoreType("Conflicting", factory: nil) }
        let stack = try Stack(model: try makeLibraryModel(), path: dir + "/c.conflicting", type: "Conflicting")
        try insertAuthor(stack.context, "Ann")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSaveConflicts)
        XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).count(for: FetchRequest(entityName: "Author")), 0)
        XCTAssertTrue(stack.context.hasChanges)
    }

    // MARK: Binary: temporary files of an interrupted save

    func testTemporaryFilesOfAnInterruptedBinarySaveAreRemovedAtOpen() throws {
        let path = dir + "/crashed.binary"
        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try insertAuthor(stack.context, "Ann")
        try stack.context.save()
        // What a process killed between writing and renaming its temporary file leaves.
        _ = FileManager.default.createFile(atPath: path + ".tmp-4242", contents: Data("half a store".utf8))
        _ = FileManager.default.createFile(atPath: path + ".tmp-notes", contents: Data("not ours".utf8))
        try FileManager.default.createDirectory(atPath: path + ".tmp-77", withIntermediateDirectories: false)
        XCTAssertEqual(try authorNames(atBinary: path), ["Ann"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".tmp-4242"), "the left-over save is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".tmp-notes"), "other files stay")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".tmp-77"), "directories stay")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(names, ["crashed.binary", "crashed.binary.tmp-77", "crashed.binary.tmp-notes"], "no lock file beside the store")
    }
}
