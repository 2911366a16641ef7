import Foundation
import ObjectGraph
import XCTest

/// Persistent history (`ContextHistory.swift`, `ContextSave+History.swift`,
/// `SQLiteHistory.swift`): one transaction per save and per batch in Apple's tables, read
/// back after a token, a date or a transaction, filtered, purged, and merged.
final class ContextHistoryTests: XCTestCase {
    static func makeModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "title", type: .string)
        try note.addAttribute(named: "body", type: .string).setPreservesValueInHistoryOnDeletion(true)
        try note.addAttribute(named: "stars", type: .integer32, defaultValue: 0)
        return model
    }

    var path: String!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/history.sqlite"
        model = try Self.makeModel()
    }

    func open(tracking: Bool = true, author: String? = nil) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path,
                                               options: tracking ? [StoreOptionKey.historyTracking: .boolean(true)] : [:])
        let context = ManagedObjectContext(coordinator: coordinator)
        context.transactionAuthor = author
        return context
    }

    @discardableResult
    func insertNote(_ context: ManagedObjectContext, _ title: String, body: String = "text") throws -> ManagedObject {
        let o = try context.insertObject(entityName: "Note")
        try o.setValue(.string(title), forKey: "title")
        try o.setValue(.string(body), forKey: "body")
        return o
    }

    func testEachSaveIsOneTransactionWithOneChangePerObject() throws {
        let context = try open(author: "importer")
        context.name = "main"
        let a = try insertNote(context, "a"), b = try insertNote(context, "b")
        try context.save()
        try a.setValue(.integer(3), forKey: "stars")
        try context.delete(b)
        try context.save()
        try context.save()  // nothing changed: no transaction

        let history = try context.history()
        XCTAssertEqual(history.map(\.transactionNumber), [1, 2])
        XCTAssertEqual(history[0].author, "importer")
        XCTAssertEqual(history[0].contextName, "main")
        XCTAssertEqual(history[0].storeIdentifier, context.persistentStoreCoordinator.persistentStores[0].identifier)
        XCTAssertLessThan(abs(history[0].timestamp.timeIntervalSinceNow), 60)
        XCTAssertEqual(history[0].changes?.map(\.changeType), [.insert, .insert])
        XCTAssertEqual(history[0].changes?.map(\.changedObjectID), [a.objectID, b.objectID])
        let second = try XCTUnwrap(history[1].changes)
        XCTAssertEqual(second.map(\.changeType), [.update, .delete])
        XCTAssertEqual(second[0].updatedProperties, ["stars"])
        XCTAssertNil(second[0].tombstone)
        XCTAssertEqual(second[1].tombstone, ["body": .string("text")], "only attributes preserved in history are in the tombstone")
        XCTAssertNil(second[1].updatedProperties)
        XCTAssertEqual(second[1].transaction.transactionNumber, 2)

        // Apple's tables: strings interned, numbers from Z_PRIMARYKEY.
        XCTAssertEqual(sqliteRows(path, "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"),
                       [["CHANGE", "4"], ["TRANSACTION", "2"], ["TRANSACTIONSTRING", "3"]])
        XCTAssertEqual(sqliteRows(path, "SELECT s.ZNAME FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS"), [["importer"], ["importer"]])
        XCTAssertEqual(sqliteRows(path, "SELECT ZCHANGETYPE, ZENTITYPK, ZTRANSACTIONID, IFNULL(ZTOMBSTONE0, '-') FROM ACHANGE ORDER BY Z_PK"),
                       [["0", "1", "1", "-"], ["0", "2", "1", "-"], ["1", "1", "2", "-"], ["2", "2", "2", "text"]])
    }

    func testHistoryAfterATokenADateOrATransactionIsExclusive() throws {
        let context = try open()
        for i in 0..<3 {
            try insertNote(context, "n\(i)")
            try context.save()
        }
        let all = try context.history()
        XCTAssertEqual(try context.history(after: .token(all[0].token)).map(\.transactionNumber), [2, 3])
        XCTAssertEqual(try context.history(after: .transaction(all[1])).map(\.transactionNumber), [3])
        XCTAssertEqual(try context.history(after: .date(all[1].timestamp)).map(\.transactionNumber), [3])
        XCTAssertEqual(try context.history(after: .token(all[2].token)).count, 0)
        let current = try XCTUnwrap(try context.persistentStoreCoordinator.currentPersistentHistoryToken())
        XCTAssertEqual(current, all[2].token)
    }

    func testTokensArchiveCompareAndRefuseForgeries() throws {
        let context = try open()
        try insertNote(context, "x")
        try context.save()
        let token = try XCTUnwrap(try context.persistentStoreCoordinator.currentPersistentHistoryToken())
        let back = try PersistentHistoryToken(archive: token.archived)
        XCTAssertEqual(back, token)
        XCTAssertEqual(Set([token, back]).count, 1)
        XCTAssertThrowsError(try PersistentHistoryToken(archive: Array(token.archived.prefix(10)))) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.invalidArgument)
        }
        // A token of a store that is not attached, and one past what the store wrote.
        let stranger = PersistentHistoryToken(transactionNumbers: ["0000-not-a-store": 1])
        XCTAssertThrowsError(try context.history(after: .token(stranger))) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.invalidArgument)
        }
        let storeID = context.persistentStoreCoordinator.persistentStores[0].identifier
        XCTAssertThrowsError(try context.history(after: .token(PersistentHistoryToken(transactionNumbers: [storeID: 99])))) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.invalidArgument)
        }
    }

    func testPurgingKeepsTheTokensTransactionAndExpiresOlderTokens() throws {
        let context = try open()
        var tokens: [PersistentHistoryToken] = []
        for i in 0..<4 {
            try insertNote(context, "n\(i)")
            try context.save()
            tokens.append(try XCTUnwrap(try context.persistentStoreCoordinator.currentPersistentHistoryToken()))
        }
        try context.deleteHistory(before: .token(tokens[2]))
        XCTAssertEqual(try context.history().map(\.transactionNumber), [3, 4])
        XCTAssertEqual(try context.history(after: .token(tokens[2])).map(\.transactionNumber), [4])
        XCTAssertThrowsError(try context.history(after: .token(tokens[0]))) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.historyTokenExpired)
        }
        // Numbers are never reused, and a purge by date removes everything before it.
        try context.deleteHistory(before: .date(Date().addingTimeInterval(60)))
        XCTAssertEqual(try context.history().count, 0)
        try insertNote(context, "late")
        try context.save()
        XCTAssertEqual(try context.history().map(\.transactionNumber), [5])
    }

    func testFetchRequestsFilterTransactionsAndChanges() throws {
        let context = try open(author: "alice")
        let a = try insertNote(context, "a")
        try context.save()
        context.transactionAuthor = "bob"
        try insertNote(context, "b")
        try a.setValue(.string("a2"), forKey: "title")
        try context.save()

        let byBob = HistoryChangeRequest.transactionFetchRequest(predicate: try ObjectPredicate(format: "author == 'bob'"))
        XCTAssertEqual(try context.history(fetchRequest: byBob).map(\.transactionNumber), [2])
        let updates = HistoryChangeRequest.changeFetchRequest(predicate: try ObjectPredicate(format: "changeType == 1"))
        guard case .changes(let changes) = try context.execute(HistoryChangeRequest(fetchRequest: updates, resultType: .changesOnly)) else {
            return XCTFail("changes asked for")
        }
        XCTAssertEqual(changes.map(\.changedObjectID), [a.objectID])
        let ofA = HistoryChangeRequest.changeFetchRequest(predicate: try ObjectPredicate(format: "changedObjectID == %@", arguments: [.object(a.objectID)]))
        XCTAssertEqual(try context.history(fetchRequest: ofA).map { $0.changes?.count }, [1, 1])
        XCTAssertEqual(try context.execute(HistoryChangeRequest(resultType: .count)).countValue, 2)
        guard case .transactions(let headers) = try context.execute(HistoryChangeRequest(resultType: .transactionsOnly)) else { return XCTFail() }
        XCTAssertTrue(headers.allSatisfy { $0.changes == nil })

        let sorted = HistoryChangeRequest.transactionFetchRequest()
        sorted.sortKeys = [SortKey("timestamp")]
        XCTAssertThrowsError(try context.history(fetchRequest: sorted)) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.invalidArgument)
        }
        XCTAssertThrowsError(try context.execute(HistoryChangeRequest(after: .date(Date()), before: .date(Date()))))
        XCTAssertThrowsError(try context.history(fetchRequest: FetchRequest(entityName: "Note")))
    }

    func testBatchesAreOneTransactionEach() throws {
        let context = try open(author: "batch")
        let insert = BatchInsertRequest(entityName: "Note", objects: (0..<5).map { ["title": .string("t\($0)"), "body": .string("b\($0)")] })
        _ = try context.execute(insert)
        _ = try context.execute(BatchUpdateRequest(entityName: "Note", predicate: try ObjectPredicate(format: "title IN {'t1', 't2'}"),
                                                   propertiesToUpdate: ["stars": .integer(5)]))
        _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Note", predicate: try ObjectPredicate(format: "title == 't4'"))))
        let history = try context.history()
        XCTAssertEqual(history.map { $0.changes?.count }, [5, 2, 1])
        XCTAssertEqual(history[0].changes?.map(\.changeType), Array(repeating: .insert, count: 5))
        XCTAssertEqual(history[1].changes?.first?.updatedProperties, ["stars"])
        XCTAssertEqual(history[2].changes?.first?.tombstone, ["body": .string("b4")])
        XCTAssertEqual(history.map(\.author), ["batch", "batch", "batch"])
    }

    /// The documented pattern: another coordinator saves; this one reads the history after
    /// its last token and merges the transaction's object IDs.
    func testMergingFromHistoryBringsAnotherCoordinatorsSave() throws {
        let reader = try open()
        let seen = try insertNote(reader, "shared")
        try reader.save()
        var last = try XCTUnwrap(try reader.persistentStoreCoordinator.currentPersistentHistoryToken())

        let writer = try open(author: "writer")
        let other = try XCTUnwrap(try writer.existingObject(with: seen.objectID))
        try other.setValue(.string("changed elsewhere"), forKey: "title")
        try insertNote(writer, "new")
        try writer.save()

        let news = try reader.history(after: .token(last))
        XCTAssertEqual(news.map(\.author), ["writer"])
        for t in news { try ManagedObjectContext.mergeChanges(fromRemoteContextSave: t.objectIDNotification(), into: [reader]) }
        last = news.last!.token
        XCTAssertEqual(seen.string("title"), "changed elsewhere")
        XCTAssertEqual(try reader.history(after: .token(last)).count, 0)
    }

    func testAStoreWithoutTrackingRecordsNothingAndInMemoryStoresRefuse() throws {
        let context = try open(tracking: false)
        try insertNote(context, "x")
        try context.save()
        XCTAssertEqual(try context.history().count, 0)
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'ATRANSACTION'"), [["0"]])

        let coordinator = try PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
        XCTAssertThrowsError(try ManagedObjectContext(coordinator: coordinator).history()) { error in
            XCTAssertEqual((error as? ObjectGraphError)?.code, ErrorCode.storeUnsupportedRequestType)
        }
    }

    /// A save over two stores is one transaction in each; the history reads both, and a
    /// token names where each stands.
    func testASaveOverTwoStoresIsATransactionInEach() throws {
        let model = ManagedObjectModel()
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "title", type: .string)
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "name", type: .string)
        try model.setEntities([note], forConfiguration: "Notes")
        try model.setEntities([tag], forConfiguration: "Tags")
        let folder = try temporaryDirectory()
        let coordinator = try PersistentStoreCoordinator(model: model)
        let tracking: [String: PropertyListValue] = [StoreOptionKey.historyTracking: .boolean(true)]
        let notes = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Notes", path: folder + "/notes.sqlite", options: tracking)
        let tags = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: "Tags", path: folder + "/tags.sqlite", options: tracking)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertObject(entityName: "Note").setValue(.string("n"), forKey: "title")
        try context.insertObject(entityName: "Tag").setValue(.string("t"), forKey: "name")
        try context.save()
        let history = try context.history()
        XCTAssertEqual(Set(history.map(\.storeIdentifier)), [notes.identifier, tags.identifier])
        XCTAssertEqual(history.map { $0.changes?.map(\.changedObjectID.entity.name) ?? [] }.sorted { $0[0] < $1[0] }, [["Note"], ["Tag"]])
        let token = try XCTUnwrap(try coordinator.currentPersistentHistoryToken())
        XCTAssertEqual(token.transactionNumbers, [notes.identifier: 1, tags.identifier: 1])
        try context.insertObject(entityName: "Tag").setValue(.string("u"), forKey: "name")
        try context.save()
        let after = try context.history(after: .token(token))
        XCTAssertEqual(after.map(\.storeIdentifier), [tags.identifier], "only the store the save wrote to")
        XCTAssertEqual(try coordinator.currentPersistentHistoryToken(fromStores: [notes])?.transactionNumbers, [notes.identifier: 1])
    }

    /// A store migrated in place keeps its history and its tokens: entity numbers, update
    /// bitmaps and tombstones follow the new model, and the migrator adds one transaction.
    func testAutomaticMigrationKeepsTheHistoryAndItsTokens() throws {
        let context = try open()
        let a = try insertNote(context, "a"), b = try insertNote(context, "b", body: "kept")
        try context.save()
        try a.setValue(.integer(4), forKey: "stars")
        try context.delete(b)
        try context.save()
        let before = try context.history()
        let token = before[1].token

        // The new model adds an entity that sorts first (every entity number moves) and
        // attributes before the old ones (every slot moves).
        let v2 = try Self.makeModel()
        let first = try v2.addEntity(named: "Aardvark")
        try first.addAttribute(named: "name", type: .string)
        let note = try XCTUnwrap(v2.entity(named: "Note"))
        try note.addAttribute(named: "aaTag", type: .string)
        let coordinator = try PersistentStoreCoordinator(model: v2)
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: [
            StoreOptionKey.historyTracking: .boolean(true), StoreOptionKey.migrateAutomatically: .boolean(true),
            StoreOptionKey.inferMappingModel: .boolean(true)])
        let migrated = ManagedObjectContext(coordinator: coordinator)
        let after = try migrated.history()
        XCTAssertEqual(after.map(\.transactionNumber), [1, 2, 3])
        XCTAssertEqual(after[2].author, "com.apple.coredata.schemamigrator.lightweight")
        XCTAssertEqual(after[2].changes?.count, 0)
        XCTAssertEqual(after[0].changes?.map(\.changedObjectID.entity.name), ["Note", "Note"])
        XCTAssertEqual(after[1].changes?[0].updatedProperties, ["stars"])
        XCTAssertEqual(after[1].changes?[1].tombstone, ["body": .string("kept")])
        XCTAssertEqual(try migrated.history(after: .token(token)).map(\.transactionNumber), [3], "tokens stay valid")
        let n = try migrated.insertObject(entityName: "Note")
        try n.setValue(.string("new"), forKey: "title")
        try migrated.save()
        XCTAssertEqual(try migrated.history(after: .token(token)).map(\.transactionNumber), [3, 4])
    }

    /// A store copied to a new file with history tracking on both sides keeps its history.
    func testMigratingAStoreToANewFileCopiesItsHistory() throws {
        let context = try open(author: "me")
        try insertNote(context, "a")
        try context.save()
        let gone = try insertNote(context, "b", body: "tomb")
        try context.save()
        try context.delete(gone)
        try context.save()
        try context.deleteHistory(before: .token(try context.history()[1].token))
        let coordinator = context.persistentStoreCoordinator
        let copyPath = try temporaryDirectory() + "/copy.sqlite"
        let copy = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: copyPath, type: StoreType.sqlite,
                                                          options: [StoreOptionKey.historyTracking: .boolean(true)])
        let history = try context.history()
        XCTAssertEqual(history.map(\.transactionNumber), [2, 3, 4])
        XCTAssertEqual(history.map(\.storeIdentifier), Array(repeating: copy.identifier, count: 3))
        XCTAssertEqual(history.map(\.author), ["me", "me", "com.apple.coredata.schemamigrator.lightweight"])
        XCTAssertEqual(history[1].changes?.first?.tombstone, ["body": .string("tomb")])
        try insertNote(context, "c")
        try context.save()
        XCTAssertEqual(try context.history().last?.transactionNumber, 5)
    }

    /// A store Apple's Core Data wrote with history tracking on: its one transaction and
    /// 5,468 inserts read back (fixture facts in coredataplus/MANIFEST.md).
    func testHistoryOfAnAppleStoreReadsBack() throws {
        let fixture = AppleStoreTests.sample2V1
        let copy = try AppleStoreTests.copy(fixture)
        let appleModel = try ManagedObjectModel(contentsOf: "\(AppleStoreTests.root)/\(fixture.model)")
        let coordinator = try PersistentStoreCoordinator(model: appleModel)
        _ = try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: copy, options: [StoreOptionKey.historyTracking: .boolean(true)])
        let context = ManagedObjectContext(coordinator: coordinator)
        let history = try context.history()
        XCTAssertEqual(history.count, 1)
        XCTAssertEqual(history[0].changes?.count, 5468)
        XCTAssertEqual(history[0].bundleID, "com.apple.dt.xctest.tool")
        XCTAssertEqual(history[0].processID, "xctest")
        XCTAssertNil(history[0].author)
        XCTAssertEqual(history[0].timestamp.timeIntervalSinceReferenceDate, 737057647.288022, accuracy: 1e-6)
        XCTAssertEqual(Set(history[0].changes!.map(\.changeType)), [.insert])
        // Our next save continues Apple's numbering.
        let page = try XCTUnwrap(try context.fetch(FetchRequest(entityName: "Book")).first)
        try page.setValue(.string("title renamed"), forKey: "title")
        try context.save()
        XCTAssertEqual(try context.history(after: .token(history[0].token)).map(\.transactionNumber), [2])
    }
}

extension HistoryResult {
    var countValue: Int? { if case .count(let n) = self { n } else { nil } }
}
