import ObjectGraph

/// batch-insert, ObjectGraph (Swift): `execute(BatchInsertRequest(entityName:columns:))`
/// (one array of integers per attribute, filled inside the timing) with `resultType = .count`, into a new, empty store made before the timing.
struct OGBatchInsert: PhaseContender {
    let table = "ZITEM"
    let columns = OGItemBatch.columns

    func prepare(path: String, sizes: Sizes) throws {}

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        removeStore(path)
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false))
        let run = try timed { () throws -> Int in
            try OGItemBatch.count(try stack.context.execute(try OGItemBatch.insert(0..<sizes.batchInsertRows)))
        }
        return PhaseResult(time: run.time, count: run.result, sum: 0)
    }
}
