import XCTest

@testable import ObjectGraph

/// The context's registry (one table per hierarchy and store) against Swift's Dictionary:
/// random inserts (set, or found and filled as a fetch does), replacements, removals (which
/// shift later entries back) and growth must agree at every step.
final class ObjectRegistryTests: XCTestCase {
    func testAgreesWithADictionaryUnderRandomOperations() throws {
        let stack = try lendingStack()
        let objects = try (0..<8).map { _ in try stack.context.insertObject(entityName: "Tag") }
        let roots = [ObjectIdentifier(stack.model.entitiesByName["Tag"]!), ObjectIdentifier(stack.model.entitiesByName["Book"]!)]
        var table = ObjectRegistry()
        var reference: [ManagedObjectContext.ObjectKey: ManagedObject] = [:]
        var rng = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            // Small key ranges, so collisions, replacements and runs are frequent.
            let key = ManagedObjectContext.ObjectKey(root: roots[Int.random(in: 0..<2, using: &rng)], primaryKey: Int64.random(in: 0..<600, using: &rng),
                                                     store: Int32.random(in: 0..<2, using: &rng))
            switch Int.random(in: 0..<12, using: &rng) {
            case 0..<5:
                let o = objects[Int.random(in: 0..<objects.count, using: &rng)]
                table[key] = o
                reference[key] = o
            case 10..<12:
                // What a fetch does: find the key's place, and fill it when the key has no value.
                let (known, place) = table.place(for: key)
                XCTAssertTrue(known === reference[key], "step \(step)")
                if known == nil {
                    let o = objects[Int.random(in: 0..<objects.count, using: &rng)]
                    table.fill(o, at: place)
                    reference[key] = o
                }
            case 5..<8:
                XCTAssertTrue(table.removeValue(forKey: key) === reference.removeValue(forKey: key), "step \(step)")
            default:
                XCTAssertTrue(table[key] === reference[key], "step \(step)")
            }
            XCTAssertEqual(table.count, reference.count)
            if step % 2_000 == 0 {
                for (k, v) in reference { XCTAssertTrue(table[k] === v, "step \(step)") }
            }
        }
        for (k, v) in reference { XCTAssertTrue(table[k] === v) }
        XCTAssertEqual(table.values.count, reference.count)
        var visited = 0
        table.forEach { o in
            visited += 1
            XCTAssertTrue(objects.contains { $0 === o })
        }
        XCTAssertEqual(visited, reference.count)
        table.reserveCapacity(5_000, like: .init(root: roots[0], primaryKey: 0, store: 0))
        table.reserveCapacity(50_000, like: .init(root: roots[1], primaryKey: 0, store: 1))
        for (k, v) in reference { XCTAssertTrue(table[k] === v, "after growing") }
        XCTAssertEqual(table.count, reference.count)
        let inStoreOne = reference.keys.filter { $0.store == 1 }.count
        table.removeAll(store: 1)
        XCTAssertEqual(table.count, reference.count - inStoreOne)
        for (k, v) in reference { XCTAssertTrue(table[k] === (k.store == 1 ? nil : v), "after forgetting store 1") }
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
    }

    func testTheSweepRemovesOnlyObjectsNothingElseHolds() throws {
        let stack = try lendingStack()
        let root = ObjectIdentifier(stack.model.entitiesByName["Tag"]!)
        var table = ObjectRegistry()
        let kept = try stack.context.insertObject(entityName: "Tag")
        table[.init(root: root, primaryKey: 1, store: 0)] = kept
        do {
            let dropped = try stack.context.insertObject(entityName: "Tag")
            table[.init(root: root, primaryKey: 2, store: 0)] = dropped
            try stack.context.delete(dropped)
            try stack.context.processPendingChanges()
        }
        let removed = table.removeUnreferenced()
        XCTAssertEqual(removed.count, 1)
        XCTAssertEqual(table.count, 1)
        XCTAssertTrue(table[.init(root: root, primaryKey: 1, store: 0)] === kept)
    }
}
