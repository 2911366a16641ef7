import Foundation
import ObjectGraph
import XCTest

/// Nested contexts (§2.15; issue "Many contexts", item 5): `ContextParent.swift`.
final class ContextParentTests: XCTestCase {
    var path = ""

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/nested.sqlite"
    }

    /// A root over a store holding one author ("Ann") with one book ("Mort").
    func root() throws -> (ManagedObjectContext, ManagedObject, ManagedObject) {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        let root = ManagedObjectContext(coordinator: coordinator)
        let ann = try root.insertObject(entityName: "Author")
        try ann.setValue(.string("Ann"), forKey: "name")
        let mort = try root.insertObject(entityName: "Book")
        try mort.setValue(.string("Mort"), forKey: "title")
        try mort.setObject(ann, forKey: "author")
        try root.save()
        return (root, ann, mort)
    }

    func string(_ o: ManagedObject, _ key: String) throws -> String? {
        if case .string(let s) = try o.value(forKey: key) { return s }
        return nil
    }

    func storeTitles() -> [String] { sqliteRows(path, "SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE").map { $0[0] } }

    func testRule2_15_3_aChildSavePushesIntoTheParentOnly() throws {
        let (root, ann, mort) = try root()
        let child = ManagedObjectContext(parent: root)
        XCTAssertTrue(child.parentContext === root)
        let childMort = try child.existingObject(with: mort.objectID)
        try childMort.setValue(.string("Mort (revised)"), forKey: "title")
        let eric = try child.insertObject(entityName: "Book")
        try eric.setValue(.string("Eric"), forKey: "title")
        try eric.setObject(try child.existingObject(with: ann.objectID), forKey: "author")
        try child.save()
        XCTAssertFalse(child.hasChanges)
        XCTAssertTrue(root.hasChanges)
        XCTAssertEqual(try string(mort, "title"), "Mort (revised)")
        XCTAssertEqual(root.insertedObjects.count, 1)
        XCTAssertEqual(storeTitles(), ["Mort"])  // nothing on disk yet
        // New objects keep temporary IDs until the root saves.
        XCTAssertTrue(eric.objectID.isTemporaryID)
        XCTAssertTrue(root.insertedObjects[0].objectID == eric.objectID)
        XCTAssertEqual(try ann.objects(forKey: "books").count, 2)
        try root.save()
        XCTAssertEqual(storeTitles(), ["Eric", "Mort (revised)"])
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZAUTHOR IS NOT NULL"), [["2"]])
        // The child's object still answers under its temporary ID, through the parent.
        XCTAssertEqual(try string(eric, "title"), "Eric")
    }

    /// Ties (no sort keys, or equal values) go to stored rows by primary key, then to
    /// objects not saved yet in the order they were made: the same in a child as in its
    /// parent, for objects and for object IDs.
    func testAChildOrdersItsParentsUnsavedObjectsAsTheParentDoes() throws {
        let (root, _, _) = try root()
        let pyramids = try root.insertObject(entityName: "Book")
        try pyramids.setValue(.string("Pyramids"), forKey: "title")
        let child = ManagedObjectContext(parent: root)
        let eric = try child.insertObject(entityName: "Book")
        try eric.setValue(.string("Eric"), forKey: "title")
        for request in [FetchRequest(entityName: "Book"), FetchRequest(entityName: "Book", sortKeys: [SortKey("pages"), SortKey("inPrint", ascending: false)])] {
            XCTAssertEqual(try root.fetch(request).map { try string($0, "title") }, ["Mort", "Pyramids"])
            XCTAssertEqual(try child.fetch(request).map { try string($0, "title") }, ["Mort", "Pyramids", "Eric"])
            XCTAssertEqual(try child.fetchObjectIDs(request), try child.fetch(request).map(\.objectID))
            let window = request.copy()
            window.fetchOffset = 1
            window.fetchLimit = 1
            XCTAssertEqual(try child.fetch(window).map { try string($0, "title") }, ["Pyramids"])
            XCTAssertEqual(try child.count(for: window), 1)
        }
    }

    func testRule2_15_2_childFetchesSeeTheParentsUnsavedChangesUnderTheirOwn() throws {
        let (root, ann, mort) = try root()
        try mort.setValue(.string("Parent title"), forKey: "title")
        let parentOnly = try root.insertObject(entityName: "Book")
        try parentOnly.setValue(.string("Parent book"), forKey: "title")
        try parentOnly.setObject(ann, forKey: "author")
        let child = ManagedObjectContext(parent: root)
        let childNew = try child.insertObject(entityName: "Book")
        try childNew.setValue(.string("Child book"), forKey: "title")
        let request = FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])
        let titles = try child.fetch(request).compactMap { try string($0, "title") }
        XCTAssertEqual(titles, ["Child book", "Parent book", "Parent title"])
        // Relationships follow the parent too.
        let childAnn = try child.existingObject(with: ann.objectID)
        let names = try childAnn.objects(forKey: "books").compactMap { try string($0, "title") }.sorted()
        XCTAssertEqual(names, ["Parent book", "Parent title"])
        let parentsBook = try XCTUnwrap(try child.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Parent book'"))).first)
        XCTAssertTrue(parentsBook.objectID.isTemporaryID)
        XCTAssertTrue(try parentsBook.object(forKey: "author") === childAnn)
        XCTAssertEqual(try child.count(for: request), 3)
        XCTAssertEqual(try child.fetchObjectIDs(request).count, 3)
        // The child's own change hides the parent's object from a fetch that no longer matches.
        try parentsBook.setValue(.string("Renamed in child"), forKey: "title")
        let matching = try child.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH 'Parent'")))
        XCTAssertEqual(try matching.compactMap { try string($0, "title") }, ["Parent title"])
    }

    func testRollbackAndResetInAChildLeaveTheParentAlone() throws {
        let (root, _, mort) = try root()
        let child = ManagedObjectContext(parent: root)
        let childMort = try child.existingObject(with: mort.objectID)
        try childMort.setValue(.string("Child edit"), forKey: "title")
        try child.rollback()
        XCTAssertEqual(try string(childMort, "title"), "Mort")
        try childMort.setValue(.string("Child edit"), forKey: "title")
        try child.reset()
        XCTAssertFalse(root.hasChanges)
        XCTAssertEqual(try string(mort, "title"), "Mort")
    }

    func testDeletesFlowUpTheChain() throws {
        let (root, ann, mort) = try root()
        let child = ManagedObjectContext(parent: root)
        try child.delete(try child.existingObject(with: mort.objectID))
        try child.save()
        XCTAssertTrue(mort.isDeleted)
        XCTAssertEqual(try ann.objects(forKey: "books").count, 0)
        try root.save()
        XCTAssertEqual(storeTitles(), [])
    }

    func testThreeLevelsAndAQueueChildOfAQueueParent() throws {
        let (root, _, mort) = try root()
        let middle = ManagedObjectContext(parent: root, concurrencyType: .privateQueue)
        let leaf = ManagedObjectContext(parent: middle, concurrencyType: .privateQueue)
        let id = mort.objectID
        let ok = try leaf.performAndWait { () -> Bool in
            guard let o = try? leaf.existingObject(with: id) else { return false }
            try? o.setValue(.string("From the leaf"), forKey: "title")
            return (try? leaf.save()) != nil
        }
        XCTAssertTrue(ok)
        XCTAssertEqual(try string(mort, "title"), "Mort")  // the middle holds it
        let pushed = try middle.performAndWait { (try? middle.save()) != nil }
        XCTAssertTrue(pushed)
        XCTAssertEqual(try string(mort, "title"), "From the leaf")
        try root.save()
        XCTAssertEqual(storeTitles(), ["From the leaf"])
    }

    func testConflictsAreRaisedWhenTheRootSaves() throws {
        let (root, _, mort) = try root()
        let child = ManagedObjectContext(parent: root)
        try child.existingObject(with: mort.objectID).setValue(.string("Child"), forKey: "title")
        // Another context of the coordinator changes the row meanwhile.
        let other = ManagedObjectContext(coordinator: root.persistentStoreCoordinator)
        try other.existingObject(with: mort.objectID).setValue(.string("Other"), forKey: "title")
        try other.save()
        try child.save()  // into the parent: no conflict yet
        XCTAssertEqual(expectError { try root.save() }?.code, ErrorCode.merge)
        root.mergePolicy = .mergeByPropertyObjectTrump
        try root.save()
        XCTAssertEqual(storeTitles(), ["Child"])
    }

    func testObtainingPermanentIDsFromAChild() throws {
        let (root, _, _) = try root()
        let child = ManagedObjectContext(parent: root)
        let book = try child.insertObject(entityName: "Book")
        try book.setValue(.string("Early"), forKey: "title")
        try child.obtainPermanentIDs(for: [book])
        XCTAssertFalse(book.objectID.isTemporaryID)
        try child.save()
        XCTAssertTrue(root.insertedObjects.first?.objectID == book.objectID)
        try root.save()
        XCTAssertEqual(sqliteRows(path, "SELECT Z_PK FROM ZBOOK WHERE ZTITLE = 'Early'"), [["\(book.objectID.primaryKey)"]])
    }

    func testAChildMergesItsParentsSavesAutomatically() throws {
        let (root, _, mort) = try root()
        let child = ManagedObjectContext(parent: root)
        child.automaticallyMergesChangesFromParent = true
        let childMort = try child.existingObject(with: mort.objectID)
        XCTAssertEqual(try string(childMort, "title"), "Mort")
        try mort.setValue(.string("Saved by the root"), forKey: "title")
        try root.save()
        XCTAssertEqual(try string(childMort, "title"), "Saved by the root")
    }

    func testAConfinementParentUsedFromAnotherThreadIsAnError() throws {
        let (root, _, mort) = try root()
        let child = ManagedObjectContext(parent: root, concurrencyType: .privateQueue)
        let id = mort.objectID
        // perform runs the block on a queue thread, not this one (performAndWait may run it here).
        let done = DispatchSemaphore(value: 0)
        let result = Mutex2()
        nonisolated(unsafe) var code: Int?
        try child.perform {
            do { _ = try child.existingObject(with: id) } catch { code = (error as? ObjectGraphError)?.code }
            result.add(true)
            done.signal()
        }
        done.wait()
        XCTAssertEqual(code, ErrorCode.wrongThread)
    }
}
