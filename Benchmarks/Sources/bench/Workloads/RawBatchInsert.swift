/// batch-insert, raw SQLite (the anchor): main's insert, one prepared INSERT per row in
/// one `BEGIN`…`COMMIT`, into a new, empty store made before the timing.
struct RawBatchInsert: PhaseContender {
    let table = "item"
    let columns = Workload.attributeNames

    func prepare(path: String, sizes: Sizes) throws {}

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        removeStore(path)
        // RawSQLite.insert throws unless every row went in, so the count is the rows asked for.
        let time = try RawSQLite().insert(path: path, count: sizes.batchInsertRows)
        return PhaseResult(time: time, count: sizes.batchInsertRows, sum: 0)
    }
}
