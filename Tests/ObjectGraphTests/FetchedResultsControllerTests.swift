import Foundation
import ObjectGraph
import XCTest

/// The fetched results controller (`FetchedResultsController.swift`): sections, lookups,
/// and the delegate's callbacks as the context changes.
final class FetchedResultsControllerTests: XCTestCase {
    /// Tasks: a title, a list (the section) and a rank (the order within it).
    func makeStack(type: String = StoreType.sqlite) throws -> Stack {
        let model = ManagedObjectModel()
        let task = try model.addEntity(named: "Task")
        try task.addAttribute(named: "title", type: .string)
        try task.addAttribute(named: "list", type: .string)
        try task.addAttribute(named: "rank", type: .integer64, defaultValue: 0)
        try task.addAttribute(named: "done", type: .boolean, defaultValue: false)
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "text", type: .string)
        return try Stack(model: model, path: try temporaryDirectory() + "/tasks.sqlite", type: type)
    }

    @discardableResult
    func task(_ context: ManagedObjectContext, _ title: String, _ list: String, _ rank: Int64) throws -> ManagedObject {
        let t = try context.insertObject(entityName: "Task")
        try t.setValue(.string(title), forKey: "title")
        try t.setValue(.string(list), forKey: "list")
        try t.setValue(.integer(rank), forKey: "rank")
        return t
    }

    /// Home: Dishes (1), Laundry (2); Work: Email (1), Report (2), Slides (3).
    func seeded() throws -> Stack {
        let stack = try makeStack()
        for (title, list, rank) in [("Report", "Work", 2), ("Dishes", "Home", 1), ("Email", "Work", 1), ("Laundry", "Home", 2), ("Slides", "Work", 3)] {
            try task(stack.context, title, list, Int64(rank))
        }
        try stack.context.save()
        return stack
    }

    func byList(_ context: ManagedObjectContext, predicate: String? = nil) throws -> FetchedResultsController {
        let request = FetchRequest(entityName: "Task", predicate: try predicate.map { try ObjectPredicate(format: $0) },
                                   sortKeys: [SortKey("list"), SortKey("rank")])
        return try FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "list")
    }

    /// Writes down every callback as text: "will", "insert [0, 1] Email", "section insert 1 Work", "did".
    final class Seen: @unchecked Sendable {
        var callsInsideTheBlock: [String]?
    }

    final class Recorder: FetchedResultsControllerDelegate, @unchecked Sendable {
        var calls: [String] = []
        var onObject: ((FetchedResultsController) -> Void)?

        func controllerWillChangeContent(_ controller: FetchedResultsController) { calls.append("will") }
        func controllerDidChangeContent(_ controller: FetchedResultsController) { calls.append("did") }
        func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsSection,
                        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
            calls.append("section \(type) \(sectionIndex) \(section.name) \(section.numberOfObjects)")
        }
        func controller(_ controller: FetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
                        for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
            let paths = [indexPath, newIndexPath].compactMap { $0 }.map { "\(Array($0))" }.joined(separator: " ")
            calls.append("\(type) \(paths) \(object.string("title") ?? "?")")
            onObject?(controller)
        }
    }

    func titles(_ c: FetchedResultsController) -> [[String]] {
        (c.sections ?? []).map { $0.objects.map { $0.string("title") ?? "?" } }
    }

    // MARK: Reading the results

    func testSectionsObjectsAndLookups() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        XCTAssertNil(c.fetchedObjects)
        XCTAssertNil(c.sections)
        try c.performFetch()
        XCTAssertEqual(c.fetchedObjects?.map { $0.string("title") }, ["Dishes", "Laundry", "Email", "Report", "Slides"])
        let sections = try XCTUnwrap(c.sections)
        XCTAssertEqual(sections.map(\.name), ["Home", "Work"])
        XCTAssertEqual(sections.map(\.numberOfObjects), [2, 3])
        XCTAssertEqual(sections.map(\.indexTitle), ["H", "W"])
        XCTAssertEqual(titles(c), [["Dishes", "Laundry"], ["Email", "Report", "Slides"]])
        let report = try c.object(at: [1, 1])
        XCTAssertEqual(report.string("title"), "Report")
        XCTAssertEqual(c.indexPath(forObject: report), [1, 1])
        XCTAssertEqual(c.sectionIndexTitles, ["H", "W"])
        XCTAssertEqual(try c.section(forSectionIndexTitle: "W", at: 1), 1)
        XCTAssertEqual(expectError { _ = try c.object(at: [2, 0]) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { _ = try c.object(at: [0, 2]) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { _ = try c.section(forSectionIndexTitle: "Q", at: 0) }?.code, ErrorCode.invalidArgument)
        let note = try stack.context.insertObject(entityName: "Note")
        XCTAssertNil(c.indexPath(forObject: note))
    }

    func testWithoutASectionKeyPathThereIsOneSection() throws {
        let stack = try seeded()
        let request = FetchRequest(entityName: "Task", sortKeys: [SortKey("title", ascending: false)])
        let c = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        try c.performFetch()
        XCTAssertEqual(c.sections?.count, 1)
        XCTAssertEqual(c.sections?.first?.name, "")
        XCTAssertEqual(titles(c), [["Slides", "Report", "Laundry", "Email", "Dishes"]])
    }

    func testARequestWithoutSortKeysIsRefused() throws {
        let stack = try makeStack()
        let error = expectError {
            _ = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task"), managedObjectContext: stack.context)
        }
        XCTAssertEqual(error?.code, ErrorCode.invalidArgument)
        XCTAssertTrue(error?.message.contains("sort key") ?? false)
    }

    func testSectionsThatTheFirstSortKeyDoesNotGroupFailTheFetch() throws {
        let stack = try seeded()
        // Sorted by rank alone, the lists interleave: Home, Work, Home, Work, Work.
        let request = FetchRequest(entityName: "Task", sortKeys: [SortKey("rank"), SortKey("title")])
        let c = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "list")
        let error = expectError { try c.performFetch() }
        XCTAssertEqual(error?.code, ErrorCode.coreData)
        XCTAssertTrue(error?.message.contains("out of order section name 'Home'") ?? false, error?.message ?? "")
        XCTAssertNil(c.fetchedObjects)
    }

    // MARK: Changes

    func testAnInsertedMatchingObjectIsInsertedAtProcessPendingChanges() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        try task(stack.context, "Call", "Work", 0)
        try task(stack.context, "Garden", "Outside", 1)
        XCTAssertEqual(recorder.calls, [], "nothing before the context processes its changes")
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "section insert 1 Outside 1", "insert [1, 0] Garden", "insert [2, 0] Call", "did"])
        XCTAssertEqual(titles(c), [["Dishes", "Laundry"], ["Garden"], ["Call", "Email", "Report", "Slides"]])
    }

    func testChangesThatTouchNoTrackedObjectCallNothing() throws {
        let stack = try seeded()
        let c = try byList(stack.context, predicate: "done == NO")
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue(.string("milk"), forKey: "text")
        let finished = try task(stack.context, "Taxes", "Home", 9)
        try finished.setValue(.boolean(true), forKey: "done")
        try stack.context.processPendingChanges()
        try stack.context.save()
        XCTAssertEqual(recorder.calls, [])
    }

    func testAChangedSortKeyIsAMoveAndAnyOtherChangeAnUpdate() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        let email = try c.object(at: [1, 0])
        try email.setValue(.integer(5), forKey: "rank")
        let dishes = try c.object(at: [0, 0])
        try dishes.setValue(.string("Dishes!"), forKey: "title")
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "move [1, 0] [1, 2] Email", "update [0, 0] Dishes!", "did"])
        XCTAssertEqual(titles(c), [["Dishes!", "Laundry"], ["Report", "Slides", "Email"]])
        XCTAssertEqual(c.indexPath(forObject: email), [1, 2])
    }

    func testTwoObjectsThatSwapPlacesAreReportedSoTheOrderComesOutRight() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        try c.object(at: [0, 0]).setValue(.integer(2), forKey: "rank")
        try c.object(at: [0, 1]).setValue(.integer(1), forKey: "rank")
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "move [0, 1] [0, 0] Laundry", "update [0, 0] Dishes", "did"])
        XCTAssertEqual(titles(c)[0], ["Laundry", "Dishes"])
    }

    func testAnObjectMovedToAnotherSectionAndAnEmptiedSection() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        try c.object(at: [0, 0]).setValue(.string("Work"), forKey: "list")
        try c.object(at: [0, 1]).setValue(.string("Work"), forKey: "list")
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "section delete 0 Home 2", "move [0, 0] [0, 0] Dishes", "move [0, 1] [0, 2] Laundry", "did"])
        XCTAssertEqual(titles(c), [["Dishes", "Email", "Laundry", "Report", "Slides"]])
    }

    func testObjectsThatStopMatchingOrAreDeletedLeaveTheResults() throws {
        let stack = try seeded()
        let c = try byList(stack.context, predicate: "done == NO")
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        try c.object(at: [1, 1]).setValue(.boolean(true), forKey: "done")
        try stack.context.delete(try c.object(at: [0, 0]))
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "delete [0, 0] Dishes", "delete [1, 1] Report", "did"])
        XCTAssertEqual(titles(c), [["Laundry"], ["Email", "Slides"]])
    }

    func testASaveReportsChangesNotYetProcessed() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        try task(stack.context, "Bins", "Home", 3)
        try stack.context.save()
        XCTAssertEqual(recorder.calls, ["will", "insert [0, 2] Bins", "did"])
        recorder.calls = []
        try stack.context.save()
        XCTAssertEqual(recorder.calls, [], "a save with nothing new calls nothing")
    }

    func testTheEndOfAPerformBlockReports() throws {
        let stack = try seeded()
        let queue = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        let recorder = Recorder()
        let c = try queue.performAndWait { () throws -> FetchedResultsController in
            let c = try byList(queue)
            c.delegate = recorder
            try c.performFetch()
            return c
        }
        let seen = Seen()
        try queue.perform {
            let t = try? queue.insertObject(entityName: "Task")
            try? t?.setValue(.string("Plan"), forKey: "title")
            try? t?.setValue(.string("Work"), forKey: "list")
            try? t?.setValue(.integer(4), forKey: "rank")
            seen.callsInsideTheBlock = recorder.calls
        }
        try queue.performAndWait {}  // after the block and the end of its event
        XCTAssertEqual(seen.callsInsideTheBlock, [])
        XCTAssertEqual(recorder.calls, ["will", "insert [1, 3] Plan", "did"])
        try queue.performAndWait { XCTAssertEqual(titles(c)[1], ["Email", "Report", "Slides", "Plan"]) }
    }

    func testAMergedSaveReports() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        var saved: ContextNotification?
        other.addObserver(for: .didSave) { saved = $0 }
        try task(other, "Fix bike", "Home", 0)
        let slides = try XCTUnwrap(try other.fetch(FetchRequest(entityName: "Task", predicate: try ObjectPredicate(format: "title == 'Slides'"))).first)
        try slides.setValue(.integer(0), forKey: "rank")
        try other.save()
        try stack.context.mergeChanges(fromContextDidSave: try XCTUnwrap(saved))
        XCTAssertEqual(recorder.calls, ["will", "insert [0, 0] Fix bike", "move [1, 2] [1, 0] Slides", "did"])
        XCTAssertEqual(titles(c), [["Fix bike", "Dishes", "Laundry"], ["Slides", "Email", "Report"]])
    }

    func testACallbackThatSavesIsToldOfThatSaveAfterItsBatch() throws {
        let stack = try seeded()
        let c = try byList(stack.context)
        let recorder = Recorder()
        c.delegate = recorder
        try c.performFetch()
        var once = true
        recorder.onObject = { controller in
            guard once else { return }
            once = false
            _ = try? self.task(controller.managedObjectContext, "Nested", "Work", 9)
            try? controller.managedObjectContext.save()
        }
        try task(stack.context, "Outer", "Home", 9)
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, ["will", "insert [0, 2] Outer", "did", "will", "insert [1, 3] Nested", "did"])
    }

    /// Holds the only reference to its controller and drops it in the first callback.
    final class Dropper: FetchedResultsControllerDelegate {
        var controller: FetchedResultsController?
        var calls = 0
        func controllerWillChangeContent(_ controller: FetchedResultsController) {
            calls += 1
            self.controller = nil
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController) { calls += 1 }
    }

    func testADelegateThatDropsTheControllerInACallbackEndsItSafely() throws {
        let stack = try seeded()
        let dropper = Dropper()
        dropper.controller = try byList(stack.context)
        dropper.controller?.delegate = dropper
        try dropper.controller?.performFetch()
        weak var gone = dropper.controller
        try task(stack.context, "Call", "Work", 0)
        try stack.context.processPendingChanges()
        XCTAssertNil(gone)
        XCTAssertEqual(dropper.calls, 2, "the batch under way ends")
        try task(stack.context, "Later", "Work", 0)
        try stack.context.save()
        XCTAssertEqual(dropper.calls, 2)
    }

    func testAResetEmptiesTheResultsAndReleasingTheControllerStopsIt() throws {
        let stack = try seeded()
        var c: FetchedResultsController? = try byList(stack.context)
        let recorder = Recorder()
        c?.delegate = recorder
        try c?.performFetch()
        try stack.context.reset()
        XCTAssertEqual(recorder.calls.first, "will")
        XCTAssertEqual(recorder.calls.filter { $0.hasPrefix("section delete") }.count, 2)
        XCTAssertEqual(recorder.calls.filter { $0.hasPrefix("delete") }.count, 5)
        XCTAssertEqual(c?.fetchedObjects?.count, 0)
        try c?.performFetch()
        XCTAssertEqual(c?.fetchedObjects?.count, 5)
        recorder.calls = []
        weak var gone = c
        c = nil
        XCTAssertNil(gone)
        try task(stack.context, "After", "Home", 0)
        try stack.context.processPendingChanges()
        XCTAssertEqual(recorder.calls, [])
    }
}
