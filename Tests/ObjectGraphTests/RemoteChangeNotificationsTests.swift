import Foundation
import ObjectGraph
import Synchronization
import XCTest

/// Remote-change notifications (`RemoteChangeNotifications.swift`, `SQLiteCommitWatch.swift`):
/// a write by any coordinator reaches the observers of every coordinator whose store asked.
final class RemoteChangeNotificationsTests: XCTestCase {
    final class Inbox: @unchecked Sendable {
        private let received = Mutex<[RemoteChangeNotification]>([])
        func add(_ n: RemoteChangeNotification) { received.withLock { $0.append(n) } }
        var all: [RemoteChangeNotification] { received.withLock { $0 } }

        /// Waits up to `seconds` for `count` notifications.
        func wait(for count: Int, seconds: Double = 2) -> [RemoteChangeNotification] {
            let end = Date().addingTimeInterval(seconds)
            while all.count < count && Date() < end { usleep(5_000) }
            return all
        }
    }

    var path: String!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/remote.sqlite"
        model = try ContextHistoryTests.makeModel()
    }

    func coordinator(notifying: Bool, history: Bool = true) throws -> PersistentStoreCoordinator {
        let c = try PersistentStoreCoordinator(model: model)
        var options: [String: PropertyListValue] = [:]
        if notifying { options[StoreOptionKey.remoteChangeNotifications] = .boolean(true) }
        if history { options[StoreOptionKey.historyTracking] = .boolean(true) }
        _ = try c.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: options)
        return c
    }

    func save(_ c: PersistentStoreCoordinator, _ title: String) throws {
        let context = ManagedObjectContext(coordinator: c)
        let o = try context.insertObject(entityName: "Note")
        try o.setValue(.string(title), forKey: "title")
        try context.save()
    }

    func testASaveByAnyCoordinatorReachesEveryObserverWithTheToken() throws {
        let watcher = try coordinator(notifying: true)
        let inbox = Inbox()
        let token = watcher.addRemoteChangeObserver { inbox.add($0) }
        let writer = try coordinator(notifying: false)
        let started = Date()
        try save(writer, "elsewhere")
        let first = inbox.wait(for: 1)
        XCTAssertEqual(first.count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "within a second")
        XCTAssertEqual(first[0].storeIdentifier, watcher.persistentStores[0].identifier)
        XCTAssertEqual(first[0].historyToken, try writer.currentPersistentHistoryToken())
        // Its own saves too.
        try save(watcher, "here")
        XCTAssertEqual(inbox.wait(for: 2).count, 2)
        try watcher.removeRemoteChangeObserver(token)
        try save(writer, "after")
        usleep(200_000)
        XCTAssertEqual(inbox.all.count, 2, "a removed observer is never called again")
        XCTAssertThrowsError(try watcher.removeRemoteChangeObserver(token))
    }

    func testReadsPostNothingAndStoresWithoutTheOptionPostNothing() throws {
        let silent = try coordinator(notifying: false)
        let inbox = Inbox()
        silent.addRemoteChangeObserver { inbox.add($0) }
        let watcher = try coordinator(notifying: true, history: false)
        let watched = Inbox()
        watcher.addRemoteChangeObserver { watched.add($0) }
        try save(silent, "x")
        XCTAssertEqual(watched.wait(for: 1).count, 1)
        _ = try ManagedObjectContext(coordinator: silent).fetch(FetchRequest(entityName: "Note"))
        _ = try ManagedObjectContext(coordinator: watcher).fetch(FetchRequest(entityName: "Note"))
        usleep(200_000)
        XCTAssertEqual(watched.all.count, 1, "a read is not a change")
        XCTAssertEqual(inbox.all.count, 0, "a store added without the option posts nothing")
    }

    /// Coordinators that go away, or remove their store, while commits are being seen:
    /// their watches stop, and nothing is called on what is gone.
    func testWatchesStopWithTheirCoordinatorAndTheirStore() throws {
        let writer = try coordinator(notifying: false)
        let inbox = Inbox()
        for i in 0..<20 {
            var watcher: PersistentStoreCoordinator? = try coordinator(notifying: true)
            watcher!.addRemoteChangeObserver { inbox.add($0) }
            try save(writer, "n\(i)")
            if i % 2 == 0 { try watcher!.removePersistentStore(watcher!.persistentStores[0]) }
            watcher = nil
        }
        let survivor = try coordinator(notifying: true)
        let last = Inbox()
        survivor.addRemoteChangeObserver { last.add($0) }
        try save(writer, "last")
        XCTAssertEqual(last.wait(for: 1).count, 1)
    }
}
