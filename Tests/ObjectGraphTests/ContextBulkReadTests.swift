import XCTest

@testable import ObjectGraph

/// Reading attributes of many objects in one pass (`readLoadedAttributes`): what each
/// object's `value(atSlot:)` gives, for the slots that are plain attributes.
final class ContextBulkReadTests: XCTestCase {
    /// A store of `count` items labelled n0, n1…, whose count and ratio `values(i)` gives.
    private func items(_ count: Int, _ values: (Int) -> (count: AttributeValue, ratio: AttributeValue)) throws -> (EntityDescription, Stack) {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "count", type: .integer64)
        try item.addAttribute(named: "ratio", type: .double)
        try item.addAttribute(named: "label", type: .string)
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/items.sqlite")
        for i in 0..<count {
            let o = try stack.context.insertObject(entityName: "Item")
            try o.setValue(values(i).count, forKey: "count")
            try o.setValue(values(i).ratio, forKey: "ratio")
            try o.setValue(.string("n\(i)"), forKey: "label")
        }
        return (item, stack)
    }

    func testSeveralSlotsInOnePassAgreeWithReadsOneByOne() throws {
        let (item, stack) = try items(5) { i in (.integer(Int64(i)), i == 2 ? .null : .double(Double(i) / 2)) }
        try stack.context.save()
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        let objects = try reader.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("count")]))
        try objects[4].setValue(.integer(40), forKey: "count")  // a changed object gives its own value
        let slots = [item.slot(forKey: "count")!, item.slot(forKey: "ratio")!, item.slot(forKey: "label")!, 99]
        var grid = Array(repeating: Array(repeating: AttributeValue?.none, count: slots.count), count: objects.count)
        try reader.readLoadedAttributes(atSlots: slots, of: objects) { i, k, value in grid[i][k] = value }
        for (i, o) in objects.enumerated() {
            XCTAssertFalse(o.isFault, "read in bulk: fired as a property read fires it")
            for (k, slot) in slots.enumerated() where slot != 99 {
                XCTAssertEqual(grid[i][k], try o.value(atSlot: slot), "object \(i), slot \(slot)")
            }
            XCTAssertNil(grid[i][3], "a slot the entity does not have is skipped")
        }
        XCTAssertEqual(grid[4][0], .integer(40))
        XCTAssertEqual(grid[2][1], .null)
        var one: [AttributeValue?] = Array(repeating: nil, count: objects.count)
        try reader.readLoadedAttribute(atSlot: slots[2], of: objects) { i, value in one[i] = value }
        XCTAssertEqual(one, grid.map { $0[2] })
    }

    /// `readLoadedNumbers` writes what `readLoadedAttributes` gives for numbers stored as the
    /// kind asked, from rows and from changed objects, and leaves every other cell alone.
    func testNumbersReadIntoBuffersAgreeWithTheValuesRead() throws {
        let (item, stack) = try items(6) { i in (i == 3 ? .null : .integer(Int64(i) - 2), i == 2 ? .null : .double(Double(i) / 4)) }
        try stack.context.save()
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        let objects = try reader.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("label")]))
        try objects[5].setValue(.integer(50), forKey: "count")  // changed: its working values
        let slots = [item.slot(forKey: "count")!, item.slot(forKey: "ratio")!, item.slot(forKey: "label")!, 99]
        let n = objects.count, untouched: UInt64 = 0xDEAD
        for kind in [ManagedObjectContext.StoredNumber.integer, .double] {
            var values = [UInt64](repeating: untouched, count: n * slots.count)
            var states = [UInt8](repeating: 2, count: n * slots.count)
            try reader.readLoadedNumbers(atSlots: slots, of: objects, storedAs: kind, values: &values, states: &states)
            for (i, o) in objects.enumerated() {
                for (k, slot) in slots.enumerated() {
                    let cell = k * n + i
                    let value: AttributeValue = slot == 99 ? .string("none") : try o.value(atSlot: slot)
                    switch value {
                    case .null: XCTAssertEqual(states[cell], 0, "object \(i), slot \(slot): nil")
                    case .integer(let v) where kind == .integer:
                        XCTAssertEqual([values[cell], UInt64(states[cell])], [UInt64(bitPattern: v), 1], "object \(i), slot \(slot)")
                    case .double(let v) where kind == .double:
                        XCTAssertEqual([values[cell], UInt64(states[cell])], [v.bitPattern, 1], "object \(i), slot \(slot)")
                    default: XCTAssertEqual([values[cell], UInt64(states[cell])], [untouched, 2], "object \(i), slot \(slot): left alone")
                    }
                }
            }
            XCTAssertEqual(Int64(bitPattern: values[5]), kind == .integer ? 50 : Int64(bitPattern: untouched))
        }
    }

    /// `onNextValueChange`: called once, at the first change the counter counts after it
    /// was set, and never after its context is gone.
    func testNextValueChangeIsReportedOnce() throws {
        let (_, stack) = try items(1) { _ in (.integer(1), .null) }
        try stack.context.save()
        var context: ManagedObjectContext? = ManagedObjectContext(coordinator: stack.coordinator)
        let object = try context!.fetch(FetchRequest(entityName: "Item"))[0]
        var calls = 0, replaced = 0
        try context!.onNextValueChange { calls += 1 }
        _ = try object.value(forKey: "count")
        _ = try context!.fetch(FetchRequest(entityName: "Item"))
        XCTAssertEqual(calls, 0, "reads and fetches change nothing")
        let before = context!.valueChangeCounter.pointee
        try object.setValue(.integer(2), forKey: "count")
        XCTAssertEqual(calls, 1)
        XCTAssertNotEqual(context!.valueChangeCounter.pointee, before)
        try object.setValue(.integer(3), forKey: "count")
        XCTAssertEqual(calls, 1, "once, then forgotten")
        try context!.onNextValueChange { calls += 1 }
        try context!.onNextValueChange { replaced += 1 }
        XCTAssertEqual([calls, replaced], [2, 0], "the one replaced is called then")
        try context!.rollback()
        XCTAssertEqual([calls, replaced], [2, 1], "a rollback is a change")
        try context!.onNextValueChange { calls += 1 }
        try context!.onNextValueChange(nil)
        XCTAssertEqual(calls, 3, "nil replaces it too")
        try object.setValue(.integer(4), forKey: "count")
        XCTAssertEqual(calls, 3)
        try context!.onNextValueChange { calls += 1 }
        context = nil
        XCTAssertEqual(calls, 3, "not called for the context's end")
        _ = try? object.setValue(.integer(5), forKey: "count")  // an object that outlives its context
        XCTAssertEqual(calls, 3)
    }

    /// A call refused for its thread changes nothing, so it reports no change (and never
    /// runs the report on a thread that does not own the context).
    func testACallFromAnotherThreadReportsNoChange() throws {
        let (_, stack) = try items(1) { _ in (.integer(1), .null) }
        try stack.context.save()
        let object = try stack.context.fetch(FetchRequest(entityName: "Item"))[0]
        nonisolated(unsafe) var calls = 0
        nonisolated(unsafe) var codes: [Int] = []
        try stack.context.onNextValueChange { calls += 1 }
        let counter = stack.context.valueChangeCounter.pointee
        let ctx = stack.context
        nonisolated(unsafe) let fetched = object
        let thread = Thread {
            do { try ctx.reset() } catch let e as ObjectGraphError { codes.append(e.code) } catch {}
            do { try ctx.rollback() } catch let e as ObjectGraphError { codes.append(e.code) } catch {}
            do { try ctx.refresh(fetched, mergeChanges: false) } catch let e as ObjectGraphError { codes.append(e.code) } catch {}
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        XCTAssertEqual(codes, [ErrorCode.wrongThread, ErrorCode.wrongThread, ErrorCode.wrongThread])
        XCTAssertEqual(calls, 0)
        XCTAssertEqual(stack.context.valueChangeCounter.pointee, counter)
        try stack.context.reset()
        XCTAssertEqual(calls, 1)
    }
}
