import XCTest

@testable import ObjectGraph

/// The context's object lists against an array: random inserts, appends of new objects
/// (which the table takes in later), removals and questions must agree at every step.
final class ObjectListTests: XCTestCase {
    func testAgreesWithAnArrayUnderRandomOperations() throws {
        let stack = try lendingStack()
        let pool = try (0..<300).map { _ in try stack.context.insertObject(entityName: "Tag") }
        var list = ObjectList()
        var reference: [ManagedObject] = []
        var fresh = pool[...]  // objects never listed yet: what appendNew may take
        var rng = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let o = pool[Int.random(in: 0..<pool.count, using: &rng)]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3:
                list.insert(o)
                if !reference.contains(where: { $0 === o }) { reference.append(o) }
            case 3..<5:
                guard let n = fresh.popFirst(), !reference.contains(where: { $0 === n }) else { continue }
                list.appendNew(n)
                reference.append(n)
            case 5..<7:
                list.remove(o)
                reference.removeAll { $0 === o }
            default:
                XCTAssertEqual(list.contains(o), reference.contains { $0 === o }, "step \(step)")
            }
            XCTAssertEqual(list.count, reference.count, "step \(step)")
            if step % 1_000 == 0 {
                XCTAssertEqual(list.objects.map(ObjectIdentifier.init), reference.map(ObjectIdentifier.init), "step \(step)")
                if fresh.isEmpty { fresh = pool.filter { p in !reference.contains { $0 === p } }[...] }
            }
        }
    }

    /// Objects appended new are found once another object is asked about, and a list of
    /// appends alone keeps their order.
    func testAppendedObjectsAreFoundAndKeepTheirOrder() throws {
        let stack = try lendingStack()
        let objects = try (0..<5_000).map { _ in try stack.context.insertObject(entityName: "Tag") }
        var list = ObjectList()
        for o in objects { list.appendNew(o) }
        XCTAssertEqual(list.count, objects.count)
        XCTAssertTrue(list.contains(objects[0]))
        XCTAssertTrue(objects.allSatisfy { list.contains($0) })
        list.remove(objects[17])
        XCTAssertFalse(list.contains(objects[17]))
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), objects.enumerated().filter { $0.offset != 17 }.map { ObjectIdentifier($0.element) })
    }
}
