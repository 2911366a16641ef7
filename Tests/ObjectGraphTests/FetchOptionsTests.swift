import XCTest

@testable import ObjectGraph

/// The options of object fetches (§2.13 rules 2, 4, 6, 7 and 10): pending changes on or
/// off, faults with cached rows, rows without values, batch faulting and prefetching. A
/// second stack on the same file changes rows behind the first one's back, which shows
/// whether a later read went to the store.
final class FetchOptionsTests: XCTestCase {
    private var path = ""
    private var stack: Stack!
    /// Another coordinator on the same file: its saves are what the store holds now.
    private var other: Stack!
    /// The context under test: fresh, so nothing is registered before its fetches.
    private var ctx: ManagedObjectContext!

    override func setUpWithError() throws {
        path = try temporaryDirectory() + "/options.sqlite"
        stack = try lendingStack(path)
        try insertSampleAuthors(stack.context)
        try stack.context.save()
        other = try lendingStack(path)
        // A fresh context on the first coordinator: nothing registered yet.
        ctx = ManagedObjectContext(coordinator: stack.coordinator)
    }

    private func books(_ configure: (FetchRequest) -> Void = { _ in }) throws -> [ManagedObject] {
        let request = FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])
        configure(request)
        return try ctx.fetch(request)
    }

    /// Renames a book through the other stack (a store write the first context does not see).
    private func renameBehindTheBack(_ title: String, to newTitle: String) throws {
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == %@", arguments: [.scalar(.string(title))]))
        let book = try XCTUnwrap(try other.context.fetch(request).first)
        try book.setValue(.string(newTitle), forKey: "title")
        try other.context.save()
    }

    func testRule2_13_2_withoutPendingChangesOnlyTheStoreAnswers() throws {
        let all = try books()
        let fresh = try ctx.insertObject(entityName: "Book")
        try fresh.setValue("Aardvark", forKey: "title")
        try ctx.delete(all[0])
        try all[1].setValue("Zzz", forKey: "title")
        let merged = try books().map { $0.string("title") }
        XCTAssertEqual(merged.first, "Aardvark")
        XCTAssertFalse(merged.contains("Dawn"), "a deleted object is left out")
        let storeOnly = try books { $0.includesPendingChanges = false }
        XCTAssertFalse(storeOnly.contains { $0 === fresh }, "unsaved inserts are ignored")
        XCTAssertTrue(storeOnly.contains { $0 === all[0] }, "an unsaved delete may still appear")
        XCTAssertEqual(storeOnly.count, 5)
        // Matched on what the store holds: the object itself is returned as it is.
        let byStoredTitle = try books { $0.includesPendingChanges = false; $0.predicate = try! ObjectPredicate(format: "title == 'Earthsea'") }
        XCTAssertTrue(byStoredTitle.count == 1 && byStoredTitle[0] === all[1])
        XCTAssertEqual(byStoredTitle[0].string("title"), "Zzz")
        let counted = FetchRequest(entityName: "Book")
        counted.includesPendingChanges = false
        XCTAssertEqual(try ctx.count(for: counted), 5)
        counted.includesPendingChanges = true
        XCTAssertEqual(try ctx.count(for: counted), 5 - 1 + 1)
    }

    func testRule2_13_4_fetchedObjectsAreFaultsWithTheirRowCached() throws {
        let fetched = try books()
        XCTAssertTrue(fetched.allSatisfy(\.isFault), "returnsObjectsAsFaults: objects come back as faults")
        try renameBehindTheBack("Dawn", to: "Dusk")
        XCTAssertEqual(fetched[0].string("title"), "Dawn", "firing used the row read with the fetch, not the store")
        XCTAssertFalse(fetched[0].isFault)
        XCTAssertTrue(fetched[1].isFault, "only the object read was fired")
    }

    func testRule2_13_4_returnsObjectsAsFaultsOffGivesLoadedObjects() throws {
        BookObject.events = []
        let fetched = try books { $0.returnsObjectsAsFaults = false }
        XCTAssertTrue(fetched.allSatisfy { !$0.isFault })
        XCTAssertEqual(BookObject.events.filter { $0 == "awakeFromFetch" }.count, 5, "awakeFromFetch ran at the fetch")
        BookObject.events = []
        let second = ManagedObjectContext(coordinator: stack.coordinator)
        let faults = try second.fetch(FetchRequest(entityName: "Book"))
        XCTAssertTrue(BookObject.events.isEmpty, "a fault awakes when it fires, not at the fetch")
        _ = faults[0].string("title")
        XCTAssertEqual(BookObject.events, ["awakeFromFetch"])
    }

    func testRule2_13_4_withoutPropertyValuesFiringReadsTheStore() throws {
        let fetched = try books { $0.includesPropertyValues = false }
        XCTAssertEqual(fetched.count, 5)
        XCTAssertTrue(fetched.allSatisfy(\.isFault))
        try renameBehindTheBack("Dawn", to: "Dusk")
        XCTAssertEqual(fetched[0].string("title"), "Dusk", "no row was cached: firing read the store")
        // Objects already in memory come back as they are.
        let again = try books { $0.includesPropertyValues = false }
        XCTAssertTrue(again[0] === fetched[0] || again.contains { $0 === fetched[0] })
        XCTAssertEqual(fetched[0].string("title"), "Dusk")
    }

    func testRule2_13_6_offsetAndLimitApplyAfterSortingAndMerging() throws {
        let fresh = try ctx.insertObject(entityName: "Book")
        try fresh.setValue("Beta", forKey: "title")
        let window = try books { $0.fetchOffset = 1; $0.fetchLimit = 2 }
        XCTAssertEqual(window.map { $0.string("title") }, ["Dawn", "Earthsea"])
        let beyond = try books { $0.fetchOffset = 10 }
        XCTAssertEqual(beyond.count, 0)
        XCTAssertThrowsError(try books { $0.fetchLimit = -1 })
    }

    func testRule2_13_7_aBatchLoadsTogetherWhenOneOfItFires() throws {
        let fetched = try books { $0.fetchBatchSize = 2 }
        XCTAssertEqual(fetched.map(\.objectID.primaryKey).count, 5, "every match is identified up front")
        XCTAssertTrue(fetched.allSatisfy(\.isFault))
        // Sorted by title: Dawn, Earthsea | Imago, Kindred | Lathe.
        XCTAssertEqual(fetched[0].string("title"), "Dawn")
        try renameBehindTheBack("Earthsea", to: "Earthsea (revised)")
        try renameBehindTheBack("Imago", to: "Imago (revised)")
        XCTAssertEqual(fetched[1].string("title"), "Earthsea", "loaded with its batch when Dawn fired")
        XCTAssertEqual(fetched[2].string("title"), "Imago (revised)", "the next batch loads only when one of it fires")
        XCTAssertEqual(fetched[3].string("title"), "Kindred")
        XCTAssertEqual(fetched[4].string("title"), "Lathe")
    }

    func testRule2_13_10_prefetchingReadsTheRelationshipsWithTheFetch() throws {
        let request = FetchRequest(entityName: "Author", sortKeys: [SortKey("name")])
        request.relationshipKeyPathsForPrefetching = ["books"]
        let authors = try ctx.fetch(request)
        XCTAssertEqual(authors.map { $0.string("name") }, ["Banks", "Butler", "Le Guin"])
        // Changes saved after the fetch are not seen: the contents were read with it.
        let banks = try XCTUnwrap(try other.context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == 'Banks'"))).first)
        let newBook = try other.context.insertObject(entityName: "Book")
        try newBook.setValue("Excession", forKey: "title")
        try newBook.setObject(banks, forKey: "author")
        try other.context.save()
        try renameBehindTheBack("Kindred", to: "Kindred (revised)")
        XCTAssertEqual(try authors[0].objects(forKey: "books").count, 0)
        XCTAssertEqual(Set(try authors[1].objects(forKey: "books").map { $0.string("title") }), ["Kindred", "Dawn", "Imago"])
        XCTAssertEqual(try authors[2].objects(forKey: "books").count, 2)

        // To-one, two steps: book → author → books.
        let fresh = ManagedObjectContext(coordinator: stack.coordinator)
        let byBook = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Lathe'"))
        byBook.relationshipKeyPathsForPrefetching = ["author.books"]
        let lathe = try XCTUnwrap(try fresh.fetch(byBook).first)
        try renameBehindTheBack("Earthsea", to: "Earthsea (again)")
        let author = try XCTUnwrap(try lathe.object(forKey: "author"))
        XCTAssertEqual(author.string("name"), "Le Guin")
        XCTAssertEqual(Set(try author.objects(forKey: "books").map { $0.string("title") }), ["Lathe", "Earthsea"])
    }

    func testPrefetchingKeyPathsAreChecked() throws {
        let request = FetchRequest(entityName: "Book")
        request.relationshipKeyPathsForPrefetching = ["writer"]
        XCTAssertEqual(expectError { _ = try self.ctx.fetch(request) }?.code, ErrorCode.unknownKey)
        request.relationshipKeyPathsForPrefetching = ["title"]
        XCTAssertEqual(expectError { _ = try self.ctx.fetch(request) }?.code, ErrorCode.typeMismatch)
        request.relationshipKeyPathsForPrefetching = ["author.books.tags"]
        XCTAssertEqual(try ctx.fetch(request).count, 5)
    }

    func testOptionsWorkOnEveryStoreType() throws {
        for type in [StoreType.inMemory, StoreType.binary] {
            let path = type == StoreType.binary ? try temporaryDirectory() + "/o.bin" : ""
            let s = try lendingStack(path, type: type)
            let a = try s.context.insertObject(entityName: "Author")
            try a.setValue("A", forKey: "name")
            for t in ["x", "y", "z"] {
                let b = try s.context.insertObject(entityName: "Book")
                try b.setValue(.string(t), forKey: "title")
                try b.setObject(a, forKey: "author")
            }
            try s.context.save()
            let ctx = ManagedObjectContext(coordinator: s.coordinator)
            let request = FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])
            request.fetchBatchSize = 2
            request.includesPropertyValues = false
            request.relationshipKeyPathsForPrefetching = ["author"]
            let fetched = try ctx.fetch(request)
            XCTAssertEqual(fetched.map { $0.string("title") }, ["x", "y", "z"], type)
            XCTAssertEqual(try fetched[2].object(forKey: "author")?.string("name"), "A")
        }
    }
}
