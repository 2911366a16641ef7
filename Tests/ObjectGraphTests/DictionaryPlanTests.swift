import Foundation
@testable import ObjectGraph
import XCTest

/// Dictionary plans: a grouped or distinct fetch sorted by a fetched expression's name.
extension FetchResultTypeTests {
    func testGroupedFetchSortsByAnExpressionsName() throws {
        for (type, file) in [(StoreType.sqlite, "sort.sqlite"), (StoreType.binary, "sort.binary")] {
            let stack = try filled(type, file)
            let r = try request("Employee", "team != nil", sort: [SortKey("headcount", ascending: false), SortKey("team")], properties: [
                .property("team"), expression("headcount", "count:(name)"),
            ])
            r.propertiesToGroupBy = [.property("team")]
            XCTAssertEqual(text(try stack.context.fetchDictionaries(r)), [
                "team=\"core\" headcount=3", "team=\"ops\" headcount=2", "team=\"ui\" headcount=2",
            ], type)
            r.sortKeys = [SortKey("headcount"), SortKey("team", ascending: false)]
            XCTAssertEqual(text(try stack.context.fetchDictionaries(r)), [
                "team=\"ui\" headcount=2", "team=\"ops\" headcount=2", "team=\"core\" headcount=3",
            ], type)
            if let store = stack.store as? SQLiteStore {
                let sql = try XCTUnwrap(try store.explainDictionaries(r, entity: stack.model.entitiesByName["Employee"]!))
                XCTAssertTrue(sql.contains("ORDER BY 2 ASC"), sql)
            }
            // A name that is neither a property nor a fetched expression is still refused.
            r.sortKeys = [SortKey("payroll")]
            XCTAssertEqual(expectError { _ = try stack.context.fetchDictionaries(r) }?.code, ErrorCode.unknownKey)
            // Ungrouped rows are not sorted by an expression.
            let plain = try request("Employee", sort: [SortKey("twice")], properties: [.property("name"), expression("twice", "salary * 2")])
            XCTAssertEqual(expectError { _ = try stack.context.fetchDictionaries(plain) }?.code, ErrorCode.invalidArgument)
        }
    }
}
