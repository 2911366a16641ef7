import Foundation
import ObjectGraph
import XCTest

/// Optimistic locking and the five merge policies (§2.9, §2.10 rule 1; issue "Many
/// contexts", items 1 and 2): `ContextSave+Conflicts.swift` and `MergePolicy.swift`.
final class MergePolicyTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/conflicts.sqlite" }

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
    }

    /// One saved book ("Mort", 300 pages) and two contexts of one coordinator that both hold it.
    func twoContexts(type: String = StoreType.sqlite) throws -> (ManagedObjectContext, ManagedObjectContext, ManagedObject, ManagedObject) {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: type, path: type == StoreType.inMemory ? "" : path)
        let a = ManagedObjectContext(coordinator: coordinator)
        let book = try a.insertObject(entityName: "Book")
        try book.setValue(.string("Mort"), forKey: "title")
        try book.setValue(.integer(300), forKey: "pages")
        try a.save()
        let b = ManagedObjectContext(coordinator: coordinator)
        let other = try b.existingObject(with: book.objectID)
        return (a, b, book, other)
    }

    func title(_ o: ManagedObject) throws -> String? {
        if case .string(let s) = try o.value(forKey: "title") { return s }
        return nil
    }

    func pages(_ o: ManagedObject) throws -> Int64? {
        if case .integer(let n) = try o.value(forKey: "pages") { return n }
        return nil
    }

    func testRule2_10_1_updateAgainstUpdateOfOneCoordinatorIsAConflictWithTheCachedRow() throws {
        for type in [StoreType.sqlite, StoreType.inMemory, StoreType.binary] {
            directory = try temporaryDirectory()
            let (a, b, book, other) = try twoContexts(type: type)
            try book.setValue(.string("Mort II"), forKey: "title")
            try a.save()
            try other.setValue(.string("Sourcery"), forKey: "title")
            let e = expectError { try b.save() }
            XCTAssertEqual(e?.code, ErrorCode.merge, type)
            let conflicts = e?.conflicts ?? []
            XCTAssertEqual(conflicts.count, 1, type)
            XCTAssertTrue(conflicts.first?.sourceObject === other, type)
            XCTAssertEqual(conflicts.first?.oldVersionNumber, 1, type)
            XCTAssertEqual(conflicts.first?.newVersionNumber, 2, type)
            XCTAssertEqual(conflicts.first?.objectSnapshot["title"], .attribute(.string("Mort")), type)
            XCTAssertEqual(conflicts.first?.cachedSnapshot?["title"], .attribute(.string("Mort II")), type)
            XCTAssertNil(conflicts.first?.persistedSnapshot, type)
            // Nothing was written and the change is still pending.
            XCTAssertTrue(b.hasChanges, type)
            XCTAssertEqual(try title(other), "Sourcery", type)
            let c = ManagedObjectContext(coordinator: a.persistentStoreCoordinator)
            XCTAssertEqual(try title(try c.existingObject(with: book.objectID)), "Mort II", type)
        }
    }

    func testRule2_10_1_twoCoordinatorsOverOneFileConflictWithThePersistedRow() throws {
        let (a, _, book, _) = try twoContexts()
        let second = try PersistentStoreCoordinator(model: a.persistentStoreCoordinator.managedObjectModel)
        try second.addPersistentStore(type: StoreType.sqlite, path: path)
        let b = ManagedObjectContext(coordinator: second)
        let other = try b.existingObject(with: book.objectID)
        try book.setValue(.integer(301), forKey: "pages")
        try a.save()
        try other.setValue(.integer(302), forKey: "pages")
        let e = expectError { try b.save() }
        XCTAssertEqual(e?.code, ErrorCode.merge)
        let conflict = try XCTUnwrap(e?.conflicts.first)
        XCTAssertNil(conflict.cachedSnapshot)
        XCTAssertEqual(conflict.persistedSnapshot?["pages"], .attribute(.integer(301)))
        XCTAssertEqual(conflict.oldVersionNumber, 1)
        XCTAssertEqual(conflict.newVersionNumber, 2)
        XCTAssertEqual(sqliteRows(path, "SELECT ZPAGES, Z_OPT FROM ZBOOK"), [["301", "2"]])
    }

    func testDeleteAgainstUpdateAndUpdateAgainstDeleteAreConflicts() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.integer(1), forKey: "pages")
        try a.save()
        try b.delete(other)
        XCTAssertEqual(expectError { try b.save() }?.code, ErrorCode.merge)
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK"), [["1"]])

        let (c, d, book2, other2) = try twoContexts()
        try c.delete(book2)
        try c.save()
        try other2.setValue(.integer(5), forKey: "pages")
        let e = expectError { try d.save() }
        XCTAssertEqual(e?.code, ErrorCode.merge)
        XCTAssertEqual(e?.conflicts.first?.newVersionNumber, 0)
        // The row is not brought back.
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZPAGES = 5"), [["0"]])
    }

    /// An SQLite save writes without reading versions first; a row found moved while writing
    /// sends it back to check everything, so every conflict is still reported at once and
    /// nothing of the failed attempt stays in the file.
    func testRowsMovedUnderASaveAreAllReportedAndNothingOfItIsWritten() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        let a = ManagedObjectContext(coordinator: coordinator)
        let books = try (1...3).map { n -> ManagedObject in
            let book = try a.insertObject(entityName: "Book")
            try book.setValue(.string("Book \(n)"), forKey: "title")
            try book.setValue(.integer(Int64(n)), forKey: "pages")
            return book
        }
        try a.save()
        let second = try PersistentStoreCoordinator(model: coordinator.managedObjectModel)
        try second.addPersistentStore(type: StoreType.sqlite, path: path)
        let b = ManagedObjectContext(coordinator: second)
        let theirs = try books.map { try b.existingObject(with: $0.objectID) }
        try theirs.forEach { _ = try $0.value(forKey: "title") }
        // Another coordinator changes the second book and deletes the third.
        try books[1].setValue(.integer(20), forKey: "pages")
        try a.delete(books[2])
        try a.save()
        let before = sqliteRows(path, "SELECT * FROM ZBOOK ORDER BY Z_PK") + sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY")

        // The first book's update would land first; the new book's key is allocated first.
        try theirs[0].setValue(.integer(100), forKey: "pages")
        try theirs[1].setValue(.integer(200), forKey: "pages")
        try theirs[2].setValue(.integer(300), forKey: "pages")
        let extra = try b.insertObject(entityName: "Book")
        try extra.setValue(.string("New"), forKey: "title")
        let e = expectError { try b.save() }
        XCTAssertEqual(e?.code, ErrorCode.merge)
        let conflicts = e?.conflicts ?? []
        XCTAssertEqual(Set(conflicts.map { ObjectIdentifier($0.sourceObject) }), [ObjectIdentifier(theirs[1]), ObjectIdentifier(theirs[2])])
        XCTAssertEqual(conflicts.first { $0.sourceObject === theirs[1] }?.persistedSnapshot?["pages"], .attribute(.integer(20)))
        XCTAssertEqual(conflicts.first { $0.sourceObject === theirs[2] }?.newVersionNumber, 0)
        XCTAssertEqual(sqliteRows(path, "SELECT * FROM ZBOOK ORDER BY Z_PK") + sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY"), before)
        XCTAssertTrue(extra.objectID.isTemporaryID)
        XCTAssertTrue(b.hasChanges)

        // The policy resolves them and the save lands whole: the deleted row stays deleted.
        b.mergePolicy = .mergeByPropertyObjectTrump
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES, Z_OPT FROM ZBOOK ORDER BY Z_PK"),
                       [["Book 1", "100", "2"], ["Book 2", "200", "3"], ["New", "0", "1"]])
    }

    /// A store transaction writes a row with `ifVersion` only while the row is still at that
    /// version: SQLite checks it in the statement, other stores read the version first.
    func testTransactionsWriteAndDeleteOnlyRowsStillAtTheVersionExpected() throws {
        for type in [StoreType.sqlite, StoreType.inMemory, StoreType.binary] {
            directory = try temporaryDirectory()
            let (a, _, book, _) = try twoContexts(type: type)
            let store = try XCTUnwrap(a.persistentStoreCoordinator.persistentStores.first)
            let key = book.objectID.primaryKey
            let row = StoreRowWrite(entity: book.entity, primaryKey: key, version: 2, values: book.entity.properties.map { p in
                p.name == "title" ? .string("Written") : p.name == "pages" ? .integer(9) : .null
            })
            var outcomes: [Bool] = []
            try store.save { tx throws(ObjectGraphError) in
                outcomes.append(try tx.update(row, ifVersion: 7))
                outcomes.append(try tx.delete(entity: book.entity, primaryKey: key, ifVersion: 7))
                outcomes.append(try tx.update(row, ifVersion: 1))
                outcomes.append(try tx.delete(entity: book.entity, primaryKey: key + 1, ifVersion: 1))
            }
            XCTAssertEqual(outcomes, [false, false, true, false], type)
            let c = ManagedObjectContext(coordinator: a.persistentStoreCoordinator)
            c.stalenessInterval = 0
            let read = try c.existingObject(with: book.objectID)
            XCTAssertEqual(try title(read), "Written", type)
            try store.save { tx throws(ObjectGraphError) in
                outcomes = [try tx.delete(entity: book.entity, primaryKey: key, ifVersion: 2)]
            }
            XCTAssertEqual(outcomes, [true], type)
            XCTAssertEqual(try ManagedObjectContext(coordinator: a.persistentStoreCoordinator).count(for: FetchRequest(entityName: "Book")), 0, type)
        }
    }

    func testSavingTheSameObjectTwiceFromOneContextIsNeverAConflict() throws {
        let (a, _, book, _) = try twoContexts()
        for n in 1...5 {
            try book.setValue(.integer(Int64(n)), forKey: "pages")
            try a.save()
        }
        XCTAssertEqual(sqliteRows(path, "SELECT ZPAGES, Z_OPT FROM ZBOOK"), [["5", "6"]])
    }

    func testRule2_9_mergeByPropertyStoreTrump() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.string("Mort II"), forKey: "title")
        try a.save()
        b.mergePolicy = .mergeByPropertyStoreTrump
        try other.setValue(.string("Sourcery"), forKey: "title")  // changed on both sides: the store wins
        try other.setValue(.integer(999), forKey: "pages")        // changed here only: kept
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES, Z_OPT FROM ZBOOK"), [["Mort II", "999", "3"]])
        XCTAssertFalse(b.hasChanges)
    }

    func testRule2_9_mergeByPropertyObjectTrump() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.string("Mort II"), forKey: "title")
        try book.setValue(.integer(111), forKey: "pages")
        try a.save()
        b.mergePolicy = .mergeByPropertyObjectTrump
        try other.setValue(.string("Sourcery"), forKey: "title")  // both: the object wins
        try b.save()
        // pages changed only in the store: the store's value stays.
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK"), [["Sourcery", "111"]])
    }

    func testRule2_9_overwriteWritesTheWholeObject() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.string("Mort II"), forKey: "title")
        try book.setValue(.integer(111), forKey: "pages")
        try a.save()
        b.mergePolicy = .overwrite
        try other.setValue(.string("Sourcery"), forKey: "title")
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK"), [["Sourcery", "300"]])
    }

    func testRule2_9_rollbackDropsTheObjectsChangesAndSavesTheOthers() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.string("Mort II"), forKey: "title")
        try a.save()
        b.mergePolicy = .rollback
        var events: [SnapshotEvents] = []
        var hooks = ObjectHooks()
        hooks.awakeFromSnapshotEvents = { _, e in events.append(e) }
        try b.setHooks(hooks, forEntityName: "Book")
        try other.setValue(.string("Sourcery"), forKey: "title")
        let fresh = try b.insertObject(entityName: "Book")
        try fresh.setValue(.string("Eric"), forKey: "title")
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE FROM ZBOOK ORDER BY Z_PK"), [["Mort II"], ["Eric"]])
        XCTAssertEqual(try title(other), "Mort II")
        XCTAssertTrue(try other.changedValues().isEmpty)
        XCTAssertEqual(events, [.mergePolicy])
    }

    func testErrorPolicyLeavesTheStoreByteForByte() throws {
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.integer(7), forKey: "pages")
        try a.save()
        a.persistentStoreCoordinator.persistentStores.forEach { _ in }
        let before = sqliteRows(path, "SELECT * FROM ZBOOK") + sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY")
        try other.setValue(.integer(8), forKey: "pages")
        let extra = try b.insertObject(entityName: "Book")
        try extra.setValue(.string("Not written"), forKey: "title")
        XCTAssertNotNil(expectError { try b.save() })
        XCTAssertEqual(sqliteRows(path, "SELECT * FROM ZBOOK") + sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY"), before)
        XCTAssertTrue(extra.isInserted)
        XCTAssertTrue(extra.objectID.isTemporaryID)
    }

    func testOfTwoRacingSavesExactlyOneSucceeds() throws {
        let (a, b, book, other) = try twoContexts()
        let queueA = ManagedObjectContext(coordinator: a.persistentStoreCoordinator, concurrencyType: .privateQueue)
        let queueB = ManagedObjectContext(coordinator: b.persistentStoreCoordinator, concurrencyType: .privateQueue)
        _ = (book, other)
        let id = book.objectID
        for round in 0..<20 {
            let results = Mutex2()
            let group = DispatchGroup()
            for (i, ctx) in [queueA, queueB].enumerated() {
                group.enter()
                try ctx.perform {
                    defer { group.leave() }
                    do {
                        try ctx.refresh(try ctx.existingObject(with: id), mergeChanges: false)
                        try ctx.existingObject(with: id).setValue(.integer(Int64(round * 10 + i)), forKey: "pages")
                    } catch { return }
                }
            }
            group.wait()
            for ctx in [queueA, queueB] {
                group.enter()
                try ctx.perform {
                    defer { group.leave() }
                    do { try ctx.save(); results.add(true) } catch { results.add(false); try? ctx.rollback() }
                }
            }
            group.wait()
            XCTAssertEqual(results.successes, 1, "round \(round)")
        }
    }

    func testACustomPolicyResolvesTheConflicts() throws {
        final class KeepLongerTitle: MergePolicy, @unchecked Sendable {
            var seen = 0
            override func resolve(optimisticLockingConflicts conflicts: [MergeConflict]) throws(ObjectGraphError) {
                seen += conflicts.count
                try MergePolicy.mergeByPropertyObjectTrump.resolve(optimisticLockingConflicts: conflicts)
            }
        }
        let (a, b, book, other) = try twoContexts()
        try book.setValue(.integer(2), forKey: "pages")
        try a.save()
        let policy = KeepLongerTitle(mergeType: .mergeByPropertyObjectTrump)
        b.mergePolicy = policy
        try other.setValue(.string("Sourcery"), forKey: "title")
        try b.save()
        XCTAssertEqual(policy.seen, 1)
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK"), [["Sourcery", "2"]])
    }
}

/// Counts the outcomes of racing saves.
final class Mutex2: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Bool] = []
    func add(_ ok: Bool) { lock.lock(); outcomes.append(ok); lock.unlock() }
    var successes: Int { lock.lock(); defer { lock.unlock() }; return outcomes.filter { $0 }.count }
}
