import Foundation
@testable import ObjectGraph
import XCTest

/// What the PostgreSQL store tells a caller when something is wrong: the server cannot be
/// reached or refuses the login, the database does not fit the model, a value cannot be
/// kept, a lock is held too long. Clear errors, nothing half-written, never the password.
final class PostgreSQLStoreErrorsTests: XCTestCase {
    var url: String!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    func add(_ url: String, model: ManagedObjectModel? = nil, options: [String: PropertyListValue] = [:]) throws -> PersistentStoreCoordinator {
        let c = try PersistentStoreCoordinator(model: model ?? makeLendingModel())
        _ = try c.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        return c
    }

    /// `url` with its password replaced by `password`.
    func withPassword(_ password: String) -> String {
        url.replacingOccurrences(of: ":" + url.passwordPart + "@", with: ":" + password + "@")
    }

    func testConnectionFailuresNameHostAndDatabaseButNeverThePassword() throws {
        let secret = url.passwordPart
        // A port nothing listens on.
        let socket = try XCTUnwrap(url.range(of: "@127.0.0.1:"))
        let port = url[socket.upperBound...].prefix { $0.isNumber }
        let closed = url.replacingOccurrences(of: ":\(port)/", with: ":1/")
        for (bad, why) in [(closed, "refused"), (withPassword("wrong-secret"), "password"), (PostgreSQLTestServer.database("no_such_db", of: url), "no_such_db")] {
            let e = expectError { _ = try self.add(bad) }
            XCTAssertEqual(e?.code, ErrorCode.storeOpen, why)
            let message = e?.message ?? ""
            XCTAssertTrue(message.contains("127.0.0.1"), message)
            XCTAssertTrue(message.contains(why) || message.lowercased().contains(why), message)
            XCTAssertFalse(message.contains(secret), message)
            XCTAssertFalse(message.contains("wrong-secret"), message)
        }
    }

    func testTheStorePathHasNoPassword() throws {
        let c = try add(url)
        let store = try XCTUnwrap(c.persistentStores.first)
        XCTAssertEqual(store.type, "PostgreSQL")
        XCTAssertFalse(store.path.contains(url.passwordPart))
        XCTAssertTrue(store.path.hasPrefix("postgresql://postgres@127.0.0.1:"), store.path)
        XCTAssertEqual(PostgreSQLAddress.redactedForTest("host=h password='a b' dbname=d"), "host=h dbname=d")
        XCTAssertEqual(PostgreSQLAddress.redactedForTest("postgresql://u:p@h/d?password=x&sslmode=require"), "postgresql://u@h/d?sslmode=require")
    }

    /// A key=value connection string works as the URI does, and its password is hidden too.
    func testAKeyValueConnectionStringOpensTheSameStore() throws {
        let uriStore = try XCTUnwrap(add(url).persistentStores.first)
        let parts = try XCTUnwrap(URLComponents(string: url))
        let pairs = "host=\(parts.host ?? "") port=\(parts.port ?? 5432) dbname=\(parts.path.dropFirst()) user=\(parts.user ?? "") password='\(url.passwordPart)'"
        let store = try XCTUnwrap(add(pairs).persistentStores.first)
        XCTAssertEqual(store.identifier, uriStore.identifier)
        XCTAssertFalse(store.path.contains(url.passwordPart), store.path)
        XCTAssertTrue(store.path.hasPrefix("host=127.0.0.1 port="), store.path)
    }

    func testASchemaNameThatIsNotAnIdentifierIsRefused() throws {
        for name in ["a b", "x\"; DROP TABLE t; --", "", "1abc", String(repeating: "s", count: 64)] {
            let e = expectError { _ = try self.add(self.url, options: [StoreOptionKey.postgreSQLSchema: .string(name)]) }
            XCTAssertEqual(e?.code, ErrorCode.invalidArgument, name)
        }
    }

    func testStoresInTwoSchemasOfOneDatabaseAreSeparate() throws {
        for schema in ["first", "second"] {
            let c = try add(url, options: [StoreOptionKey.postgreSQLSchema: .string(schema)])
            let context = ManagedObjectContext(coordinator: c)
            let a = try context.insertObject(entityName: "Author")
            try a.setValue(.string(schema), forKey: "name")
            try context.save()
        }
        for schema in ["first", "second"] {
            XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZNAME\" FROM \"ZAUTHOR\"", schema: schema), [[schema]])
        }
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"), [["0"]])
    }

    func testADatabaseThatDoesNotFitTheModelIsRefused() throws {
        _ = try add(url)
        let e = expectError { _ = try self.add(self.url, model: try makeDifferentialModel()) }
        XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash)
        // A schema holding tables of something else.
        let db = try PostgreSQLTestServer.admin(url)
        try db.execute("CREATE SCHEMA other; CREATE TABLE other.accounts (id int)")
        db.close()
        let f = expectError { _ = try self.add(self.url, options: [StoreOptionKey.postgreSQLSchema: .string("other")]) }
        XCTAssertEqual(f?.code, ErrorCode.storeIncompatibleVersionHash)
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'other'"), [["1"]], "nothing added")
    }

    func testTextWithANulCharacterFailsTheSaveNamingTheObjectAndKey() throws {
        let context = ManagedObjectContext(coordinator: try add(url))
        let a = try context.insertObject(entityName: "Author")
        try a.setValue(.string("fine"), forKey: "name")
        let b = try context.insertObject(entityName: "Author")
        try b.setValue(.string("bad\u{0}name"), forKey: "name")
        let e = expectError { try context.save() }
        XCTAssertEqual(e?.code, ErrorCode.validation)
        XCTAssertTrue(e?.message.contains("Author.name") ?? false, e?.message ?? "")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM \"ZAUTHOR\""), [["0"]], "nothing was written")
        XCTAssertTrue(context.hasChanges)
    }

    func testALockHeldPastTheTimeoutFailsTheSaveWith134090() throws {
        let context = ManagedObjectContext(coordinator: try add(url, options: [StoreOptionKey.timeout: .real(0.3)]))
        let holder = try PostgreSQLTestServer.admin(url)
        defer { holder.close() }
        try holder.execute("BEGIN; SELECT * FROM \"Z_METADATA\" FOR UPDATE")
        let a = try context.insertObject(entityName: "Author")
        try a.setValue(.string("Waiting"), forKey: "name")
        let started = Date()
        let e = expectError { try context.save() }
        XCTAssertEqual(e?.code, ErrorCode.storeTimeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        try holder.execute("ROLLBACK")
        try context.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZNAME\" FROM \"ZAUTHOR\""), [["Waiting"]])
    }

    /// The server's `statement_timeout` (here from the URL's libpq options) ends a save that
    /// waits too long: 134090, nothing written, and the next save goes through.
    func testAStatementTimeoutFailsTheSaveWith134090() throws {
        let limited = url + "?options=-c%20statement_timeout%3D300"
        let context = ManagedObjectContext(coordinator: try add(limited))
        let holder = try PostgreSQLTestServer.admin(url)
        defer { holder.close() }
        try holder.execute("BEGIN; SELECT * FROM \"Z_METADATA\" FOR UPDATE")
        let a = try context.insertObject(entityName: "Author")
        try a.setValue(.string("Patient"), forKey: "name")
        XCTAssertEqual(expectError { try context.save() }?.code, ErrorCode.storeTimeout)
        try holder.execute("ROLLBACK")
        try context.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZNAME\" FROM \"ZAUTHOR\""), [["Patient"]])
    }

    /// The server answers the COMMIT of a transaction it aborted with ROLLBACK and a success
    /// status: `commit()` fails then, so that nothing rolled back passes as written.
    func testACommitTheServerTurnsIntoARollbackFails() throws {
        let db = try PostgreSQLTestServer.admin(url)
        defer { db.close() }
        try db.execute("CREATE TABLE kept (x integer)")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO kept VALUES (1)")
        XCTAssertNotNil(expectError { try db.execute("SELECT 1 / 0") })  // a failure nobody passed on
        let error = expectError { try db.commit() }
        XCTAssertEqual(error?.code, ErrorCode.storeSave)
        XCTAssertTrue(error?.message.contains("rolled the transaction back") ?? false, error?.message ?? "")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT COUNT(*) FROM kept"), [["0"]])
        try db.execute("BEGIN")
        try db.execute("INSERT INTO kept VALUES (2)")
        try db.commit()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT x FROM kept"), [["2"]])
    }

    /// A serialization failure or deadlock (40001, 40P01) aborts the save's transaction on
    /// the server; the store runs the save again, so the application sees one save whose
    /// rows are written once. Past the retries the save fails with 134030, nothing written
    /// and the changes kept. The failures come from a trigger that fails the first `n`
    /// writes it sees, counted by a sequence (which a rollback does not undo).
    func testSerializationFailuresAndDeadlocksAreRetriedInsideTheSave() throws {
        let coordinator = try add(url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let admin = try PostgreSQLTestServer.admin(url)
        defer { admin.close() }
        try admin.execute("""
            CREATE TABLE og_failures (fail_first bigint NOT NULL, state text NOT NULL);
            INSERT INTO og_failures VALUES (0, '40001');
            CREATE SEQUENCE og_writes;
            CREATE FUNCTION og_fail() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE f og_failures;
            BEGIN
              SELECT * INTO f FROM og_failures;
              IF nextval('og_writes') <= f.fail_first THEN
                RAISE EXCEPTION 'injected failure' USING ERRCODE = f.state;
              END IF;
              RETURN NEW;
            END $$;
            CREATE TRIGGER og_fail BEFORE INSERT OR UPDATE ON "ZAUTHOR" FOR EACH ROW EXECUTE FUNCTION og_fail()
            """)
        func failFirst(_ n: Int, _ state: String) throws {
            try admin.execute("UPDATE og_failures SET fail_first = \(n), state = '\(state)'; SELECT setval('og_writes', 1, false)")
        }
        func writes() throws -> String { try PostgreSQLTestServer.rows(url, "SELECT last_value FROM og_writes")[0][0] }

        try failFirst(3, "40001")
        let author = try context.insertObject(entityName: "Author")
        try author.setValue(.string("Retried"), forKey: "name")
        try context.save()
        XCTAssertEqual(try writes(), "4", "three aborted attempts, then the one that committed")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"Z_PK\", \"ZNAME\", \"Z_OPT\" FROM \"ZAUTHOR\""),
                       [["\(author.objectID.primaryKey)", "Retried", "1"]])

        try failFirst(2, "40P01")
        try author.setValue(.string("Renamed"), forKey: "name")
        try context.save()
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT \"ZNAME\", \"Z_OPT\" FROM \"ZAUTHOR\""), [["Renamed", "2"]], "one version step")

        try failFirst(100, "40001")
        let second = try context.insertObject(entityName: "Author")
        try second.setValue(.string("Unlucky"), forKey: "name")
        let e = expectError { try context.save() }
        XCTAssertEqual(e?.code, ErrorCode.storeSave)
        XCTAssertTrue(e?.message.contains("injected failure") ?? false, e?.message ?? "")
        XCTAssertEqual(try writes(), "\(PostgreSQLStore.retries + 1)", "every retry ran, then the save gave up")
        XCTAssertEqual(try PostgreSQLTestServer.rows(url, "SELECT count(*) FROM \"ZAUTHOR\""), [["1"]], "nothing was written")
        XCTAssertTrue(context.hasChanges)

        try failFirst(0, "40001")
        try context.save()
        let reader = ManagedObjectContext(coordinator: try add(url))
        let names = try reader.fetch(FetchRequest(entityName: "Author", sortKeys: [SortKey("name")])).map { try $0.value(forKey: "name") }
        XCTAssertEqual(names, [.string("Renamed"), .string("Unlucky")])
        XCTAssertEqual(Set(try reader.fetch(FetchRequest(entityName: "Author")).map(\.objectID.primaryKey)),
                       [author.objectID.primaryKey, second.objectID.primaryKey], "keys given before the retries are the ones stored")
    }

    func testMetadataIsReadAndWrittenWithoutAddingTheStore() throws {
        let store = try XCTUnwrap(add(url).persistentStores.first)
        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        XCTAssertEqual(metadata[StoreMetadataKey.storeUUID], .string(store.identifier))
        XCTAssertEqual(metadata[StoreMetadataKey.storeType], .string("PostgreSQL"))
        metadata["colour"] = .string("blue")
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: "PostgreSQL", at: url)
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: "PostgreSQL", at: url)["colour"], .string("blue"))
        XCTAssertEqual(try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: url).entitiesByName.keys.sorted(), ["Author", "Book", "Loan", "Tag"])
    }

    func testAStoreMovesFromSQLiteToPostgreSQLAndBackWithNothingLost() throws {
        let path = try temporaryDirectory() + "/lending.sqlite"
        let c = try PersistentStoreCoordinator(model: try makeLendingModel())
        ManagedObjectClasses.register(BookObject.self)
        let sqlite = try c.addPersistentStore(type: StoreType.sqlite, path: path)
        let context = ManagedObjectContext(coordinator: c)
        try insertSampleAuthors(context) { b, t in try b.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(t.count) * 1000.25)), forKey: "published") }
        let tag = try context.insertObject(entityName: "Tag")
        try tag.setValue(.string("classic"), forKey: "name")
        for b in try context.fetch(FetchRequest(entityName: "Book")) { try b.addObject(tag, forKey: "tags") }
        try context.save()
        let before = sqliteRows(path, "SELECT * FROM ZBOOK ORDER BY Z_PK") + sqliteRows(path, "SELECT * FROM Z_3TAGS ORDER BY 1, 2")

        let postgres = try c.migratePersistentStore(sqlite, to: url, type: "PostgreSQL")
        XCTAssertEqual(postgres.type, "PostgreSQL")
        XCTAssertEqual(try ManagedObjectContext(coordinator: c).count(for: FetchRequest(entityName: "Book")), 5)
        // Into a database that already holds a store: refused, nothing overwritten.
        XCTAssertEqual(expectError { try c.migratePersistentStore(postgres, to: self.url, type: "PostgreSQL") }?.code, ErrorCode.storeOperation)
        let back = try temporaryDirectory() + "/back.sqlite"
        _ = try c.migratePersistentStore(postgres, to: back, type: StoreType.sqlite)
        XCTAssertEqual(sqliteRows(back, "SELECT * FROM ZBOOK ORDER BY Z_PK") + sqliteRows(back, "SELECT * FROM Z_3TAGS ORDER BY 1, 2"), before)
    }
}

extension PostgreSQLAddress {
    static func redactedForTest(_ text: String) -> String { (try? PostgreSQLAddress(text, schema: nil).redacted) ?? "?" }
}
