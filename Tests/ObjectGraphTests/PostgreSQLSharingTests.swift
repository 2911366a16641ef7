import Foundation
@testable import ObjectGraph
import XCTest

/// Coordinators sharing one PostgreSQL store (`PostgreSQLStore.save`, the commit watch):
/// optimistic locking and merge policies as between processes sharing an SQLite file,
/// keys that never collide, remote change notifications, and a server that goes away.
final class PostgreSQLSharingTests: XCTestCase {
    var url: String!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
        model = try makeLendingModel()
        ManagedObjectClasses.register(BookObject.self)
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    func coordinator(_ options: [String: PropertyListValue] = [:]) throws -> PersistentStoreCoordinator {
        let c = try PersistentStoreCoordinator(model: model)
        _ = try c.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        return c
    }

    func book(_ context: ManagedObjectContext, _ title: String, pages: Int64 = 100) throws -> ManagedObject {
        let b = try context.insertObject(entityName: "Book")
        try b.setValue(.string(title), forKey: "title")
        try b.setValue(.integer(pages), forKey: "pages")
        return b
    }

    func testConflictsAreReportedAndResolvedByEveryPolicy() throws {
        let first = ManagedObjectContext(coordinator: try coordinator())
        _ = try book(first, "Dune")
        try first.save()
        let other = ManagedObjectContext(coordinator: try coordinator())
        let theirs = try XCTUnwrap(other.fetch(FetchRequest(entityName: "Book")).first)
        let mine = try XCTUnwrap(first.fetch(FetchRequest(entityName: "Book")).first)
        try theirs.setValue(.integer(200), forKey: "pages")
        try other.save()

        try mine.setValue(.integer(300), forKey: "pages")
        let e = expectError { try first.save() }
        XCTAssertEqual(e?.code, ErrorCode.merge)
        XCTAssertEqual(e?.conflicts.first?.persistedSnapshot?["pages"], .attribute(.integer(200)))
        XCTAssertTrue(first.hasChanges, "the context keeps its changes")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZPAGES\" FROM \"ZBOOK\""), [["200"]], "nothing of the failed save was written")

        first.mergePolicy = .mergeByPropertyStoreTrump
        try first.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZPAGES\", \"Z_OPT\" FROM \"ZBOOK\""), [["200", "3"]], "store trump keeps the stored value")

        other.mergePolicy = .mergeByPropertyObjectTrump
        try theirs.setValue(.string("Dune Messiah"), forKey: "title")
        try other.save()
        try mine.setValue(.integer(400), forKey: "pages")
        first.mergePolicy = .mergeByPropertyObjectTrump
        try first.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZTITLE\", \"ZPAGES\" FROM \"ZBOOK\""), [["Dune Messiah", "400"]], "both changes survive")

        try theirs.setValue(.integer(1), forKey: "pages")
        other.mergePolicy = .overwrite
        try other.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZPAGES\" FROM \"ZBOOK\""), [["1"]])
    }

    func testNewKeysNeverCollideBetweenCoordinators() throws {
        let contexts = try (0..<3).map { _ in ManagedObjectContext(coordinator: try coordinator()) }
        for round in 0..<5 {
            for (n, c) in contexts.enumerated() {
                for i in 0..<(n + 1) { _ = try book(c, "r\(round) c\(n) b\(i)") }
                try c.save()
            }
        }
        let keys = try PostgreSQLTestServer.rows(url, "SELECT \"Z_PK\" FROM \"ZBOOK\" ORDER BY 1").map { Int($0[0])! }
        XCTAssertEqual(keys, Array(1...30))
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_NAME\" = 'Book'"), [["30"]])
    }

    func testEverySaveReachesEveryWatchingCoordinatorWithinASecond() throws {
        let watcher = try coordinator([StoreOptionKey.remoteChangeNotifications: .boolean(true)])
        let inbox = RemoteChangeNotificationsTests.Inbox()
        watcher.addRemoteChangeObserver { inbox.add($0) }
        let writer = ManagedObjectContext(coordinator: try coordinator())
        _ = try book(writer, "Heard")
        let started = Date()
        try writer.save()
        let got = inbox.wait(for: 1)
        XCTAssertEqual(got.count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(got.first?.storeIdentifier, watcher.persistentStores[0].identifier)
        // Reads post nothing; the watcher's own saves do.
        _ = try ManagedObjectContext(coordinator: watcher).fetch(FetchRequest(entityName: "Book"))
        usleep(200_000)
        XCTAssertEqual(inbox.all.count, 1)
        let own = ManagedObjectContext(coordinator: watcher)
        _ = try book(own, "Mine")
        try own.save()
        XCTAssertEqual(inbox.wait(for: 2).count, 2)
    }

    func testAServerThatDropsTheConnectionFailsTheSaveAndTheNextOneReconnects() throws {
        let context = ManagedObjectContext(coordinator: try coordinator())
        _ = try book(context, "Before")
        try context.save()
        try PostgreSQLTestServer.killSessions(of: url)
        let pending = try book(context, "During")
        let e = expectError { try context.save() }
        XCTAssertEqual(e?.code, ErrorCode.storeSave)
        XCTAssertFalse(e?.message.contains(try PostgreSQLTestServer.requireURL().passwordPart) ?? true, "no password in \(e?.message ?? "")")
        XCTAssertTrue(pending.isInserted, "the context keeps its changes")
        try context.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZTITLE\" FROM \"ZBOOK\" ORDER BY 1"), [["Before"], ["During"]])
        // Reads reconnect the same way.
        try PostgreSQLTestServer.killSessions(of: url)
        XCTAssertThrowsError(try context.fetch(FetchRequest(entityName: "Author")))
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Book")), 2)
    }
}

extension String {
    /// The password of a postgresql:// URL ("" when it has none).
    var passwordPart: String {
        guard let at = range(of: "@"), let scheme = range(of: "://") else { return "\u{0}" }
        let userinfo = self[scheme.upperBound..<at.lowerBound]
        guard let colon = userinfo.firstIndex(of: ":") else { return "\u{0}" }
        return String(userinfo[userinfo.index(after: colon)...])
    }
}
