import XCTest
@testable import ObjectGraph

/// Fetch requests: independent copies, the request type, and refreshing refetched objects.
final class FetchRequestTests: XCTestCase {
    func testCopyIsIndependent() throws {
        let r = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > 10"), sortKeys: [SortKey("title")])
        r.resultType = .dictionary
        let total = ExpressionDescription(name: "total", expressionFormat: "sum:(pages)", resultType: .integer64)
        r.propertiesToFetch = [.property("title"), .expression(total)]
        r.fetchLimit = 3
        r.shouldRefreshRefetchedObjects = true
        let c = r.copy()
        XCTAssertEqual(c.entityName, "Book")
        XCTAssertEqual(c.sortKeys.map(\.key), ["title"])
        XCTAssertEqual(c.fetchLimit, 3)
        XCTAssertTrue(c.shouldRefreshRefetchedObjects)
        XCTAssertEqual(c.requestType, .fetch)
        r.sortKeys.append(SortKey("pages"))
        r.fetchLimit = 0
        r.predicate = nil
        try total.setExpressionFormat("max:(pages)")
        XCTAssertEqual(c.sortKeys.map(\.key), ["title"])
        XCTAssertEqual(c.fetchLimit, 3)
        XCTAssertNotNil(c.predicate)
        guard case .expression(let copied)? = c.propertiesToFetch?.last else { return XCTFail("the expression is copied") }
        XCTAssertEqual(copied.expressionFormat, "sum:(pages)")
    }

    func testRefetchedObjectsAreRefreshedWhenAsked() throws {
        let stack = try lendingStack()
        let author = try stack.context.insertObject(entityName: "Author")
        try author.setValue("Terry", forKey: "name")
        try stack.context.save()
        // Another context changes the row.
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let same = try other.existingObject(with: author.objectID)
        try same.setValue("Terry Pratchett", forKey: "name")
        try other.save()
        let r = FetchRequest(entityName: "Author")
        XCTAssertEqual(try stack.context.fetch(r).first?.string("name"), "Terry", "registered objects keep their values")
        var refreshed: [ManagedObject] = []
        stack.context.addObserver(for: .objectsDidChange) { refreshed += $0.refreshed }
        r.shouldRefreshRefetchedObjects = true
        XCTAssertEqual(try stack.context.fetch(r).first?.string("name"), "Terry Pratchett")
        try stack.context.processPendingChanges()
        XCTAssertTrue(refreshed.contains { $0 === author })
        XCTAssertFalse(author.hasChanges)
    }
}
