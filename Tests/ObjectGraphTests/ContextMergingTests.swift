import Foundation
import ObjectGraph
import XCTest

/// Merging saves between contexts, automatic merging, staleness and refreshing everything
/// (§2.10 rules 4 and 5; issue "Many contexts", items 3 and 4): `ContextMerging.swift`
/// and `RowCache.swift`.
final class ContextMergingTests: XCTestCase {
    var path = ""

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/merging.sqlite"
    }

    func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext, ManagedObject) {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        let a = ManagedObjectContext(coordinator: coordinator)
        let book = try a.insertObject(entityName: "Book")
        try book.setValue(.string("Mort"), forKey: "title")
        try book.setValue(.integer(300), forKey: "pages")
        try a.save()
        return (coordinator, a, book)
    }

    func int(_ o: ManagedObject, _ key: String) throws -> Int64? {
        if case .integer(let n) = try o.value(forKey: key) { return n }
        return nil
    }

    func string(_ o: ManagedObject, _ key: String) throws -> String? {
        if case .string(let s) = try o.value(forKey: key) { return s }
        return nil
    }

    func testRule2_10_5_mergingADidSaveRefreshesKeepsLocalEditsDeletesAndInserts() throws {
        let (coordinator, a, book) = try stack()
        let doomed = try a.insertObject(entityName: "Book")
        try doomed.setValue(.string("Doomed"), forKey: "title")
        try a.save()
        let b = ManagedObjectContext(coordinator: coordinator)
        let other = try b.existingObject(with: book.objectID)
        let otherDoomed = try b.existingObject(with: doomed.objectID)
        try other.setValue(.string("Local"), forKey: "title")
        var saved: ContextNotification?
        a.addObserver(for: .didSave) { saved = $0 }
        var changed: [ContextNotification] = []
        b.addObserver(for: .objectsDidChange) { changed.append($0) }
        try book.setValue(.integer(42), forKey: "pages")
        try a.delete(doomed)
        let fresh = try a.insertObject(entityName: "Book")
        try fresh.setValue(.string("Eric"), forKey: "title")
        try a.save()
        let n = try XCTUnwrap(saved)
        XCTAssertEqual(n.changes?.updated, [book.objectID])
        XCTAssertEqual(n.changes?.deleted, [doomed.objectID])
        try b.mergeChanges(fromContextDidSave: n)
        XCTAssertEqual(try int(other, "pages"), 42)
        XCTAssertEqual(try string(other, "title"), "Local")
        XCTAssertTrue(other.isUpdated)
        XCTAssertTrue(otherDoomed.isDeleted)
        XCTAssertEqual(try string(otherDoomed, "title"), "Doomed")  // its last values
        XCTAssertFalse(b.deletedObjects.contains { $0 === otherDoomed })
        let titles = try b.fetch(FetchRequest(entityName: "Book")).compactMap { try string($0, "title") }.sorted()
        XCTAssertEqual(titles, ["Eric", "Local"])
        XCTAssertEqual(changed.count, 1)
        XCTAssertTrue(changed.first?.updated.contains { $0 === other } ?? false)
        XCTAssertTrue(changed.first?.deleted.contains { $0 === otherDoomed } ?? false)
        XCTAssertEqual(changed.first?.inserted.count, 1)
        // After the merge, saving the local edit is no conflict.
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK WHERE Z_PK = \(book.objectID.primaryKey)"), [["Local", "42"]])
    }

    func testMergingOnAnotherThreadThroughObjectIDs() throws {
        let (coordinator, a, book) = try stack()
        let q = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
        let id = book.objectID
        let held = try q.performAndWait { try? q.existingObject(with: id) }
        XCTAssertNotNil(held)
        var changes: SavedChanges?
        a.addObserver(for: .didSave) { changes = $0.changes }
        try book.setValue(.integer(9), forKey: "pages")
        try a.save()
        let sendable = try XCTUnwrap(changes)
        XCTAssertEqual(expectError { try q.mergeChanges(from: sendable) }?.code, ErrorCode.wrongThread)
        let pages = try q.performAndWait { () -> Int64? in
            try? q.mergeChanges(from: sendable)
            return try? self.int(held!, "pages")
        }
        XCTAssertEqual(pages, 9)
    }

    func testMergingChangesOfAnotherCoordinatorIsRefusedAndRemoteMergesWork() throws {
        let (coordinator, a, book) = try stack()
        let second = try PersistentStoreCoordinator(model: coordinator.managedObjectModel)
        try second.addPersistentStore(type: StoreType.sqlite, path: path)
        let far = ManagedObjectContext(coordinator: second)
        let farBook = try far.existingObject(with: book.objectID)
        var saved: ContextNotification?
        a.addObserver(for: .didSave) { saved = $0 }
        try book.setValue(.integer(77), forKey: "pages")
        try a.save()
        XCTAssertEqual(expectError { try far.mergeChanges(fromContextDidSave: saved!) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try far.mergeChanges(fromContextDidSave: ContextNotification.willSave(of: a)) }?.code, ErrorCode.invalidArgument)
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: SavedChanges(updated: [book.objectID]), into: [far])
        XCTAssertEqual(try int(farBook, "pages"), 77)
    }

    func testAutomaticMergingBetweenRootContextsOfOneCoordinator() throws {
        let (coordinator, a, book) = try stack()
        let b = ManagedObjectContext(coordinator: coordinator)
        b.automaticallyMergesChangesFromParent = true
        let other = try b.existingObject(with: book.objectID)
        try book.setValue(.integer(5), forKey: "pages")
        try a.save()
        XCTAssertEqual(try int(other, "pages"), 5)

        // A queue context merges on its queue.
        let q = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
        try q.performAndWait { q.automaticallyMergesChangesFromParent = true }
        let id = book.objectID
        let held = try q.performAndWait { try? q.existingObject(with: id) }
        try book.setValue(.integer(6), forKey: "pages")
        try a.save()
        let seen = try q.performAndWait { try? self.int(held!, "pages") }
        XCTAssertEqual(seen, 6)
    }

    func testRule2_10_4_stalenessIntervalDecidesWhetherACachedRowIsUsed() throws {
        let (coordinator, _, book) = try stack()
        let b = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(b.stalenessInterval, -1)
        let other = try b.existingObject(with: book.objectID)  // the row is now in the coordinator's cache
        // Another coordinator (another process, as far as this one knows) changes the row.
        let second = try PersistentStoreCoordinator(model: coordinator.managedObjectModel)
        try second.addPersistentStore(type: StoreType.sqlite, path: path)
        let far = ManagedObjectContext(coordinator: second)
        try far.existingObject(with: book.objectID).setValue(.integer(1), forKey: "pages")
        try far.save()
        // Infinite: refreshing reuses the cached row.
        try b.refresh(other, mergeChanges: false)
        XCTAssertEqual(try int(other, "pages"), 300)
        // Positive and young enough: still the cached row.
        b.stalenessInterval = 3600
        try b.refresh(other, mergeChanges: false)
        XCTAssertEqual(try int(other, "pages"), 300)
        // Zero: always the store.
        b.stalenessInterval = 0
        try b.refresh(other, mergeChanges: false)
        XCTAssertEqual(try int(other, "pages"), 1)
    }

    func testRefreshAllObjectsKeepsUnsavedChanges() throws {
        let (coordinator, _, book) = try stack()
        let b = ManagedObjectContext(coordinator: coordinator)
        b.stalenessInterval = 0
        let other = try b.existingObject(with: book.objectID)
        try other.setValue(.string("Kept"), forKey: "title")
        let second = try PersistentStoreCoordinator(model: coordinator.managedObjectModel)
        try second.addPersistentStore(type: StoreType.sqlite, path: path)
        let far = ManagedObjectContext(coordinator: second)
        try far.existingObject(with: book.objectID).setValue(.integer(2), forKey: "pages")
        try far.save()
        try b.refreshAllObjects()
        XCTAssertEqual(try int(other, "pages"), 2)
        XCTAssertEqual(try string(other, "title"), "Kept")
        // The refreshed object carries the new version: its save is no conflict.
        try b.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE, ZPAGES, Z_OPT FROM ZBOOK"), [["Kept", "2", "3"]])
    }
}

extension ContextNotification {
    /// A will-save notification, which carries no changes.
    static func willSave(of context: ManagedObjectContext) -> ContextNotification {
        var captured: ContextNotification?
        let token = context.addObserver(for: .willSave) { captured = $0 }
        defer { context.removeObserver(token) }
        let o = try? context.insertObject(entityName: "Author")
        try? o?.setValue(.string("x"), forKey: "name")
        try? context.save()
        return captured!
    }
}
