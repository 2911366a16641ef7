import Foundation
import ObjectGraph
import XCTest

/// Asynchronous fetches (`AsynchronousFetch.swift`): `execute` returns at once; the fetch,
/// then the completion, run on the context's queue.
final class AsynchronousFetchTests: XCTestCase {
    func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let stack = try lendingStack(try temporaryDirectory() + "/async.sqlite")
        for title in ["Mort", "Eric"] {
            try stack.context.insertObject(entityName: "Book").setValue(.string(title), forKey: "title")
        }
        try stack.context.save()
        return (stack.coordinator, ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue))
    }

    final class Seen: @unchecked Sendable {
        var titles: [String]?
        var error: ObjectGraphError?
        var onQueue = false
        let done = DispatchSemaphore(value: 0)
    }

    func start(_ context: ManagedObjectContext, _ request: FetchRequest, _ seen: Seen) throws -> AsynchronousFetchResult {
        let caller = Thread.current
        let async = AsynchronousFetchRequest(fetchRequest: request) { result in
            seen.onQueue = Thread.current != caller
            seen.titles = result.finalResult.map { $0.map { o in if case .string(let s) = try! o.value(forKey: "title") { s } else { "?" } }.sorted() }
            seen.error = result.operationError
            seen.done.signal()
        }
        return try context.execute(async)
    }

    func testTheFetchAndItsCompletionRunOnTheContextsQueue() throws {
        let (_, context) = try stack()
        let seen = Seen()
        let result = try start(context, FetchRequest(entityName: "Book"), seen)
        XCTAssertEqual(seen.done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.titles, ["Eric", "Mort"])
        XCTAssertTrue(seen.onQueue)
        XCTAssertTrue(result.isFinished)
        XCTAssertEqual(result.progress, 1)
        XCTAssertTrue(result.context === context)
    }

    func testCancelledBeforeItRunsItCompletesWithNoObjects() throws {
        let (_, context) = try stack()
        try context.perform { usleep(200_000) }  // the queue is busy: the fetch waits
        let seen = Seen()
        let result = try start(context, FetchRequest(entityName: "Book"), seen)
        result.cancel()
        XCTAssertEqual(seen.done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.titles, [])
        XCTAssertNil(seen.error)
        XCTAssertTrue(result.isCancelled)
    }

    func testAFailingFetchDeliversItsErrorThroughTheResult() throws {
        let (_, context) = try stack()
        let seen = Seen()
        _ = try start(context, FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "colour == 'red'")), seen)
        XCTAssertEqual(seen.done.wait(timeout: .now() + 10), .success)
        XCTAssertNil(seen.titles)
        XCTAssertEqual(seen.error?.code, ErrorCode.unknownKey)
    }

    func testAConfinementContextHasNoQueueToRunItOn() throws {
        let (coordinator, _) = try stack()
        let plain = ManagedObjectContext(coordinator: coordinator)
        let error = expectError { _ = try plain.execute(AsynchronousFetchRequest(fetchRequest: FetchRequest(entityName: "Book")) { _ in }) }
        XCTAssertEqual(error?.code, ErrorCode.invalidArgument)
    }
}
