import Foundation
import ObjectGraph
import XCTest

/// Derived attributes (`SQLiteDerivations.swift`): the SQLite store computes them in the
/// save's transaction each time it writes a row; they are stale in memory until refreshed.
final class SQLiteDerivationsTests: XCTestCase {
    func model(_ derivations: [String: String] = [:]) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string)
        try book.addAttribute(named: "pages", type: .integer64)
        let books = try author.addRelationship(named: "books", destination: book, toMany: true)
        let writer = try book.addRelationship(named: "author", destination: author)
        try books.setInverse(writer)
        let all = derivations.isEmpty ? [
            "Author.bookCount": "books.@count", "Author.totalPages": "books.pages.@sum", "Author.longest": "books.pages.@max",
            "Author.searchName": "canonical:(name)", "Author.loudName": "uppercase:(name)", "Book.authorName": "author.name",
            "Book.touched": "now()",
        ] : derivations
        for (qualified, expression) in all.sorted(by: { $0.key < $1.key }) {
            let parts = qualified.split(separator: ".").map(String.init)
            let entity = try XCTUnwrap(model.entity(named: parts[0]))
            let type: AttributeType = expression.hasSuffix("@count") || expression.contains("pages") ? .integer64
                : expression == "now()" ? .date : .string
            try entity.addAttribute(named: parts[1], type: type).setDerivationExpression(expression)
        }
        return model
    }

    func testTheStoreComputesDerivationsWhenItWritesARow() throws {
        let stack = try Stack(model: try model(), path: try temporaryDirectory() + "/derived.sqlite")
        let ann = try stack.context.insertObject(entityName: "Author")
        try ann.setValue(.string("Anné Lee"), forKey: "name")
        for pages in [100, 250] {
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.integer(Int64(pages)), forKey: "pages")
            try b.setObject(ann, forKey: "author")
        }
        XCTAssertEqual(try ann.value(forKey: "bookCount"), .null, "nil before the first save")
        try stack.context.save()
        XCTAssertEqual(try ann.value(forKey: "bookCount"), .null, "stale until refreshed")
        try stack.context.refresh(ann, mergeChanges: false)
        XCTAssertEqual(try ann.value(forKey: "bookCount"), .integer(2))
        XCTAssertEqual(try ann.value(forKey: "totalPages"), .integer(350))
        XCTAssertEqual(try ann.value(forKey: "longest"), .integer(250))
        XCTAssertEqual(try ann.value(forKey: "searchName"), .string("anne lee"))
        XCTAssertEqual(try ann.value(forKey: "loudName"), .string("ANNÉ LEE"))
        let book = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Book")).first)
        try stack.context.refresh(book, mergeChanges: false)
        XCTAssertEqual(try book.value(forKey: "authorName"), .string("Anné Lee"))
        guard case .date(let touched) = try book.value(forKey: "touched") else { return XCTFail("now() gives a date") }
        XCTAssertLessThan(abs(touched.timeIntervalSinceNow), 60)
        // Stored, so predicates use them (in SQL).
        let prolific = FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "bookCount >= 2 AND searchName BEGINSWITH 'anne'"))
        XCTAssertEqual(try stack.context.count(for: prolific), 1)
        // Written again when the row is: an author with no books sums to 0.
        let bob = try stack.context.insertObject(entityName: "Author")
        try bob.setValue(.string("Bob"), forKey: "name")
        try stack.context.save()
        try stack.context.refresh(bob, mergeChanges: false)
        XCTAssertEqual(try bob.value(forKey: "totalPages"), .integer(0))
        XCTAssertEqual(try bob.value(forKey: "bookCount"), .integer(0))
    }

    func testDerivationsAStoreCannotComputeAreRefusedNamingTheAttribute() throws {
        for (expression, words) in [("books.pages.@sum.foo", "collection operator"), ("books.@sum.pages", "in the middle"), ("title + 1", "forms"), ("colour", "does not have")] {
            let coordinator = try PersistentStoreCoordinator(model: try model(["Author.bad": expression]))
            let error = expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: try temporaryDirectory() + "/bad.sqlite") }
            XCTAssertEqual(error?.code, ErrorCode.invalidModel, expression)
            XCTAssertTrue(error?.message.contains("Author.bad") ?? false, error?.message ?? "")
            XCTAssertTrue(error?.message.contains(words) ?? false, "\(expression): \(error?.message ?? "")")
        }
        for type in [StoreType.inMemory, StoreType.binary] {
            let coordinator = try PersistentStoreCoordinator(model: try model())
            let path = type == StoreType.inMemory ? "" : try temporaryDirectory() + "/derived.binary"
            XCTAssertEqual(expectError { _ = try coordinator.addPersistentStore(type: type, path: path) }?.code, ErrorCode.invalidArgument, type)
        }
    }
}
