import XCTest
@testable import ObjectGraph

/// Objects-did-change for objects that are still pending inserts.
final class ContextNotificationsTests: XCTestCase {
    func testEditOfAPendingInsertInALaterEventIsReportedAsUpdated() throws {
        let stack = try lendingStack()
        let author = try stack.context.insertObject(entityName: "Author")
        try stack.context.processPendingChanges()
        var posted: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { posted.append($0) }
        try author.setValue("Ursula", forKey: "name")
        try stack.context.processPendingChanges()
        XCTAssertEqual(posted.count, 1)
        XCTAssertTrue(posted[0].updated.contains { $0 === author })
        XCTAssertTrue(posted[0].inserted.isEmpty)
    }

    func testEditOfAnInsertInItsOwnEventIsReportedAsInsertedOnly() throws {
        let stack = try lendingStack()
        var posted: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { posted.append($0) }
        let first = try stack.context.insertObject(entityName: "Author")
        let second = try stack.context.insertObject(entityName: "Author")
        try second.setValue("Ursula", forKey: "name")
        try first.setValue("Terry", forKey: "name")  // not the object inserted last
        try stack.context.processPendingChanges()
        XCTAssertEqual(posted.count, 1)
        XCTAssertEqual(posted[0].inserted.map(ObjectIdentifier.init), [ObjectIdentifier(first), ObjectIdentifier(second)])
        XCTAssertTrue(posted[0].updated.isEmpty)
        try first.setValue("Terry P.", forKey: "name")
        try stack.context.processPendingChanges()
        XCTAssertEqual(posted.count, 2)
        XCTAssertEqual(posted[1].updated.map(ObjectIdentifier.init), [ObjectIdentifier(first)])
    }

    func testDeleteOfAPendingInsertInALaterEventIsReportedAsDeleted() throws {
        let stack = try lendingStack()
        let author = try stack.context.insertObject(entityName: "Author")
        try stack.context.processPendingChanges()
        var posted: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { posted.append($0) }
        try stack.context.delete(author)
        try stack.context.processPendingChanges()
        XCTAssertEqual(posted.count, 1)
        XCTAssertTrue(posted[0].deleted.contains { $0 === author })
        XCTAssertTrue(stack.context.deletedObjects.isEmpty, "a forgotten insert is not a pending delete")
        XCTAssertFalse(stack.context.hasChanges)
    }

    func testInsertAndDeleteInOneEventCancelOut() throws {
        let stack = try lendingStack()
        var posted: [ContextNotification] = []
        stack.context.addObserver(for: .objectsDidChange) { posted.append($0) }
        let author = try stack.context.insertObject(entityName: "Author")
        try stack.context.delete(author)
        try stack.context.processPendingChanges()
        XCTAssertTrue(posted.isEmpty)
    }
}
