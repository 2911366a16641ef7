import ObjectGraph

/// update, ObjectGraph (Swift): fetch the objects `a0 < …` with a predicate, set a9 on
/// each, save.
struct OGUpdate: PhaseContender {
    let table = "ZITEM"
    let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }

    func prepare(path: String, sizes: Sizes) throws {
        _ = try OGStack(path: path, model: try OGStack.itemModel(indexed: false))
        try ItemFill.fillStore(path: path, rows: sizes.updateRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false))
        let (context, slot) = (stack.context, try stack.slot("Item", "a9"))
        let request = FetchRequest(entityName: "Item", predicate: .compare(
            .key("a0"), .lessThan, .constant(.scalar(.integer(Int64(sizes.updateCount * 10))))))
        // The objects are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> [ManagedObject] in
            let objects = try context.fetch(request)
            for object in objects {
                guard case .integer(let v) = try object.value(atSlot: slot) else { throw BenchError("a9 is not an integer") }
                try object.setValue(.integer(v + 1), atSlot: slot)
            }
            try context.save()
            return objects
        }
        return PhaseResult(time: run.time, count: run.result.count, sum: 0)
    }
}
