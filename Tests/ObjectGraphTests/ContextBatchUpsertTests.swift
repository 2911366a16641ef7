import Foundation
import ObjectGraph
import XCTest

/// Batch inserts into entities with uniqueness constraints (`ContextBatch+Upsert.swift`):
/// nothing written under the error policy when rows conflict, upserts under the others.
final class ContextBatchUpsertTests: XCTestCase {
    func makeStack() throws -> Stack {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "sku", type: .string)
        try item.addAttribute(named: "price", type: .integer64)
        try item.addAttribute(named: "note", type: .string)
        try item.setUniquenessConstraints([["sku"]])
        return try Stack(model: model, path: try temporaryDirectory() + "/items.sqlite")
    }

    func insert(_ s: Stack, _ rows: [[String: AttributeValue]], _ type: BatchResultType = .objectIDs) throws -> BatchResult {
        let request = BatchInsertRequest(entityName: "Item", objects: rows)
        request.resultType = type
        return try s.context.execute(request)
    }

    func stored(_ s: Stack) -> [[String]] {
        sqliteRows(s.store.path, "SELECT ZSKU, IFNULL(ZPRICE, 'nil'), IFNULL(ZNOTE, 'nil') FROM ZITEM ORDER BY ZSKU")
    }

    func testUnderTheErrorPolicyConflictingRowsWriteNothingAndAreNamed() throws {
        let s = try makeStack()
        _ = try insert(s, [["sku": .string("a"), "price": .integer(1)]])
        let batches: [[[String: AttributeValue]]] = [
            [["sku": .string("b")], ["sku": .string("b")]],  // within the batch
            [["sku": .string("c")], ["sku": .string("a")]],  // against a stored row
        ]
        for rows in batches {
            let e = expectError { _ = try insert(s, rows) }
            XCTAssertEqual(e?.code, ErrorCode.constraintMerge)
            XCTAssertEqual(e?.constraintConflicts.first?.constraint, ["sku"])
            XCTAssertTrue(e?.message.contains("of the batch") == true, e?.message ?? "")
        }
        XCTAssertEqual(stored(s), [["a", "1", "nil"]])
    }

    /// An entity alone in its table upserts in one statement per row (`ON CONFLICT`); with a
    /// subentity sharing the table it goes row by row. Both write the same rows and versions.
    func testTheStoreSideUpsertAndTheRowByRowOneAgree() throws {
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var sql: [String] = []
        }
        let log = Log()
        SQLDebug.setHandler { m in log.lock.lock(); log.sql.append(m.text); log.lock.unlock() }
        SQLDebug.level = 1
        defer { SQLDebug.level = 0; SQLDebug.setHandler(nil) }
        var results: [[[String]]] = []
        for withSubentity in [false, true] {
            let model = ManagedObjectModel()
            let item = try model.addEntity(named: "Item")
            try item.addAttribute(named: "sku", type: .string)
            try item.addAttribute(named: "price", type: .integer64)
            try item.setUniquenessConstraints([["sku"]])
            if withSubentity { try model.addEntity(named: "Special").setSuperentity(item) }
            let s = try Stack(model: model, path: try temporaryDirectory() + "/agree.sqlite")
            s.context.mergePolicy = .mergeByPropertyObjectTrump
            log.lock.lock(); log.sql.removeAll(); log.lock.unlock()
            for price in [1, 2] {
                _ = try insert(s, [["sku": .string("a"), "price": .integer(Int64(price))], ["sku": .string("b")]])
            }
            // Counted without the keys of updated rows: one per distinct row, the repeated "c" once.
            let counted = try insert(s, [["sku": .string("a")], ["sku": .string("c")], ["sku": .string("c")], ["sku": .null]], .count)
            XCTAssertEqual(counted, .count(3))
            results.append(sqliteRows(s.store.path, "SELECT IFNULL(ZSKU, 'nil'), IFNULL(ZPRICE, 'nil'), Z_OPT FROM ZITEM ORDER BY ZSKU"))
            log.lock.lock(); let sql = log.sql.joined(separator: "\n"); log.lock.unlock()
            XCTAssertEqual(sql.contains("ON CONFLICT"), !withSubentity, sql)
        }
        XCTAssertEqual(results[0], [["nil", "nil", "1"], ["a", "2", "3"], ["b", "nil", "2"], ["c", "nil", "2"]])
        XCTAssertEqual(results[0], results[1])
    }

    func testUnderTheMergePoliciesRowsUpsertOverStoredRowsAndEarlierRows() throws {
        let expected: [(MergePolicy, [[String]])] = [
            (.mergeByPropertyObjectTrump, [["a", "9", "kept"], ["b", "3", "nil"]]),
            (.mergeByPropertyStoreTrump, [["a", "1", "kept"], ["b", "2", "nil"]]),
            (.overwrite, [["a", "9", "nil"], ["b", "3", "nil"]]),
            (.rollback, [["a", "1", "kept"], ["b", "2", "nil"]]),
        ]
        for (policy, rows) in expected {
            let s = try makeStack()
            let first = try insert(s, [["sku": .string("a"), "price": .integer(1), "note": .string("kept")]])
            s.context.mergePolicy = policy
            let result = try insert(s, [["sku": .string("a"), "price": .integer(9)], ["sku": .string("b"), "price": .integer(2)], ["sku": .string("b"), "price": .integer(3)]])
            XCTAssertEqual(stored(s), rows, "\(policy.mergeType)")
            // The upserted row keeps its ID; one ID per row written.
            guard case .objectIDs(let before) = first, case .objectIDs(let ids) = result else { return XCTFail("no IDs") }
            XCTAssertEqual(ids.count, 2, "\(policy.mergeType)")
            XCTAssertEqual(ids.first, before.first, "\(policy.mergeType)")
        }
    }

    func testAFetchAfterAnUpsertReadsTheNewValues() throws {
        let s = try makeStack()
        _ = try insert(s, [["sku": .string("a"), "price": .integer(1)]])
        let item = try XCTUnwrap(try s.context.fetch(FetchRequest(entityName: "Item")).first)
        XCTAssertEqual(try item.value(forKey: "price"), .integer(1))
        s.context.mergePolicy = .mergeByPropertyObjectTrump
        _ = try insert(s, [["sku": .string("a"), "price": .integer(5)]])
        try s.context.refresh(item, mergeChanges: false)
        XCTAssertEqual(try item.value(forKey: "price"), .integer(5))
    }
}
