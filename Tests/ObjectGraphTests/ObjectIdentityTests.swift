import Foundation
@testable import ObjectGraph
import XCTest

/// Object IDs and entities as predicate arguments (ObjectIdentity.swift): they match as the
/// objects would, in SQL and in memory, on every store type and among pending changes.
final class ObjectIdentityTests: XCTestCase {
    private static let storeTypes = [StoreType.sqlite, StoreType.inMemory, StoreType.binary]

    /// Author (name, books) and Book (title, author) with a subentity Comic.
    private func model() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string)
        let comic = try model.addEntity(named: "Comic")
        try comic.setSuperentity(book)
        try comic.addAttribute(named: "artist", type: .string)
        let books = try author.addRelationship(named: "books", destination: book, toMany: true)
        let writer = try book.addRelationship(named: "author", destination: author)
        try books.setInverse(writer)
        return model
    }

    private struct Library {
        let stack: Stack
        var pratchett: ManagedObject
        var gaiman: ManagedObject
        var mort: ManagedObject
        var sandman: ManagedObject
    }

    /// Pratchett wrote Mort and Sourcery, Gaiman the comic Sandman and the book Coraline.
    private func library(_ type: String) throws -> Library {
        let path = type == StoreType.inMemory ? "" : try temporaryDirectory() + "/ids.store"
        let stack = try Stack(model: try model(), path: path, type: type)
        let ctx = stack.context
        func author(_ name: String) throws -> ManagedObject {
            let a = try ctx.insertObject(entityName: "Author")
            try a.setValue(.string(name), forKey: "name")
            return a
        }
        func book(_ title: String, _ entity: String, _ author: ManagedObject) throws -> ManagedObject {
            let b = try ctx.insertObject(entityName: entity)
            try b.setValue(.string(title), forKey: "title")
            try b.setObject(author, forKey: "author")
            return b
        }
        let pratchett = try author("Pratchett"), gaiman = try author("Gaiman")
        let mort = try book("Mort", "Book", pratchett)
        _ = try book("Sourcery", "Book", pratchett)
        let sandman = try book("Sandman", "Comic", gaiman)
        _ = try book("Coraline", "Book", gaiman)
        try ctx.save()
        return Library(stack: stack, pratchett: pratchett, gaiman: gaiman, mort: mort, sandman: sandman)
    }

    private func names(_ stack: Stack, _ entity: String, _ format: String, _ args: [PredicateValue]) throws -> [String] {
        let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format, arguments: args))
        let key = entity == "Author" ? "name" : "title"
        return try stack.context.fetch(request).map { o in
            guard case .string(let s) = try o.value(forKey: key) else { return "?" }
            return s
        }.sorted()
    }

    private func entity(_ stack: Stack, _ name: String) -> PredicateValue { .object(stack.model.entitiesByName[name]!) }

    func testObjectIDArgumentsMatchTheirObjectsOnEveryStore() throws {
        for type in Self.storeTypes {
            let lib = try library(type)
            let s = lib.stack
            let pratchett = PredicateValue.object(lib.pratchett.objectID)
            XCTAssertEqual(try names(s, "Book", "author == %@", [pratchett]), ["Mort", "Sourcery"], type)
            XCTAssertEqual(try names(s, "Book", "author != %@", [pratchett]), ["Coraline", "Sandman"], type)
            XCTAssertEqual(try names(s, "Book", "SELF == %@", [.object(lib.mort.objectID)]), ["Mort"], type)
            XCTAssertEqual(try names(s, "Book", "SELF IN %@", [[.object(lib.mort.objectID), .object(lib.sandman.objectID)]]), ["Mort", "Sandman"], type)
            XCTAssertEqual(try names(s, "Book", "author IN %@", [[.object(lib.gaiman.objectID)]]), ["Coraline", "Sandman"], type)
            XCTAssertEqual(try names(s, "Author", "ANY books == %@", [.object(lib.sandman.objectID)]), ["Gaiman"], type)
            // An ID known only by its URI, as C and Python give it, matches the same.
            let uri = ObjectIDReference(uriRepresentation: lib.pratchett.objectID.uriRepresentation)!
            XCTAssertEqual(try names(s, "Book", "author == %@", [.object(uri)]), ["Mort", "Sourcery"], type)
            // The same key in another store names another object.
            let other = lib.pratchett.objectID.uriRepresentation.replacingOccurrences(
                of: lib.pratchett.objectID.storeIdentifier!, with: "00000000-0000-0000-0000-000000000000")
            XCTAssertEqual(try names(s, "Book", "author == %@", [.object(ObjectIDReference(uriRepresentation: other)!)]), [], type)
            XCTAssertEqual(try names(s, "Book", "author != %@", [.object(ObjectIDReference(uriRepresentation: other)!)]).count, 4, type)
        }
    }

    func testPendingObjectsMatchTheirTemporaryIDs() throws {
        for type in Self.storeTypes {
            let lib = try library(type)
            let ctx = lib.stack.context
            let rincewind = try ctx.insertObject(entityName: "Author")
            try rincewind.setValue("Rincewind", forKey: "name")
            let book = try ctx.insertObject(entityName: "Book")
            try book.setValue("Wizzard", forKey: "title")
            try book.setObject(rincewind, forKey: "author")
            try lib.mort.setObject(rincewind, forKey: "author")
            XCTAssertTrue(rincewind.objectID.isTemporaryID)
            let id = PredicateValue.object(rincewind.objectID)
            XCTAssertEqual(try names(lib.stack, "Book", "author == %@", [id]), ["Mort", "Wizzard"], type)
            XCTAssertEqual(try names(lib.stack, "Book", "author != %@", [id]), ["Coraline", "Sandman", "Sourcery"], type)
            XCTAssertEqual(try names(lib.stack, "Author", "SELF == %@", [id]), ["Rincewind"], type)
            XCTAssertEqual(try names(lib.stack, "Author", "SELF IN %@", [[id, .object(lib.gaiman.objectID)]]), ["Gaiman", "Rincewind"], type)
            let uri = PredicateValue.object(ObjectIDReference(uriRepresentation: rincewind.objectID.uriRepresentation)!)
            XCTAssertEqual(try names(lib.stack, "Book", "author == %@", [uri]), ["Mort", "Wizzard"], type)
            // A saved author's ID sees the pending change: Mort left Pratchett.
            XCTAssertEqual(try names(lib.stack, "Book", "author == %@", [.object(lib.pratchett.objectID)]), ["Sourcery"], type)
        }
    }

    func testEntityArgumentsCompareExactEntities() throws {
        for type in Self.storeTypes {
            let lib = try library(type)
            let s = lib.stack
            let ctx = s.context
            XCTAssertEqual(try names(s, "Book", "entity == %@", [entity(s, "Book")]), ["Coraline", "Mort", "Sourcery"], type)
            XCTAssertEqual(try names(s, "Book", "entity == %@", [entity(s, "Comic")]), ["Sandman"], type)
            XCTAssertEqual(try names(s, "Book", "entity != %@", [entity(s, "Book")]), ["Sandman"], type)
            XCTAssertEqual(try names(s, "Book", "entity IN %@", [[entity(s, "Comic"), entity(s, "Author")]]), ["Sandman"], type)
            XCTAssertEqual(try names(s, "Book", "author.entity == %@", [entity(s, "Author")]).count, 4, type)
            XCTAssertEqual(try names(s, "Author", "ANY books.entity == %@", [entity(s, "Comic")]), ["Gaiman"], type)
            XCTAssertEqual(try names(s, "Author", "SUBQUERY(books, $b, $b.entity == %@).@count == 2", [entity(s, "Book")]), ["Pratchett"], type)
            XCTAssertEqual(try names(s, "Book", "entity.name == 'Comic'", []), ["Sandman"], type)
            // Pending objects are matched in memory.
            let comic = try ctx.insertObject(entityName: "Comic")
            try comic.setValue("Death", forKey: "title")
            XCTAssertEqual(try names(s, "Book", "entity == %@", [entity(s, "Comic")]), ["Death", "Sandman"], type)
        }
    }

    func testSQLComparesKeysAndEntityNumbersWithBoundValues() throws {
        let lib = try library(StoreType.sqlite)
        let store = lib.stack.store as! SQLiteStore
        let books = lib.stack.model.entitiesByName["Book"]!
        let byAuthor = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author == %@", arguments: [.object(lib.pratchett.objectID)]))
        let plan = store.explain(byAuthor, entity: books)
        XCTAssertTrue(plan.isExact, plan.sql)
        XCTAssertEqual(plan.bindings.last, .integer(lib.pratchett.objectID.primaryKey))
        let byEntity = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "entity == %@", arguments: [entity(lib.stack, "Comic")]))
        let entityPlan = store.explain(byEntity, entity: books)
        XCTAssertTrue(entityPlan.isExact, entityPlan.sql)
        XCTAssertTrue(entityPlan.sql.contains("Z_ENT IS ?"), entityPlan.sql)
        // An unsaved object or a temporary ID is no stored row.
        let pending = try lib.stack.context.insertObject(entityName: "Author")
        let byPending = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author == %@", arguments: [.object(pending.objectID)]))
        XCTAssertEqual(store.explain(byPending, entity: books).bindings.last, .integer(0))
    }

    func testEntityKeyPathsAreCheckedBeforeTheFetch() throws {
        let lib = try library(StoreType.sqlite)
        let ctx = lib.stack.context
        let byEntity = FetchRequest(entityName: "Book", predicate: nil, sortKeys: [SortKey("entity")])
        XCTAssertEqual(expectError { _ = try ctx.fetch(byEntity) }?.code, ErrorCode.typeMismatch)
        let byName = FetchRequest(entityName: "Book", predicate: nil, sortKeys: [SortKey("entity.name", ascending: false), SortKey("title")])
        XCTAssertEqual(try ctx.fetch(byName).first.map { try $0.value(forKey: "title") }, .string("Sandman"))
        let misspelt = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "entity.nmae == 'Book'"))
        XCTAssertEqual(expectError { _ = try ctx.fetch(misspelt) }?.code, ErrorCode.unknownKey)
        let ordered = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "entity < %@", arguments: [entity(lib.stack, "Book")]))
        XCTAssertEqual(expectError { _ = try ctx.fetch(ordered) }?.code, ErrorCode.predicateEvaluation)
    }

    func testEvaluatingOnAnObjectAndPrinting() throws {
        let lib = try library(StoreType.inMemory)
        let p = try ObjectPredicate(format: "author == %@ AND entity == %@", arguments: [.object(lib.pratchett.objectID), entity(lib.stack, "Book")])
        XCTAssertTrue(try p.evaluate(with: .object(lib.mort)))
        XCTAssertFalse(try p.evaluate(with: .object(lib.sandman)))
        XCTAssertTrue(p.predicateFormat.contains(lib.pratchett.objectID.uriRepresentation), p.predicateFormat)
        XCTAssertNil(ObjectIDReference(uriRepresentation: "x-coredata://store/Book/q3"))
        XCTAssertNil(ObjectIDReference(uriRepresentation: "https://example.com/a/p1"))
    }
}
