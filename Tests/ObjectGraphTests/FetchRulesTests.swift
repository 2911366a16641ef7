import XCTest

@testable import ObjectGraph

/// The fetch rules of §2.13 not covered by FetchOptionsTests (2, 4, 6, 7, 10) and
/// FetchResultTypeTests (8, 9): what matches (1), transient keys (3), sorting the merged
/// result (5), errors and empty results (11), templates (12).
final class FetchRulesTests: XCTestCase {
    /// Media (abstract) > Book, Disc; Book > Comic. Every concrete entity has one saved object.
    private func mediaStack() throws -> Stack {
        let model = ManagedObjectModel()
        let media = try model.addEntity(named: "Media")
        try media.setAbstract(true)
        try media.addAttribute(named: "title", type: .string)
        try media.addAttribute(named: "note", type: .string).setTransient(true)
        let book = try model.addEntity(named: "Book")
        try book.setSuperentity(media)
        let comic = try model.addEntity(named: "Comic")
        try comic.setSuperentity(book)
        let disc = try model.addEntity(named: "Disc")
        try disc.setSuperentity(media)
        try model.setFetchRequestTemplate(
            FetchRequestTemplate(entityName: "Book", predicateFormat: "title BEGINSWITH $PREFIX", sortKeys: [SortKey("title")]), forName: "BooksFrom")
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/media.sqlite")
        for (entity, title) in [("Book", "Mort"), ("Comic", "Maus"), ("Disc", "Blue")] {
            let o = try stack.context.insertObject(entityName: entity)
            try o.setValue(.string(title), forKey: "title")
        }
        try stack.context.save()
        return stack
    }

    private func titles(_ objects: [ManagedObject]) -> [String] { objects.compactMap { $0.string("title") } }

    func testRule2_13_1_theEntityAndItsSubentitiesMatchUnlessExcluded() throws {
        let stack = try mediaStack()
        let ctx = ManagedObjectContext(coordinator: stack.coordinator)
        let sorted = [SortKey("title")]
        XCTAssertEqual(titles(try ctx.fetch(FetchRequest(entityName: "Media", sortKeys: sorted))), ["Blue", "Maus", "Mort"],
                       "an abstract entity yields its concrete subentities' instances")
        XCTAssertEqual(titles(try ctx.fetch(FetchRequest(entityName: "Book", sortKeys: sorted))), ["Maus", "Mort"])
        let exactly = FetchRequest(entityName: "Book", sortKeys: sorted)
        exactly.includesSubentities = false
        XCTAssertEqual(titles(try ctx.fetch(exactly)), ["Mort"])
        XCTAssertEqual(try ctx.count(for: exactly), 1)
        XCTAssertEqual(titles(try ctx.fetch(FetchRequest(entityName: "Media", predicate: nil))).count, 3, "a nil predicate matches everything")
        let comic = try XCTUnwrap(try ctx.fetch(FetchRequest(entityName: "Media", predicate: try ObjectPredicate(format: "title == 'Maus'"))).first)
        XCTAssertEqual(comic.entity.name, "Comic", "objects have their concrete entity")
    }

    func testRule2_13_3_transientKeysAreMatchedInMemoryOnly() throws {
        let stack = try mediaStack()
        let ctx = stack.context
        let mort = try XCTUnwrap(try ctx.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Mort'"))).first)
        try mort.setValue("keep", forKey: "note")
        let byNote = FetchRequest(entityName: "Media", predicate: try ObjectPredicate(format: "note == 'keep'"))
        XCTAssertTrue(try ctx.fetch(byNote).map(ObjectIdentifier.init) == [ObjectIdentifier(mort)])
        // The store has no column for it: SQL leaves the predicate to memory.
        let store = try XCTUnwrap(stack.store as? SQLiteStore)
        XCTAssertFalse(store.explain(byNote, entity: stack.model.entitiesByName["Media"]!).isExact)
        XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).fetch(byNote).count, 0,
                       "another context has no value for the transient key")
    }

    func testRule2_13_5_sortKeysApplyInOrderOverTheMergedResult() throws {
        let stack = try mediaStack()
        let ctx = stack.context
        for (entity, title) in [("Disc", "Maus"), ("Book", "Aardvark")] {
            let o = try ctx.insertObject(entityName: entity)
            try o.setValue(.string(title), forKey: "title")
        }
        let request = FetchRequest(entityName: "Media", sortKeys: [SortKey("title", ascending: false)])
        XCTAssertEqual(titles(try ctx.fetch(request)), ["Mort", "Maus", "Maus", "Blue", "Aardvark"])
        // Ties on the first key: the saved object (by primary key) before the new one.
        let tied = try ctx.fetch(request).filter { $0.string("title") == "Maus" }
        XCTAssertEqual(tied.map(\.entity.name), ["Comic", "Disc"])
        request.fetchLimit = 2
        request.fetchOffset = 1
        XCTAssertEqual(titles(try ctx.fetch(request)), ["Maus", "Maus"])
    }

    func testRule2_13_11_errorsAreErrorsAndNoMatchIsAnEmptyArray() throws {
        let stack = try mediaStack()
        let ctx = stack.context
        XCTAssertEqual(try ctx.fetch(FetchRequest(entityName: "Media", predicate: try ObjectPredicate(format: "title == 'none'"))).count, 0)
        XCTAssertEqual(expectError { _ = try ctx.fetch(FetchRequest(entityName: "Nothing")) }?.code, ErrorCode.unknownEntity)
        XCTAssertEqual(expectError { _ = try ctx.fetch(FetchRequest(entityName: "Media", predicate: try ObjectPredicate(format: "colour == 1"))) }?.code,
                       ErrorCode.unknownKey)
        XCTAssertEqual(expectError { _ = try ctx.fetch(FetchRequest(entityName: "Media", sortKeys: [SortKey("colour")])) }?.code, ErrorCode.unknownKey)
        XCTAssertEqual(expectError { _ = try ctx.count(for: FetchRequest(entityName: "Media", predicate: try ObjectPredicate(format: "title > 3"))) }?.code,
                       ErrorCode.predicateEvaluation)
        XCTAssertFalse(ctx.hasChanges, "a failed fetch changes nothing")
    }

    func testRule2_13_12_templatesBecomeRequests() throws {
        let stack = try mediaStack()
        let request = try stack.model.fetchRequest(fromTemplateNamed: "BooksFrom", substitutionVariables: ["PREFIX": .scalar(.string("M"))])
        XCTAssertEqual(titles(try stack.context.fetch(request)), ["Maus", "Mort"])
        XCTAssertEqual(expectError { _ = try stack.model.fetchRequest(fromTemplateNamed: "BooksFrom") }?.code, ErrorCode.predicateVariable)
    }
}
