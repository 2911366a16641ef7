import Foundation
@testable import ObjectGraph
import XCTest

/// Persistent history on the PostgreSQL store (`PostgreSQLHistory.swift`): Apple's tables
/// written in each save's transaction, read after a token by another coordinator, tokens
/// in remote change notifications, purges, and history carried by `migratePersistentStore`.
final class PostgreSQLHistoryTests: XCTestCase {
    var url: String!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
        model = try ContextHistoryTests.makeModel()
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    func open(_ extra: [String: PropertyListValue] = [:]) throws -> ManagedObjectContext {
        let c = try PersistentStoreCoordinator(model: model)
        var options: [String: PropertyListValue] = [StoreOptionKey.historyTracking: .boolean(true)]
        for (k, v) in extra { options[k] = v }
        _ = try c.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        return ManagedObjectContext(coordinator: c)
    }

    func note(_ context: ManagedObjectContext, _ title: String) throws -> ManagedObject {
        let o = try context.insertObject(entityName: "Note")
        try o.setValue(.string(title), forKey: "title")
        try o.setValue(.string("body of " + title), forKey: "body")
        return o
    }

    func testSavesAreReadBackAsTransactionsByAnotherCoordinator() throws {
        let writer = try open()
        writer.transactionAuthor = "importer"
        let a = try note(writer, "a"), b = try note(writer, "b")
        try writer.save()
        try a.setValue(.integer(4), forKey: "stars")
        try writer.delete(b)
        try writer.save()

        let reader = try open()
        let history = try reader.history()
        XCTAssertEqual(history.map(\.transactionNumber), [1, 2])
        XCTAssertEqual(history[0].author, "importer")
        XCTAssertEqual(history[0].changes?.map(\.changeType), [.insert, .insert])
        let second = try XCTUnwrap(history[1].changes)
        XCTAssertEqual(second.map(\.changeType), [.update, .delete])
        XCTAssertEqual(second[0].updatedProperties, ["stars"])
        XCTAssertEqual(second[1].tombstone, ["body": .string("body of b")])
        XCTAssertEqual(try reader.history(after: .token(history[0].token)).map(\.transactionNumber), [2])
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"Z_NAME\", \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" > 16000 ORDER BY 1"),
                       [["CHANGE", "4"], ["TRANSACTION", "2"], ["TRANSACTIONSTRING", "2"]])

        try reader.deleteHistory(before: .token(history[1].token))
        XCTAssertEqual(try reader.history().map(\.transactionNumber), [2])
        let e = expectError { _ = try reader.history(after: .token(history[0].token)) }
        XCTAssertEqual(e?.code, ErrorCode.historyTokenExpired)
    }

    func testRemoteChangesCarryTheNewestToken() throws {
        let watcher = try open([StoreOptionKey.remoteChangeNotifications: .boolean(true)])
        let inbox = RemoteChangeNotificationsTests.Inbox()
        watcher.persistentStoreCoordinator.addRemoteChangeObserver { inbox.add($0) }
        let writer = try open()
        _ = try note(writer, "heard")
        try writer.save()
        let got = inbox.wait(for: 1)
        XCTAssertEqual(got.count, 1)
        XCTAssertEqual(got.first?.historyToken, try writer.persistentStoreCoordinator.currentPersistentHistoryToken())
    }

    func testHistoryMovesWithTheStoreBetweenSQLiteAndPostgreSQL() throws {
        let path = try temporaryDirectory() + "/history.sqlite"
        let c = try PersistentStoreCoordinator(model: model)
        let tracked: [String: PropertyListValue] = [StoreOptionKey.historyTracking: .boolean(true)]
        let sqlite = try c.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: tracked)
        let context = ManagedObjectContext(coordinator: c)
        for t in ["x", "y"] {
            _ = try note(context, t)
            try context.save()
        }
        _ = try c.migratePersistentStore(sqlite, to: url, type: PostgreSQLStore.typeName, options: tracked)
        let history = try ManagedObjectContext(coordinator: c).history()
        XCTAssertEqual(history.map(\.transactionNumber), [1, 2, 3])
        XCTAssertEqual(history.last?.author, SQLiteHistory.migratorAuthor)
        XCTAssertEqual(history[0].changes?.count, 1)
    }
}
