import Foundation
@testable import ObjectGraph
import XCTest

/// Fetches with predicates and sort descriptors through the SQLite store: what SQL answers,
/// what falls back to memory, ordering, templates and errors.
final class PredicateFetchTests: XCTestCase {
    private func library() throws -> Stack {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/fetch.sqlite")
        let ctx = stack.context
        let pratchett = try ctx.insertObject(entityName: "Author")
        try pratchett.setValue("Terry Pratchett", forKey: "name")
        let gaiman = try ctx.insertObject(entityName: "Author")
        try gaiman.setValue("Neil Gaiman", forKey: "name")
        for (title, pages, author) in [("mort", 250, pratchett), ("Guards! Guards!", 300, pratchett), ("Sourcery", 270, pratchett),
                                       ("Émile", 160, gaiman), ("file10", 10, gaiman), ("file2", 2, gaiman)] {
            let book = try ctx.insertObject(entityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setValue(.integer(Int64(pages)), forKey: "pages")
            try book.setObject(author, forKey: "author")
        }
        try ctx.save()
        return stack
    }

    private func titles(_ stack: Stack, _ format: String, _ args: [PredicateValue] = [], sort: [SortKey] = [SortKey("title")]) throws -> [String] {
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: format, arguments: args), sortKeys: sort)
        return try stack.context.fetch(request).map { o in
            guard case .string(let s) = try o.value(forKey: "title") else { return "?" }
            return s
        }
    }

    func testPredicateThroughToOneIsAnsweredBySQLWithAJoin() throws {
        let stack = try library()
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author.name BEGINSWITH[c] 'terry' AND pages > 260"))
        let plan = (stack.store as! SQLiteStore).explain(request, entity: stack.model.entitiesByName["Book"]!)
        XCTAssertTrue(plan.isExact)
        XCTAssertTrue(plan.sql.contains("LEFT JOIN ZAUTHOR"), plan.sql)
        XCTAssertFalse(plan.sql.contains("terry"), "constants are bound, never inlined: \(plan.sql)")
        XCTAssertEqual(try titles(stack, "author.name BEGINSWITH[c] 'terry' AND pages > 260"), ["Guards! Guards!", "Sourcery"])
    }

    func testToManyQuantifiersAndCollectionOperatorsUseSubqueries() throws {
        let stack = try library()
        let request = FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "ANY books.pages < 5 OR books.@sum.pages > 800"))
        let plan = (stack.store as! SQLiteStore).explain(request, entity: stack.model.entitiesByName["Author"]!)
        XCTAssertTrue(plan.isExact)
        XCTAssertTrue(plan.sql.contains("EXISTS"), plan.sql)
        XCTAssertEqual(try stack.context.count(for: request), 2)
        let all = FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "ALL books.pages > 100"))
        XCTAssertEqual(try stack.context.count(for: all), 1)
        let sub = FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "SUBQUERY(books, $b, $b.pages < 20).@count == 2"))
        XCTAssertEqual(try stack.context.count(for: sub), 1)
    }

    func testWhatSQLCannotSayIsEvaluatedInMemory() throws {
        let stack = try library()
        let format = "pages * 2 > 500 AND title MATCHES '[A-Z].*'"
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: format))
        XCTAssertFalse((stack.store as! SQLiteStore).explain(request, entity: stack.model.entitiesByName["Book"]!).isExact)
        XCTAssertEqual(try titles(stack, format), ["Guards! Guards!", "Sourcery"])
        // Limits apply after the memory filter.
        request.sortKeys = [SortKey("title")]
        request.fetchLimit = 1
        XCTAssertEqual(try stack.context.fetch(request).count, 1)
        XCTAssertEqual(try stack.context.count(for: request), 1)
    }

    func testSortComparisonsAndKeyPathsAgreeInSQLAndMemory() throws {
        let stack = try library()
        XCTAssertEqual(try titles(stack, "TRUEPREDICATE", sort: [SortKey("title")]), ["Guards! Guards!", "Sourcery", "file10", "file2", "mort", "Émile"])
        // Case folding decomposes first, so "É" sorts as "e" plus its accent.
        XCTAssertEqual(try titles(stack, "TRUEPREDICATE", sort: [SortKey("title", comparison: .caseInsensitiveCompare)]),
                       ["Émile", "file10", "file2", "Guards! Guards!", "mort", "Sourcery"])
        XCTAssertEqual(try titles(stack, "TRUEPREDICATE", sort: [SortKey("title", comparison: .localizedStandardCompare)]),
                       ["Émile", "file2", "file10", "Guards! Guards!", "mort", "Sourcery"])
        XCTAssertEqual(try titles(stack, "TRUEPREDICATE", sort: [SortKey("author.name", ascending: false), SortKey("pages")]),
                       ["mort", "Sourcery", "Guards! Guards!", "file2", "file10", "Émile"])
        // The same orders with a pending change, sorted in memory.
        let extra = try stack.context.insertObject(entityName: "Book")
        try extra.setValue("file1", forKey: "title")
        XCTAssertEqual(try titles(stack, "title BEGINSWITH 'file'", sort: [SortKey("title", comparison: .localizedStandardCompare)]),
                       ["file1", "file2", "file10"])
    }

    func testPendingChangesAreMatchedOnTheirCurrentValues() throws {
        let stack = try library()
        let emile = try stack.context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Émile'")))[0]
        try emile.setValue(999, forKey: "pages")
        XCTAssertEqual(try titles(stack, "pages > 900"), ["Émile"])
        try stack.context.delete(emile)
        XCTAssertEqual(try titles(stack, "pages > 900"), [])
    }

    func testUnknownKeyPathsAreErrorsWhenTheFetchRuns() throws {
        let stack = try library()
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author.nmae == 'x'"))
        let error = expectError { _ = try stack.context.fetch(request) }
        XCTAssertEqual(error?.code, ErrorCode.unknownKey)
        XCTAssertTrue(error?.message.contains("nmae") ?? false)
        let sort = FetchRequest(entityName: "Book", sortKeys: [SortKey("author.books")])
        XCTAssertEqual(expectError { _ = try stack.context.fetch(sort) }?.code, ErrorCode.typeMismatch)
    }

    func testObjectArgumentsCompareRelationshipsByIdentity() throws {
        let stack = try library()
        let gaiman = try stack.context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name CONTAINS 'Gaiman'")))[0]
        XCTAssertEqual(try titles(stack, "author == %@", [.object(gaiman)]), ["file10", "file2", "Émile"])
        XCTAssertEqual(try titles(stack, "author != %@", [.object(gaiman)]).count, 3)
    }

    func testFetchRequestFromTemplateParsesAndSubstitutes() throws {
        let model = ManagedObjectModel()
        let person = try model.addEntity(named: "Person")
        try person.addAttribute(named: "age", type: .integer32)
        try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Person", predicateFormat: "age > $MIN AND age < $MAX"), forName: "Between")
        let request = try model.fetchRequest(fromTemplateNamed: "Between", substitutionVariables: ["MIN": 3, "MAX": 9])
        XCTAssertEqual(request.predicate?.predicateFormat, "age > 3 AND age < 9")
        let missing = expectError { _ = try model.fetchRequest(fromTemplateNamed: "Between", substitutionVariables: ["MIN": 3]) }
        XCTAssertEqual(missing?.code, ErrorCode.predicateVariable)
        XCTAssertTrue(missing?.message.contains("MAX") ?? false)
    }
}
