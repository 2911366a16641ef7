import XCTest

@testable import ObjectGraph

/// Finding each owner's members among the rows a store returns for prefetching.
final class MemberRunsTests: XCTestCase {
    private func positions(_ runs: MemberRuns, _ owner: Int64) -> [Int] {
        var out: [Int] = []
        runs.forEach(of: owner) { out.append($0) }
        return out
    }

    func testGroupedOwnersGiveOneRunEach() {
        let runs = MemberRuns(owners: [7, 7, 7, 3, 9, 9])
        XCTAssertEqual(positions(runs, 7), [0, 1, 2])
        XCTAssertEqual(positions(runs, 3), [3])
        XCTAssertEqual(positions(runs, 9), [4, 5])
        XCTAssertEqual(positions(runs, 4), [], "an owner without members has none")
    }

    func testUngroupedOwnersKeepTheStoresOrderWithinEachOwner() {
        // A store that does not group by owner: each owner's positions still come in order.
        let runs = MemberRuns(owners: [2, 1, 2, 2, 1, 3, 1])
        XCTAssertEqual(positions(runs, 2), [0, 2, 3])
        XCTAssertEqual(positions(runs, 1), [1, 4, 6])
        XCTAssertEqual(positions(runs, 3), [5])
    }

    func testNoRowsNoMembers() {
        XCTAssertEqual(positions(MemberRuns(owners: []), 1), [])
    }
}
