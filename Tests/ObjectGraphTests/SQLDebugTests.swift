import Foundation
import ObjectGraph
import XCTest

/// SQL logging and `explain` (`SQLDebug.swift`, `ContextExplain.swift`).
final class SQLDebugTests: XCTestCase {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [SQLDebug.Message] = []
        func add(_ m: SQLDebug.Message) { lock.lock(); items.append(m); lock.unlock() }
        var all: [SQLDebug.Message] { lock.lock(); defer { lock.unlock() }; return items }
    }

    override func tearDown() {
        SQLDebug.level = 0
        SQLDebug.setHandler(nil)
    }

    func stack() throws -> Stack {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/sql.sqlite")
        for (i, title) in ["Mort", "Eric", "Sourcery"].enumerated() {
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.string(title), forKey: "title")
            try b.setValue(.integer(Int64(100 * (i + 1))), forKey: "pages")
        }
        try stack.context.save()
        return stack
    }

    func testLevelsOneToThree() throws {
        let stack = try stack()
        let lines = Lines()
        SQLDebug.setHandler { lines.add($0) }
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > %@", arguments: [150]))

        SQLDebug.level = 1
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        XCTAssertEqual(try other.fetch(request).count, 2)
        let select = try XCTUnwrap(lines.all.first { $0.sql.hasPrefix("SELECT") && $0.sql.contains("ZBOOK") })
        XCTAssertEqual(select.level, 1)
        XCTAssertTrue(select.sql.contains("?"))
        XCTAssertTrue(select.text.hasPrefix("ObjectGraph: sql: SELECT"))

        SQLDebug.level = 2
        let before = lines.all.count
        _ = try ManagedObjectContext(coordinator: stack.coordinator).fetch(request)
        let bound = lines.all[before...].first { $0.sql.hasPrefix("SELECT") && $0.sql.contains("ZBOOK") }
        XCTAssertTrue(bound?.sql.contains("150") ?? false)

        SQLDebug.level = 3
        let start = lines.all.count
        _ = try ManagedObjectContext(coordinator: stack.coordinator).fetch(request)
        let timing = lines.all[start...].first { $0.duration != nil && $0.sql.contains("ZBOOK") }
        XCTAssertEqual(timing?.rows, 2)
        XCTAssertTrue(timing?.text.contains("sql execution time") ?? false)

        SQLDebug.level = 0
        let quiet = lines.all.count
        _ = try ManagedObjectContext(coordinator: stack.coordinator).fetch(request)
        XCTAssertEqual(lines.all.count, quiet)
    }

    func testExplainShowsTheSQLThePlanAndWhatIsDoneInMemory() throws {
        let stack = try stack()
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH %@", arguments: ["M"]), sortKeys: [SortKey("title")])
        let explanation = try XCTUnwrap(try stack.context.explain(request).first)
        XCTAssertTrue(explanation.store.sql?.contains("FROM ZBOOK t0") ?? false)
        XCTAssertEqual(explanation.store.bindings.count, 1)
        XCTAssertFalse(explanation.store.queryPlan.isEmpty)
        XCTAssertFalse(explanation.store.filteredInMemory)
        XCTAssertFalse(explanation.mergesPendingChanges)
        XCTAssertTrue(explanation.description.contains("filtered in memory: no"))
        // A key path SQL cannot express is filtered in memory.
        let computed = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title.length > 3"))
        XCTAssertTrue(try stack.context.explain(computed).first?.store.filteredInMemory ?? false)
        // Pending changes are laid over the rows in memory.
        try stack.context.insertObject(entityName: "Book").setValue(.string("New"), forKey: "title")
        XCTAssertTrue(try stack.context.explain(request).first?.mergesPendingChanges ?? false)
        // An in-memory store answers without SQL.
        let memory = try Stack(model: try makeLibraryModel(), path: "", type: StoreType.inMemory)
        let inMemory = try XCTUnwrap(try memory.context.explain(request).first)
        XCTAssertNil(inMemory.store.sql)
        XCTAssertTrue(inMemory.store.filteredInMemory)
    }
}
