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

    /// The summary lines among `lines`, from index `from`.
    func summaries(_ lines: Lines, from start: Int = 0) -> [SQLDebug.Message] {
        lines.all[start...].filter { $0.kind == .fetch || $0.kind == .save }
    }

    func testEachFetchAndSaveLogsOneSummaryLineAtEveryLevel() throws {
        let stack = try stack()
        let lines = Lines()
        SQLDebug.setHandler { lines.add($0) }
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > %@", arguments: [150]))
        for level in 1...3 {
            SQLDebug.level = level
            let start = lines.all.count
            XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).fetch(request).count, 2)
            let fetches = summaries(lines, from: start)
            XCTAssertEqual(fetches.count, 1, "level \(level)")
            let fetch = try XCTUnwrap(fetches.first)
            XCTAssertEqual(fetch.level, 1)
            XCTAssertEqual(fetch.rows, 2)
            XCTAssertEqual(fetch.objects, 2)
            XCTAssertEqual(fetch.subject, "Book")
            XCTAssertNotNil(fetch.text.range(of: #"^ObjectGraph: annotation: total fetch execution time: \d+\.\d{4}s for 2 rows, 2 objects \(Book\)$"#, options: .regularExpression), fetch.text)
        }

        // Object IDs and dictionaries are counted as what they are.
        var start = lines.all.count
        let ids = try ManagedObjectContext(coordinator: stack.coordinator).fetchObjectIDs(request)
        XCTAssertEqual(ids.count, 2)
        let dictionaries = FetchRequest(entityName: "Book")
        dictionaries.resultType = .dictionary
        dictionaries.propertiesToFetch = [.property("title")]
        XCTAssertEqual(try stack.context.fetchDictionaries(dictionaries).count, 3)
        XCTAssertEqual(try stack.context.count(for: dictionaries), 3)  // counting logs nothing
        XCTAssertEqual(summaries(lines, from: start).map { String($0.text.split(separator: " for ").last ?? "") },
                       ["2 rows, 2 object IDs (Book)", "3 rows, 3 dictionaries (Book)"])

        // A save: the rows written and the objects saved, by change.
        SQLDebug.level = 1
        let context = ManagedObjectContext(coordinator: stack.coordinator)
        let books = try context.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
        start = lines.all.count
        try books[0].setValue(.integer(120), forKey: "pages")
        try context.delete(books[1])
        try context.insertObject(entityName: "Book").setValue(.string("Pyramids"), forKey: "title")
        try context.save()
        let save = try XCTUnwrap(summaries(lines, from: start).first)
        XCTAssertEqual(summaries(lines, from: start).count, 1)
        XCTAssertEqual(save.kind, .save)
        XCTAssertEqual(save.rows, 3)
        XCTAssertEqual(save.objects, 3)
        XCTAssertTrue(save.text.hasPrefix("ObjectGraph: annotation: total save execution time: "), save.text)
        XCTAssertTrue(save.text.hasSuffix("s for 3 rows, 3 objects (1 inserted, 1 updated, 1 deleted)"), save.text)

        // Objects differ from rows when unsaved changes are laid over them; a child's fetch
        // is one line (its parent answering it logs none), with the rows of the store.
        try context.insertObject(entityName: "Book").setValue(.integer(999), forKey: "pages")
        start = lines.all.count
        XCTAssertEqual(try context.fetch(request).count, 2)
        XCTAssertEqual(summaries(lines, from: start).count, 1)
        XCTAssertTrue(summaries(lines, from: start).first?.text.hasSuffix("s for 1 row, 2 objects (Book)") ?? false)
        let child = ManagedObjectContext(parent: context)
        start = lines.all.count
        XCTAssertEqual(try child.fetch(request).count, 2)
        XCTAssertEqual(summaries(lines, from: start).count, 1)
        XCTAssertEqual(summaries(lines, from: start).first?.rows, 1)
        // A save that reaches no store (a child's) and an empty save log nothing.
        try child.insertObject(entityName: "Book").setValue(.string("Eric"), forKey: "title")
        start = lines.all.count
        try child.save()
        try ManagedObjectContext(coordinator: stack.coordinator).save()
        XCTAssertEqual(summaries(lines, from: start).count, 0)

        SQLDebug.level = 0
        start = lines.all.count
        _ = try context.fetch(request)
        try context.save()
        XCTAssertEqual(lines.all.count, start)
    }

    func testBlobsLongerThan64BytesAreAbbreviatedAtEveryLevel() throws {
        let stack = try stack()
        let lines = Lines()
        SQLDebug.setHandler { lines.add($0) }
        let long = Data(repeating: 0xAB, count: 1000), short = Data(repeating: 0xCD, count: 64)
        for level in 1...3 {
            SQLDebug.level = level
            let start = lines.all.count
            let book = try stack.context.insertObject(entityName: "Book")
            try book.setValue(.data(long), forKey: "cover")
            try stack.context.save()
            try book.setValue(.data(short), forKey: "cover")
            try stack.context.save()
            let texts = lines.all[start...].map(\.text)
            XCTAssertFalse(texts.contains { $0.contains(String(repeating: "ab", count: 17)) }, "level \(level)")
            if level >= 2 {
                XCTAssertTrue(texts.contains { $0.contains("x'abababababababababababababababab…' (1000 bytes)") }, texts.joined(separator: "\n"))
                XCTAssertTrue(texts.contains { $0.contains("x'" + String(repeating: "cd", count: 64) + "'") }, "64 bytes are shown whole")
            }
        }
        // Only blob literals: quoted text that looks like one is left as it is.
        let hex = String(repeating: "ef", count: 65)
        XCTAssertEqual(SQLDebug.abbreviatingBlobs("SELECT 'x''\(hex)'"), "SELECT 'x''\(hex)'")
        XCTAssertEqual(SQLDebug.abbreviatingBlobs("SELECT X'\(hex)', 1"), "SELECT x'efefefefefefefefefefefefefefefef…' (65 bytes), 1")
        XCTAssertEqual(SQLDebug.blobText(Data([0, 1, 255])), "x'0001ff'")
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
