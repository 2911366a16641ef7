import BenchSQLite

/// The rows a workload's store must hold after the contender exits, and what every
/// attribute of every row adds up to; nil for the workloads whose store is not checked.
func expectedStore(_ workload: WorkloadKind, sizes: Sizes, totalRuns: Int) -> (rows: Int, sum: Int64)? {
    switch workload {
    case .update:
        // a9 + 1 in each changed item, once per run (warm-up runs included).
        (sizes.updateRows, Workload.expectedSum(rows: sizes.updateRows) + Int64(totalRuns * sizes.updateCount))
    case .batchInsert:
        (sizes.batchInsertRows, Workload.expectedSum(rows: sizes.batchInsertRows))
    case .batchUpdate:
        // Every a9 (i*10 + 9) replaced by the run's value.
        (sizes.batchRows, Workload.expectedSum(rows: sizes.batchRows) - a9Sum(rows: sizes.batchRows)
            + Int64(sizes.batchRows) * Sizes.batchUpdateValue)
    case .batchDelete:
        (0, 0)
    case .upsert:
        // Items 0 ..< upsertRowsAfter, each with main's values.
        (sizes.upsertRowsAfter, Workload.expectedSum(rows: sizes.upsertRowsAfter))
    case .main, .indexed, .traversal, .history, .postgres, .scaling:
        nil
    }
}

/// What a9 adds up to in `rows` items of main's values: the sum of i*10 + 9.
private func a9Sum(rows: Int) -> Int64 {
    let n = Int64(rows)
    return 5 * n * (n - 1) + 9 * n
}

/// Opens the store the report names with SQLite and compares its rows and their sum with
/// `expectedStore`: what the contender left behind, not what it said it did.
func checkStore(_ report: PhaseReport, workload: WorkloadKind, sizes: Sizes) -> [String] {
    guard let expected = expectedStore(workload, sizes: sizes, totalRuns: report.totalRuns) else { return [] }
    guard let file = report.file, let table = report.table, let columns = report.columns, !columns.isEmpty else {
        return ["the report does not name its store, table and columns"]
    }
    do {
        let db = try SQLiteDB(path: file)
        let rows = try db.integer("SELECT count(*) FROM \(table)")
        // An empty table's sum is NULL, read as 0.
        let sum = try db.integer("SELECT \(columns.map { "sum(\($0))" }.joined(separator: " + ")) FROM \(table)")
        var problems: [String] = []
        if rows != Int64(expected.rows) { problems.append("the store has \(rows) rows, not \(expected.rows)") }
        if sum != expected.sum { problems.append("store sum \(sum) ≠ \(expected.sum) after \(report.totalRuns) runs") }
        return problems
    } catch {
        return ["store: \(error)"]
    }
}
