import Foundation
import ObjectGraph
import XCTest

/// A small lending library used over several saves, with deletes and validation failures
/// in between; then the store is reopened and the whole graph checked. Runs on the
/// SQLite store and on the in-memory store (read back through a fresh context there).
final class LibraryScenarioTests: XCTestCase {
    func testALibraryOverSeveralSaves() throws { try runScenario(StoreType.sqlite) }

    func testALibraryOverSeveralSavesInMemory() throws { try runScenario(StoreType.inMemory) }

    private func runScenario(_ type: String) throws {
        let path = try temporaryDirectory() + "/library.sqlite"
        var kept: Stack?
        do {
            let stack = try lendingStack(path, type: type)
            kept = stack
            let ctx = stack.context
            func author(_ name: String) throws -> ManagedObject {
                let a = try ctx.insertObject(entityName: "Author")
                try a.setValue(.string(name), forKey: "name")
                return a
            }
            func book(_ title: String, _ pages: Int64, by a: ManagedObject) throws -> ManagedObject {
                let b = try ctx.insertObject(entityName: "Book")
                try b.setValue(.string(title), forKey: "title")
                try b.setValue(.integer(pages), forKey: "pages")
                try b.setObject(a, forKey: "author")
                return b
            }
            let pratchett = try author("Terry Pratchett"), leGuin = try author("Ursula K. Le Guin")
            let mort = try book("Mort", 272, by: pratchett)
            _ = try book("Sourcery", 288, by: pratchett)
            let earthsea = try book("A Wizard of Earthsea", 183, by: leGuin)
            let dispossessed = try book("The Dispossessed", 387, by: leGuin)
            // Tags are many-to-many: a join table in the store.
            let fantasy = try ctx.insertObject(entityName: "Tag"), classic = try ctx.insertObject(entityName: "Tag")
            try fantasy.setValue("fantasy", forKey: "name")
            try classic.setValue("classic", forKey: "name")
            for b in [mort, earthsea, dispossessed] { try b.addObject(fantasy, forKey: "tags") }
            try classic.addObject(earthsea, forKey: "books")
            try classic.addObject(dispossessed, forKey: "books")
            XCTAssertEqual(try earthsea.objects(forKey: "tags").count, 2)
            try ctx.save()

            // Save 2: loans, and a failed save that changes nothing.
            let loan = try ctx.insertObject(entityName: "Loan")
            try loan.setValue("Ann", forKey: "borrower")
            try loan.setObject(earthsea, forKey: "book")
            let bad = try ctx.insertObject(entityName: "Loan")
            try bad.setObject(mort, forKey: "book")  // no borrower: refused
            XCTAssertEqual(expectError { try ctx.save() }?.code, ErrorCode.validationMissingMandatoryProperty)
            try ctx.delete(bad)
            try ctx.save()

            // Save 3: a denied delete, then a permitted one.
            try ctx.delete(earthsea)
            XCTAssertEqual(expectError { try ctx.save() }?.code, ErrorCode.validationRelationshipDeniedDelete)
            try ctx.rollback()
            try ctx.delete(dispossessed)
            try mort.setValue(300, forKey: "pages")
            try mort.removeObject(fantasy, forKey: "tags")
            try ctx.save()
            if type == StoreType.sqlite {
                XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_2TAGS").first?.first, "2", "join rows left: fantasy and classic, both on Earthsea")
            }

            // Save 4: an author goes, with his books (cascade).
            try ctx.delete(pratchett)
            try ctx.save()
        }
        let ctx: ManagedObjectContext
        if type == StoreType.sqlite {
            ctx = try lendingStack(path).context
        } else {
            ctx = ManagedObjectContext(coordinator: kept!.coordinator)
        }
        let authors = try ctx.fetch(FetchRequest(entityName: "Author", sortKeys: [SortKey("name")]))
        XCTAssertEqual(authors.map { $0.string("name") }, ["Ursula K. Le Guin"])
        let books = try ctx.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
        XCTAssertEqual(books.map { $0.string("title") }, ["A Wizard of Earthsea"])
        // Saved when inserted, and again when its loan changed its loans.
        XCTAssertEqual(try books[0].value(forKey: "saveCount"), 2)
        let loans = try ctx.fetch(FetchRequest(entityName: "Loan"))
        XCTAssertEqual(loans.count, 1)
        XCTAssertTrue(try loans[0].object(forKey: "book") === books[0])
        XCTAssertTrue(try books[0].object(forKey: "author") === authors[0])
        let tags = try ctx.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("name")]))
        XCTAssertEqual(tags.map { $0.string("name") }, ["classic", "fantasy"])
        XCTAssertEqual(try books[0].objects(forKey: "tags").compactMap { $0.string("name") }.sorted(), ["classic", "fantasy"])
        XCTAssertEqual(try tags[1].objects(forKey: "books").count, 1, "fantasy: Earthsea only (Mort untagged, then deleted with its author)")
        XCTAssertEqual(try ctx.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "ANY tags.name == 'classic'"))), 1)
        let longOnes = try ObjectPredicate(format: "ANY books.loans.borrower == 'Ann'")
        XCTAssertEqual(try ctx.count(for: FetchRequest(entityName: "Author", predicate: longOnes)), 1)
    }
}
