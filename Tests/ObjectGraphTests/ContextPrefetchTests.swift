import XCTest

@testable import ObjectGraph

/// Prefetching (§2.13 rule 10) beyond the basics in FetchOptionsTests: contents corrected by
/// the context's pending changes, many-to-many relationships through their join table,
/// and a to-one as the last step. A second stack writes behind the first one's back, which
/// shows whether a later read went to the store.
final class ContextPrefetchTests: XCTestCase {
    private var stack: Stack!
    private var other: Stack!
    private var ctx: ManagedObjectContext!

    override func setUpWithError() throws {
        let path = try temporaryDirectory() + "/prefetch.sqlite"
        stack = try lendingStack(path)
        let seed = stack.context
        let sf = try seed.insertObject(entityName: "Tag")
        try sf.setValue("sf", forKey: "name")
        let classic = try seed.insertObject(entityName: "Tag")
        try classic.setValue("classic", forKey: "name")
        let tagsByTitle = ["Earthsea": [sf, classic], "Kindred": [sf]]
        try insertSampleAuthors(seed) { book, title in try book.setObjects(tagsByTitle[title] ?? [], forKey: "tags") }
        try seed.save()
        other = try lendingStack(path)
        ctx = ManagedObjectContext(coordinator: stack.coordinator)
    }

    private func fetch(_ entity: String, by key: String, prefetching paths: [String]) throws -> [String: ManagedObject] {
        let request = FetchRequest(entityName: entity)
        request.relationshipKeyPathsForPrefetching = paths
        var out: [String: ManagedObject] = [:]
        for o in try ctx.fetch(request) { out[try XCTUnwrap(o.string(key))] = o }
        return out
    }

    private func titles(_ author: ManagedObject?) throws -> Set<String> {
        Set(try XCTUnwrap(author).objects(forKey: "books").compactMap { $0.string("title") })
    }

    func testPrefetchedContentsIncludeThePendingChanges() throws {
        let books = try fetch("Book", by: "title", prefetching: [])
        let banks = try XCTUnwrap(try ctx.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == 'Banks'"))).first)
        try ctx.delete(try XCTUnwrap(books["Dawn"]))
        try XCTUnwrap(books["Lathe"]).setObject(banks, forKey: "author")
        let excession = try ctx.insertObject(entityName: "Book")
        try excession.setValue("Excession", forKey: "title")
        try excession.setObject(banks, forKey: "author")

        let authors = try fetch("Author", by: "name", prefetching: ["books"])
        XCTAssertEqual(try titles(authors["Le Guin"]), ["Earthsea"], "a member moved away in this context is gone")
        XCTAssertEqual(try titles(authors["Butler"]), ["Kindred", "Imago"], "a deleted member is left out")
        XCTAssertEqual(try titles(authors["Banks"]), ["Lathe", "Excession"], "moved and inserted members are in")
    }

    func testManyToManyPrefetchReadsTheJoinTableWithTheFetch() throws {
        let books = try fetch("Book", by: "title", prefetching: ["tags"])
        // Tag Dawn behind this context's back: its tags were read with the fetch.
        let dawn = try XCTUnwrap(try other.context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Dawn'"))).first)
        let sf = try XCTUnwrap(try other.context.fetch(FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name == 'sf'"))).first)
        try dawn.addObject(sf, forKey: "tags")
        try other.context.save()

        func tags(_ title: String) throws -> Set<String> {
            Set(try XCTUnwrap(books[title]).objects(forKey: "tags").compactMap { $0.string("name") })
        }
        XCTAssertEqual(try tags("Earthsea"), ["sf", "classic"])
        XCTAssertEqual(try tags("Kindred"), ["sf"])
        XCTAssertEqual(try tags("Dawn"), [], "read with the fetch, before the other save")
        XCTAssertEqual(try tags("Lathe"), [])
    }

    func testToOneAsTheLastStepLoadsTheDestinationsWithTheFetch() throws {
        let books = try fetch("Book", by: "title", prefetching: ["author"])
        let butler = try XCTUnwrap(try other.context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "name == 'Butler'"))).first)
        try butler.setValue("Octavia Butler", forKey: "name")
        try other.context.save()
        let author = try XCTUnwrap(try XCTUnwrap(books["Kindred"]).object(forKey: "author"))
        XCTAssertEqual(author.string("name"), "Butler", "loaded with the fetch, before the other save")
        XCTAssertTrue(try XCTUnwrap(books["Dawn"]).object(forKey: "author") === author, "one object per row")
    }
}
