import Foundation
import ObjectGraph
import XCTest

/// Undo and redo (§2.17) and what an event is (issue "Undo and redo"): `ObjectUndoManager.swift`,
/// `ContextUndo.swift` and `ContextQueue.swift`.
final class ContextUndoTests: XCTestCase {
    var path = ""

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/undo.sqlite"
    }

    func context() throws -> (ManagedObjectContext, ObjectUndoManager) {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        let ctx = ManagedObjectContext(coordinator: coordinator)
        XCTAssertNil(ctx.undoManager)  // DESIGN §10: none until one is set
        let manager = ObjectUndoManager()
        ctx.undoManager = manager
        return (ctx, manager)
    }

    func title(_ o: ManagedObject) throws -> String? {
        if case .string(let s) = try o.value(forKey: "title") { return s }
        return nil
    }

    func count(_ ctx: ManagedObjectContext, _ entity: String = "Book") throws -> Int {
        try ctx.count(for: FetchRequest(entityName: entity))
    }

    // MARK: The manager

    func testManagerGroupsNestAndEndingWithoutAGroupIsAnError() throws {
        let m = ObjectUndoManager()
        XCTAssertTrue(m.groupsByEvent)
        XCTAssertEqual(m.levelsOfUndo, 0)
        XCTAssertFalse(m.canUndo)
        XCTAssertFalse(m.canRedo)
        XCTAssertEqual(expectError { try m.endUndoGrouping() }?.code, ErrorCode.invalidArgument)
        m.beginUndoGrouping()
        m.beginUndoGrouping()
        XCTAssertEqual(m.groupingLevel, 2)
        XCTAssertEqual(expectError { try m.undo() }?.code, ErrorCode.invalidArgument)  // nested groups open
        try m.endUndoGrouping()
        try m.endUndoGrouping()
        XCTAssertEqual(m.groupingLevel, 0)
        XCTAssertFalse(m.canUndo)  // empty groups leave nothing to undo
        m.disableUndoRegistration()
        m.disableUndoRegistration()
        try m.enableUndoRegistration()
        XCTAssertFalse(m.isUndoRegistrationEnabled)
        try m.enableUndoRegistration()
        XCTAssertTrue(m.isUndoRegistrationEnabled)
        XCTAssertEqual(expectError { try m.enableUndoRegistration() }?.code, ErrorCode.invalidArgument)
        try m.undo()  // nothing to undo: nothing happens
    }

    // MARK: Rule 1: changes are registered per event

    func testRule2_17_1_eachProcessPendingChangesClosesOneGroup() throws {
        let (ctx, manager) = try context()
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string("One"), forKey: "title")
        try ctx.processPendingChanges()
        try book.setValue(.string("Two"), forKey: "title")
        try ctx.processPendingChanges()
        XCTAssertTrue(manager.canUndo)
        try ctx.undo()
        XCTAssertEqual(try title(book), "One")
        try ctx.undo()
        XCTAssertTrue(book.isInserted == false && book.managedObjectContext == nil)
        XCTAssertEqual(try count(ctx), 0)
        XCTAssertFalse(manager.canUndo)
        try ctx.redo()
        XCTAssertTrue(book.managedObjectContext === ctx && book.isInserted)
        XCTAssertEqual(try title(book), "One")
        try ctx.redo()
        XCTAssertEqual(try title(book), "Two")
        XCTAssertFalse(manager.canRedo)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE FROM ZBOOK"), [["Two"]])
    }

    func testExplicitGroupsWithoutGroupingByEvent() throws {
        let (ctx, manager) = try context()
        manager.groupsByEvent = false
        let book = try ctx.insertObject(entityName: "Book")
        try ctx.processPendingChanges()
        XCTAssertFalse(manager.canUndo)  // nothing open: not recorded
        manager.beginUndoGrouping()
        try book.setValue(.string("A"), forKey: "title")
        try ctx.processPendingChanges()
        try book.setValue(.string("B"), forKey: "title")
        try ctx.processPendingChanges()
        manager.setActionName("Rename")
        try manager.endUndoGrouping()
        XCTAssertEqual(manager.undoActionName, "Rename")
        try ctx.undo()
        XCTAssertEqual(try title(book), "Untitled")  // both changes were one group
        XCTAssertEqual(manager.redoActionName, "Rename")
    }

    func testLevelsOfUndoDropTheOldestGroups() throws {
        let (ctx, manager) = try context()
        manager.levelsOfUndo = 2
        let book = try ctx.insertObject(entityName: "Book")
        for t in ["a", "b", "c", "d"] {
            try book.setValue(.string(t), forKey: "title")
            try ctx.processPendingChanges()
        }
        try ctx.undo()
        try ctx.undo()
        XCTAssertEqual(try title(book), "b")
        XCTAssertFalse(manager.canUndo)
    }

    // MARK: Rule 2: what undo reverses

    func testRule2_17_2_relationshipChangesOnBothSidesAndOrderedEdits() throws {
        let (ctx, _) = try context()
        let ann = try ctx.insertObject(entityName: "Author")
        try ann.setValue(.string("Ann"), forKey: "name")
        let bob = try ctx.insertObject(entityName: "Author")
        try bob.setValue(.string("Bob"), forKey: "name")
        let book = try ctx.insertObject(entityName: "Book")
        try book.setObject(ann, forKey: "author")
        try ctx.save()
        try ctx.processPendingChanges()
        try bob.addObject(book, forKey: "books")
        try ctx.processPendingChanges()
        XCTAssertTrue(try book.object(forKey: "author") === bob)
        XCTAssertEqual(try ann.objects(forKey: "books").count, 0)
        try ctx.undo()
        XCTAssertTrue(try book.object(forKey: "author") === ann)
        XCTAssertEqual(try ann.objects(forKey: "books").count, 1)
        XCTAssertEqual(try bob.objects(forKey: "books").count, 0)
        try ctx.redo()
        XCTAssertTrue(try book.object(forKey: "author") === bob)
        XCTAssertTrue(try bob.objects(forKey: "books").first === book)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK b JOIN ZAUTHOR a ON b.ZAUTHOR = a.Z_PK WHERE a.ZNAME = 'Bob'"), [["1"]])
    }

    func testRule2_17_2_undoingADeleteSavedOrNotBringsTheObjectBack() throws {
        let (ctx, manager) = try context()
        let ann = try ctx.insertObject(entityName: "Author")
        try ann.setValue(.string("Ann"), forKey: "name")
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string("Mort"), forKey: "title")
        try book.setObject(ann, forKey: "author")
        try ctx.save()
        manager.removeAllActions()
        // Unsaved delete (the cascade takes the book).
        try ctx.delete(ann)
        try ctx.processPendingChanges()
        XCTAssertTrue(book.isDeleted)
        try ctx.undo()
        XCTAssertFalse(ann.isDeleted)
        XCTAssertFalse(book.isDeleted)
        XCTAssertTrue(try book.object(forKey: "author") === ann)
        XCTAssertFalse(ctx.hasChanges)
        // Saved delete: undone, the object is new again and the next save writes it back.
        try ctx.delete(ann)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZAUTHOR"), [["0"]])
        try ctx.undo()
        XCTAssertTrue(ann.managedObjectContext === ctx)
        XCTAssertTrue(ann.isInserted && book.isInserted)
        XCTAssertEqual(try ann.value(forKey: "name"), .string("Ann"))
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZNAME FROM ZAUTHOR"), [["Ann"]])
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE FROM ZBOOK"), [["Mort"]])
    }

    func testUndoingASavedChangeLeavesTheObjectUpdated() throws {
        let (ctx, _) = try context()
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string("First"), forKey: "title")
        try ctx.save()
        try book.setValue(.string("Second"), forKey: "title")
        try ctx.save()  // a save does not empty the stack
        try ctx.undo()
        XCTAssertEqual(try title(book), "First")
        XCTAssertTrue(ctx.updatedObjects.contains { $0 === book })
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZTITLE FROM ZBOOK"), [["First"]])
    }

    func testFiringAFaultRegistersNothingAndRollbackAndResetEmptyTheStack() throws {
        let (ctx, manager) = try context()
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string("Mort"), forKey: "title")
        try ctx.save()
        manager.removeAllActions()
        let other = ManagedObjectContext(coordinator: ctx.persistentStoreCoordinator)
        other.undoManager = manager
        let fetched = try other.fetch(FetchRequest(entityName: "Book"))
        XCTAssertEqual(try title(fetched[0]), "Mort")
        try other.processPendingChanges()
        XCTAssertFalse(manager.canUndo)
        try fetched[0].setValue(.string("x"), forKey: "title")
        try other.processPendingChanges()
        XCTAssertTrue(manager.canUndo)
        try other.rollback()
        XCTAssertFalse(manager.canUndo)
        try fetched[0].setValue(.string("y"), forKey: "title")
        try other.processPendingChanges()
        try other.reset()
        XCTAssertFalse(manager.canUndo)
    }

    func testUndoAndRedoPostObjectsDidChangeAndSnapshotEvents() throws {
        let (ctx, _) = try context()
        var events: [SnapshotEvents] = []
        var hooks = ObjectHooks()
        hooks.awakeFromSnapshotEvents = { _, e in events.append(e) }
        try ctx.setHooks(hooks, forEntityName: "Book")
        let book = try ctx.insertObject(entityName: "Book")
        try ctx.save()
        try book.setValue(.string("Changed"), forKey: "title")
        try ctx.processPendingChanges()
        var notes: [ContextNotification] = []
        ctx.addObserver(for: .objectsDidChange) { notes.append($0) }
        try ctx.undo()
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(notes.first?.updated.contains { $0 === book } ?? false)
        XCTAssertEqual(events, [.undoUpdate])
        try ctx.redo()
        XCTAssertEqual(notes.count, 2)
    }

    // MARK: Events and perform

    func testAPerformBlockIsOneEventAndPerformAndWaitIsNot() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
        let q = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
        let manager = ObjectUndoManager()
        let changes = Mutex2()
        try q.performAndWait {
            q.undoManager = manager
            q.addObserver(for: .objectsDidChange) { _ in changes.add(true) }
        }
        try q.performAndWait { _ = try q.insertObject(entityName: "Book") }
        XCTAssertEqual(changes.successes, 0)  // not an event boundary
        let done = DispatchSemaphore(value: 0)
        try q.perform {
            _ = try? q.insertObject(entityName: "Book")
            done.signal()
        }
        done.wait()
        try q.performAndWait {}
        XCTAssertEqual(changes.successes, 1)  // the perform block's end posted both inserts
        let groups = try q.performAndWait { () -> Int in
            var n = 0
            while manager.canUndo { try q.undo(); n += 1 }
            return n
        }
        XCTAssertEqual(groups, 1)
    }

    func testAConfinementContextRefusesPerformAndDoesNotRunTheBlock() throws {
        let (ctx, _) = try context()
        nonisolated(unsafe) var ran = false
        XCTAssertEqual(expectError { try ctx.perform { ran = true } }?.code, ErrorCode.invalidArgument)
        do {
            _ = try ctx.performAndWait { ran = true }
            XCTFail("expected an error")
        } catch let e as ObjectGraphError {
            XCTAssertEqual(e.code, ErrorCode.invalidArgument)
        }
        XCTAssertFalse(ran)
    }

    func testAsyncPerformReturnsTheBlocksValue() async throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
        let q = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
        let n = try await q.perform { () -> Int in
            let book = try q.insertObject(entityName: "Book")
            try book.setValue(.string("Async"), forKey: "title")
            try q.save()
            return try q.count(for: FetchRequest(entityName: "Book"))
        }
        XCTAssertEqual(n, 1)
        do {
            _ = try await q.perform { () throws -> Int in throw ObjectGraphError.invalidArgument("from the block") }
            XCTFail("expected the block's error")
        } catch let e as ObjectGraphError {
            XCTAssertTrue(e.message.contains("from the block"))
        }
        let confined = ManagedObjectContext(coordinator: coordinator)
        do {
            _ = try await confined.perform { 1 }
            XCTFail("expected an error")
        } catch let e as ObjectGraphError {
            XCTAssertEqual(e.code, ErrorCode.invalidArgument)
        }
    }

    func testUndoFromTheWrongThreadChangesNothing() throws {
        let (ctx, manager) = try context()
        let book = try ctx.insertObject(entityName: "Book")
        try book.setValue(.string("Kept"), forKey: "title")
        try ctx.processPendingChanges()
        let result = Mutex2()
        nonisolated(unsafe) var code: Int?
        let t = Thread {
            do { try manager.undo() } catch { code = (error as? ObjectGraphError)?.code }
            result.add(true)
        }
        t.start()
        while result.successes == 0 { usleep(1000) }
        XCTAssertEqual(code, ErrorCode.wrongThread)
        XCTAssertEqual(try title(book), "Kept")
        XCTAssertTrue(manager.canUndo)
    }
}
