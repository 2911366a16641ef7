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
