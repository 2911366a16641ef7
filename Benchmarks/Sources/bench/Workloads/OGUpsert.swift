import ObjectGraph

/// upsert, ObjectGraph (Swift): a uniqueness constraint on a0 in the model, the context's
/// `mergePolicy = .mergeByPropertyObjectTrump`, and a batch insert whose rows update the
/// items whose a0 is stored and insert the others; on a fresh copy of the store every run.
struct OGUpsert: PhaseContender {
    let table = "ZITEM"
    let columns = OGItemBatch.columns

    func prepare(path: String, sizes: Sizes) throws {
        let template = StoreTemplate.path(for: path)
        _ = try OGStack(path: template, model: try OGStack.itemModel(indexed: false, uniqueA0: true))
        try ItemFill.fillStore(path: template, rows: sizes.batchRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        try StoreTemplate.restore(path)
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false, uniqueA0: true))
        stack.context.mergePolicy = .mergeByPropertyObjectTrump
        let run = try timed { () throws -> Int in
            try OGItemBatch.count(try stack.context.execute(try OGItemBatch.insert(sizes.upsertRange)))
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
