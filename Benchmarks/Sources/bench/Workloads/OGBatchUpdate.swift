import ObjectGraph

/// batch-update, ObjectGraph (Swift): `execute(BatchUpdateRequest(entityName:predicate:propertiesToUpdate:))`
/// with `a0 >= 0` and `resultType = .count`, on a fresh copy of the store every run.
struct OGBatchUpdate: PhaseContender {
    let table = "ZITEM"
    let columns = OGItemBatch.columns

    func prepare(path: String, sizes: Sizes) throws {
        let template = StoreTemplate.path(for: path)
        _ = try OGStack(path: template, model: try OGStack.itemModel(indexed: false))
        try ItemFill.fillStore(path: template, rows: sizes.batchRows)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        try StoreTemplate.restore(path)
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false))
        let run = try timed { () throws -> Int in
            let request = BatchUpdateRequest(entityName: "Item", predicate: OGItemBatch.everyItem,
                                             propertiesToUpdate: ["a9": .integer(Sizes.batchUpdateValue)])
            request.resultType = .count
            return try OGItemBatch.count(try stack.context.execute(request))
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
