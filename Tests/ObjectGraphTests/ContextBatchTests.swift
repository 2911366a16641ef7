import Foundation
import ObjectGraph
import XCTest

/// Batch insert, update and delete (`BatchRequests.swift`, `ContextBatch.swift`): one
/// transaction each, straight to the SQLite store, without objects.
final class ContextBatchTests: XCTestCase {
    var stack: Stack!

    override func setUpWithError() throws {
        stack = try lendingStack(try temporaryDirectory() + "/batch.sqlite")
    }

    func titles(_ context: ManagedObjectContext? = nil, _ format: String? = nil) throws -> [String] {
        let request = FetchRequest(entityName: "Book", predicate: try format.map { try ObjectPredicate(format: $0) }, sortKeys: [SortKey("title")])
        return try (context ?? stack.context).fetch(request).map { o in if case .string(let s) = try o.value(forKey: "title") { s } else { "?" } }
    }

    func testBatchInsertWritesRowsWithDefaultsInOneTransaction() throws {
        let request = BatchInsertRequest(entityName: "Book", objects: [["title": .string("Mort")], ["title": .string("Eric"), "pages": .integer(160)]])
        request.resultType = .objectIDs
        guard case .objectIDs(let ids) = try stack.context.execute(request) else { return XCTFail("object IDs asked for") }
        XCTAssertEqual(ids.count, 2)
        XCTAssertFalse(ids.contains(where: \.isTemporaryID))
        XCTAssertFalse(stack.context.hasChanges, "a batch makes no pending changes")
        XCTAssertEqual(try titles(), ["Eric", "Mort"])
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT ZTITLE, ZPAGES, Z_OPT FROM ZBOOK ORDER BY Z_PK"), [["Mort", "100", "1"], ["Eric", "160", "1"]])
        // Keys come from Z_PRIMARYKEY: an object saved later takes the next one.
        let next = try stack.context.insertObject(entityName: "Book")
        try next.setValue(.string("Sourcery"), forKey: "title")
        try stack.context.save()
        XCTAssertEqual(next.objectID.primaryKey, ids.map(\.primaryKey).max()! + 1)
    }

    func testTheDictionaryHandlerFeedsRowsUntilItSaysStop() throws {
        var n = 0
        let request = BatchInsertRequest(entityName: "Book") { (row) throws(ObjectGraphError) -> Bool in
            n += 1
            if n > 1000 { return true }
            row["title"] = .string("Book \(n)")
            row["pages"] = .integer(Int64(n))
            return false
        }
        request.resultType = .count
        XCTAssertEqual(try stack.context.execute(request), .count(1000))
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*), SUM(ZPAGES) FROM ZBOOK"), [["1000", "500500"]])
    }

    /// Rows given column by column (the bulk form of C and Python): nil leaves the
    /// attribute to its default, `.null` sets nil, and errors name the row.
    func testRowsGivenByColumnInsertAsTheirDictionariesWould() throws {
        let titles: [AttributeValue?] = [.string("Mort"), .string("Eric"), .string("Jingo")]
        let pages: [AttributeValue?] = [.integer(300), nil, .null]
        let request = BatchInsertRequest(entityName: "Book", columns: .init(names: ["title", "pages"], rowCount: 3) { row, column in
            column == 0 ? titles[row] : pages[row]
        })
        request.resultType = .count
        XCTAssertEqual(try stack.context.execute(request), .count(3))
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT ZTITLE, IFNULL(ZPAGES, 'nil') FROM ZBOOK ORDER BY Z_PK"),
                       [["Mort", "300"], ["Eric", "100"], ["Jingo", "nil"]])
        for (names, value, code, words) in [
            (["title", "colour"], AttributeValue.string("red"), ErrorCode.unknownKey, "row 0"),
            (["title", "pages"], .string("many"), ErrorCode.typeMismatch, "row 0"),
        ] {
            let bad = BatchInsertRequest(entityName: "Book", columns: .init(names: names, rowCount: 2) { _, column in column == 0 ? .string("x") : value })
            let error = expectError { _ = try self.stack.context.execute(bad) }
            XCTAssertEqual(error?.code, code)
            XCTAssertTrue(error?.message.contains(words) ?? false, error?.message ?? "")
        }
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZBOOK"), [["3"]])
    }

    /// Columns given as arrays of what their attributes store are bound straight from the
    /// arrays (`SQLiteSaveTransaction+ColumnInserts.swift`); other arrays go value by value.
    func testColumnArraysInsertAsTheirValuesWould() throws {
        let model = ManagedObjectModel()
        let point = try model.addEntity(named: "Point")
        try point.addAttribute(named: "x", type: .integer64, optional: false)
        try point.addAttribute(named: "y", type: .double)
        try point.addAttribute(named: "tag", type: .integer16, defaultValue: 7)
        let s = try Stack(model: model, path: try temporaryDirectory() + "/points.sqlite")
        let bulk = BatchInsertRequest(entityName: "Point", columns: try .init(names: ["x", "y"], arrays: [.int64([1, 2, 3]), .double([0.5, 1.5, 2.5])], rowCount: 3))
        bulk.resultType = .objectIDs
        guard case .objectIDs(let ids) = try s.context.execute(bulk) else { return XCTFail("object IDs asked for") }
        XCTAssertEqual(ids.map(\.primaryKey), [1, 2, 3])
        // Into an Integer 16: converted (and range-checked) value by value.
        let small = BatchInsertRequest(entityName: "Point", columns: try .init(names: ["x", "tag"], arrays: [.int64([4]), .int64([9])], rowCount: 1))
        _ = try s.context.execute(small)
        XCTAssertEqual(sqliteRows(s.store.path, "SELECT ZX, IFNULL(ZY, 'nil'), ZTAG, Z_OPT FROM ZPOINT ORDER BY Z_PK"),
                       [["1", "0.5", "7", "1"], ["2", "1.5", "7", "1"], ["3", "2.5", "7", "1"], ["4", "nil", "9", "1"]])
        let tooBig = BatchInsertRequest(entityName: "Point", columns: try .init(names: ["x", "tag"], arrays: [.int64([5]), .int64([70_000])], rowCount: 1))
        XCTAssertNotNil(expectError { _ = try s.context.execute(tooBig) })
        // A required attribute without a column or default: the row is named.
        let noX = BatchInsertRequest(entityName: "Point", columns: try .init(names: ["y"], arrays: [.double([1])], rowCount: 1))
        XCTAssertTrue(expectError { _ = try s.context.execute(noX) }?.message.contains("row 0") ?? false)
        XCTAssertEqual(expectError { _ = try BatchInsertRequest.Columns(names: ["x"], arrays: [.int64([1])], rowCount: 2) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(sqliteRows(s.store.path, "SELECT COUNT(*) FROM ZPOINT"), [["4"]])
    }

    func testABadRowFailsTheWholeBatchNamingItAndWritesNothing() throws {
        let good: [String: AttributeValue] = ["title": .string("Mort")]
        for (row, code, words) in [
            (["title": AttributeValue.string("x"), "colour": .string("red")], ErrorCode.unknownKey, "row 1"),
            (["pages": .integer(3)], ErrorCode.validationMissingMandatoryProperty, "row 1"),
            (["title": .string("x"), "pages": .string("many")], ErrorCode.typeMismatch, "row 1"),
            (["title": .string("x"), "author": .integer(1)], ErrorCode.invalidArgument, "not a stored attribute"),
        ] {
            let error = expectError { _ = try self.stack.context.execute(BatchInsertRequest(entityName: "Book", objects: [good, row])) }
            XCTAssertEqual(error?.code, code, "\(row)")
            XCTAssertTrue(error?.message.contains(words) ?? false, error?.message ?? "")
        }
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZBOOK"), [["0"]])
        XCTAssertEqual(expectError { _ = try self.stack.context.execute(BatchInsertRequest(entityName: "Nope", objects: [])) }?.code, ErrorCode.unknownEntity)
    }

    func testBatchUpdateChangesMatchingRowsAndRegisteredObjectsUntilRefreshed() throws {
        _ = try stack.context.execute(BatchInsertRequest(entityName: "Book", objects: [
            ["title": .string("Mort"), "pages": .integer(300)], ["title": .string("Eric"), "pages": .integer(160)],
        ]))
        let eric = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Eric'"))).first)
        XCTAssertEqual(try eric.value(forKey: "pages"), .integer(160))
        let update = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages < 200"), propertiesToUpdate: ["pages": .integer(200)])
        update.resultType = .objectIDs
        guard case .objectIDs(let ids) = try stack.context.execute(update) else { return XCTFail("object IDs asked for") }
        XCTAssertEqual(ids, [eric.objectID])
        XCTAssertEqual(try eric.value(forKey: "pages"), .integer(160), "registered objects keep their values")
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: SavedChanges(updated: ids), into: [stack.context])
        XCTAssertEqual(try eric.value(forKey: "pages"), .integer(200))
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT ZPAGES, Z_OPT FROM ZBOOK WHERE ZTITLE = 'Eric'"), [["200", "2"]])
        XCTAssertEqual(expectError {
            _ = try self.stack.context.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["title": .null]))
        }?.code, ErrorCode.validationMissingMandatoryProperty)
    }

    func testBatchDeleteFollowsNoDeleteRuleButTakesItsPairs() throws {
        let author = try stack.context.insertObject(entityName: "Author")
        try author.setValue(.string("Terry"), forKey: "name")
        let tag = try stack.context.insertObject(entityName: "Tag")
        try tag.setValue(.string("fantasy"), forKey: "name")
        for title in ["Mort", "Eric", "Jingo"] {
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.string(title), forKey: "title")
            try b.setObject(author, forKey: "author")
            try b.setObjects([tag], forKey: "tags")
        }
        try stack.context.save()
        let byPredicate = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title BEGINSWITH 'J'")))
        byPredicate.resultType = .count
        XCTAssertEqual(try stack.context.execute(byPredicate), .count(1))
        let mort = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Mort'"))).first)
        XCTAssertEqual(try stack.context.execute(BatchDeleteRequest(objectIDs: [mort.objectID])), .status(true))
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT ZTITLE FROM ZBOOK"), [["Eric"]])
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM ZAUTHOR"), [["1"]], "no cascade runs")
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT COUNT(*) FROM Z_2TAGS"), [["1"]], "the deleted books' pairs are gone")
    }

    /// The SQLite store writes a batch update or delete as one statement
    /// (`SQLiteSaveTransaction+SetWrites.swift`) whether the predicate needs a join or not,
    /// and row by row when SQL cannot tell the rows (the results are the same).
    func testBatchesAsOneStatementMatchWhatAFetchMatches() throws {
        let terry = try stack.context.insertObject(entityName: "Author")
        try terry.setValue(.string("Terry"), forKey: "name")
        let neil = try stack.context.insertObject(entityName: "Author")
        try neil.setValue(.string("Neil"), forKey: "name")
        for (title, author) in [("Mort", terry), ("Eric", terry), ("Coraline", neil), ("Stardust", neil)] {
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.string(title), forKey: "title")
            try b.setObject(author, forKey: "author")
        }
        try stack.context.save()
        // A key path through a to-one: a join.
        let joined = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author.name == 'Neil'"), propertiesToUpdate: ["pages": .integer(7)])
        joined.resultType = .objectIDs
        guard case .objectIDs(let ids) = try stack.context.execute(joined) else { return XCTFail("object IDs asked for") }
        XCTAssertEqual(Set(ids.map(\.primaryKey)).count, 2)
        XCTAssertEqual(try titles(nil, "pages == 7"), ["Coraline", "Stardust"])
        // A predicate SQL cannot tell (arithmetic): row by row, the same outcome.
        let inMemory = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages * 2 > 150"), propertiesToUpdate: ["pages": .integer(9)])
        inMemory.resultType = .count
        XCTAssertEqual(try stack.context.execute(inMemory), .count(2))
        XCTAssertEqual(try titles(nil, "pages == 9"), ["Eric", "Mort"])
        // A registered object refreshed after the statement reads the new row.
        let eric = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Eric'"))).first)
        let counted = BatchUpdateRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Eric'"), propertiesToUpdate: ["pages": .integer(11)])
        counted.resultType = .count
        XCTAssertEqual(try stack.context.execute(counted), .count(1))
        try stack.context.refresh(eric, mergeChanges: false)
        XCTAssertEqual(try eric.value(forKey: "pages"), .integer(11))
        XCTAssertEqual(sqliteRows(stack.store.path, "SELECT Z_OPT FROM ZBOOK WHERE ZTITLE = 'Eric'"), [["3"]])
        // Deletes, through a join and with IDs asked for.
        let gone = BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "author.name == 'Terry'")))
        gone.resultType = .objectIDs
        guard case .objectIDs(let deleted) = try stack.context.execute(gone) else { return XCTFail("object IDs asked for") }
        XCTAssertEqual(deleted.count, 2)
        XCTAssertEqual(try titles(), ["Coraline", "Stardust"])
        let fresh = ManagedObjectContext(coordinator: stack.coordinator)
        XCTAssertEqual(expectError { _ = try fresh.existingObject(with: eric.objectID) }?.code, ErrorCode.referentialIntegrity)
    }

    func testStoresOtherThanSQLiteRefuseBatchesWith134091() throws {
        let memory = try lendingStack(type: StoreType.inMemory)
        let error = expectError { _ = try memory.context.execute(BatchInsertRequest(entityName: "Book", objects: [["title": .string("Mort")]])) }
        XCTAssertEqual(error?.code, ErrorCode.storeUnsupportedRequestType)
    }
}
