import ObjectGraph

/// indexed, ObjectGraph (Swift): a predicate fetch on a0, which the model indexes; every
/// attribute of the result read.
struct OGIndexed: PhaseContender {
    func prepare(path: String, sizes: Sizes) throws {
        _ = try OGStack(path: path, model: try OGStack.itemModel(indexed: true))
        try ItemFill.fillStore(path: path, rows: sizes.indexedRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: true))
        let context = stack.context
        let slots = try Workload.attributeNames.map { try stack.slot("Item", $0) }
        let range = sizes.indexedRange
        let request = FetchRequest(entityName: "Item", predicate: .and([
            .compare(.key("a0"), .greaterThanOrEqual, .constant(.scalar(.integer(Int64(range.lowerBound * 10))))),
            .compare(.key("a0"), .lessThan, .constant(.scalar(.integer(Int64(range.upperBound * 10))))),
        ]))
        // The objects are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([ManagedObject], Int64) in
            let objects = try context.fetch(request)
            var sum: Int64 = 0
            for object in objects {
                for slot in slots {
                    guard case .integer(let v) = try object.value(atSlot: slot) else { throw BenchError("not an integer") }
                    sum &+= v
                }
            }
            return (objects, sum)
        }
        return PhaseResult(time: run.time, count: run.result.0.count, sum: run.result.1)
    }
}
