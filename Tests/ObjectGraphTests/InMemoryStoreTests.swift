import Foundation
import ObjectGraph
import XCTest

/// The in-memory store: the same object graph behaviour as the SQLite store, checked by
/// running each scenario on both.
final class InMemoryStoreTests: XCTestCase {
    private let types = [StoreType.sqlite, StoreType.inMemory]

    private func eachStore(_ body: (Stack, String) throws -> Void) throws {
        for type in types {
            let stack = try lendingStack(type: type)
            try body(stack, type)
        }
    }

    private func book(_ ctx: ManagedObjectContext, _ title: String, _ pages: Int64) throws -> ManagedObject {
        let b = try ctx.insertObject(entityName: "Book")
        try b.setValue(.string(title), forKey: "title")
        try b.setValue(.integer(pages), forKey: "pages")
        return b
    }

    func testTheCoordinatorAddsAnInMemoryStore() throws {
        XCTAssertTrue(PersistentStoreCoordinator.registeredStoreTypes.contains(StoreType.inMemory))
        let stack = try lendingStack(type: StoreType.inMemory)
        XCTAssertEqual(stack.store.type, "InMemory")
        XCTAssertEqual(stack.store.metadata[StoreMetadataKey.storeType]?.stringValue, "InMemory")
        XCTAssertEqual(stack.store.metadata[StoreMetadataKey.storeUUID]?.stringValue, stack.store.identifier)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stack.store.path), "nothing is written to disk")
        let unknown = expectError { _ = try stack.coordinator.addPersistentStore(type: "Nope", path: "") }
        XCTAssertEqual(unknown?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(unknown?.message.contains("InMemory") ?? false, "the message lists the known types")
    }

    func testFetchFiltersSortsAndWindowsInMemory() throws {
        try eachStore { stack, type in
            for (t, p) in [("C", 300), ("A", 100), ("D", 50), ("B", 200)] { _ = try book(stack.context, t, Int64(p)) }
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages >= 100"), sortKeys: [SortKey("title", ascending: false)])
            XCTAssertEqual(try fresh.fetch(request).compactMap { $0.string("title") }, ["C", "B", "A"], type)
            request.fetchLimit = 1
            request.fetchOffset = 1
            XCTAssertEqual(try fresh.fetch(request).compactMap { $0.string("title") }, ["B"], type)
            XCTAssertEqual(try fresh.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH 'A' OR pages < 60"))), 2, type)
            XCTAssertEqual(try fresh.count(for: FetchRequest(entityName: "Book")), 4, type)
            // Pending changes take part: an unsaved book, a changed one, a deleted one.
            _ = try book(fresh, "E", 500)
            let all = try fresh.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
            try fresh.delete(all[0])
            try all[3].setValue(10, forKey: "pages")
            XCTAssertEqual(try fresh.fetch(request).compactMap { $0.string("title") }, ["C"], type)
            XCTAssertEqual(try fresh.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages >= 100"))), 3, type)
        }
    }

    func testRelationshipsOfEveryKindReadBack() throws {
        try eachStore { stack, type in
            let ctx = stack.context
            let author = try ctx.insertObject(entityName: "Author")
            try author.setValue("Ursula", forKey: "name")
            let a = try book(ctx, "Earthsea", 183), b = try book(ctx, "Dispossessed", 387)
            for x in [a, b] { try x.setObject(author, forKey: "author") }
            let fantasy = try ctx.insertObject(entityName: "Tag"), classic = try ctx.insertObject(entityName: "Tag")
            try fantasy.setValue("fantasy", forKey: "name")
            try classic.setValue("classic", forKey: "name")
            try a.addObject(fantasy, forKey: "tags")
            try a.addObject(classic, forKey: "tags")
            try classic.addObject(b, forKey: "books")
            try ctx.save()

            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let books = try fresh.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
            XCTAssertEqual(try books[1].object(forKey: "author")?.string("name"), "Ursula", type)
            XCTAssertEqual(try books[0].object(forKey: "author")?.objects(forKey: "books").count, 2, type)
            XCTAssertEqual(try books[1].objects(forKey: "tags").compactMap { $0.string("name") }.sorted(), ["classic", "fantasy"], type)
            XCTAssertEqual(try books[0].objects(forKey: "tags").compactMap { $0.string("name") }, ["classic"], type)
            let tags = try fresh.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("name")]))
            XCTAssertEqual(try tags[0].objects(forKey: "books").count, 2, type)
            XCTAssertEqual(try fresh.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "ANY tags.name == 'fantasy'"))), 1, type)

            // Untagging from the other side, then deleting a tag: both sides forget it.
            try tags[0].removeObject(books[1], forKey: "books")
            try fresh.delete(tags[1])
            try fresh.save()
            let third = ManagedObjectContext(coordinator: stack.coordinator)
            let again = try third.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
            XCTAssertEqual(try again[1].objects(forKey: "tags").count, 0, type)
            XCTAssertEqual(try again[0].objects(forKey: "tags").count, 1, type)
            // Cascade: the author takes the books along.
            try third.delete(try again[0].object(forKey: "author")!)
            try third.save()
            XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).count(for: FetchRequest(entityName: "Book")), 0, type)
        }
    }

    func testAnOrderedToManyKeepsItsOrder() throws {
        for type in types {
            let model = try makeLendingModel()
            let shelf = try model.addEntity(named: "Shelf")
            let slots = try shelf.addRelationship(named: "books", destination: model.entitiesByName["Book"]!, toMany: true)
            try slots.setOrdered(true)
            try slots.setInverse(try model.entitiesByName["Book"]!.addRelationship(named: "shelf", destination: shelf))
            let unshelved = try shelf.addRelationship(named: "favourites", destination: model.entitiesByName["Book"]!, toMany: true)
            try unshelved.setOrdered(true)
            ManagedObjectClasses.register(BookObject.self)
            let stack = try Stack(model: model, path: try temporaryDirectory() + "/shelf.sqlite", type: type)
            let s = try stack.context.insertObject(entityName: "Shelf")
            let books = try ["A", "B", "C"].map { try book(stack.context, $0, 10) }
            try s.setObjects([books[1], books[0], books[2]], forKey: "books")
            try s.setObjects([books[2], books[1]], forKey: "favourites")
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let again = try fresh.fetch(FetchRequest(entityName: "Shelf"))[0]
            XCTAssertEqual(try again.objects(forKey: "books").compactMap { $0.string("title") }, ["B", "A", "C"], type)
            XCTAssertEqual(try again.objects(forKey: "favourites").compactMap { $0.string("title") }, ["C", "B"], "an inverse-less to-many, \(type)")
        }
    }

    func testAFailedSaveLeavesTheStoreAsItWas() throws {
        try eachStore { stack, type in
            let ctx = stack.context
            _ = try book(ctx, "Kept", 10)
            try ctx.save()
            let bad = try ctx.insertObject(entityName: "Loan")  // no borrower
            _ = try book(ctx, "Lost", 10)
            XCTAssertEqual(expectError { try ctx.save() }?.code, ErrorCode.validationMissingMandatoryProperty)
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            XCTAssertEqual(try fresh.fetch(FetchRequest(entityName: "Book")).compactMap { $0.string("title") }, ["Kept"], type)
            try ctx.delete(bad)
            try ctx.save()
            XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).count(for: FetchRequest(entityName: "Book")), 2, type)
        }
    }

    func testAStoreSaveThatThrowsAppliesNothing() throws {
        let model = try makeLendingModel()
        let coordinator = try PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
        let book = model.entitiesByName["Book"]!
        let title = book.propertiesByName["title"]!.slot
        func row(_ pk: Int64) -> StoreRowWrite {
            var values = [AttributeValue](repeating: .null, count: book.properties.count)
            values[title] = .string("T\(pk)")
            return StoreRowWrite(entity: book, primaryKey: pk, version: 1, values: values)
        }
        try store.save { tx throws(ObjectGraphError) in
            let pk = try tx.allocatePrimaryKeys(for: book, count: 1)
            XCTAssertEqual(pk, 1)
            try tx.insert(row(pk))
        }
        let error = expectError {
            try store.save { tx throws(ObjectGraphError) in
                try tx.insert(row(try tx.allocatePrimaryKeys(for: book, count: 1)))
                try tx.insert(row(1))  // a key that is taken
            }
        }
        XCTAssertEqual(error?.code, ErrorCode.storeSave)
        XCTAssertEqual(try store.fetchRows(FetchRequest(entityName: "Book"), entity: book).rows.map(\.primaryKey), [1], "the failed save left nothing")
        XCTAssertEqual(try store.fetchRow(entity: book, primaryKey: 1)?.values[title], .string("T1"))
    }
}
