/// The problems with a one-phase report: the number of runs, and in each run the objects
/// seen (or changed) and what they add up to. After the update, the store must hold every
/// item, with a9 raised by one in the changed items for every run.
func checkPhase(_ report: PhaseReport, workload: WorkloadKind, options: Options) -> [String] {
    var problems: [String] = []
    if report.seconds.count != options.runs { problems.append("\(report.seconds.count) timed runs instead of \(options.runs)") }
    if report.counts.count != report.seconds.count || report.sums.count != report.seconds.count {
        problems.append("\(report.counts.count) counts and \(report.sums.count) sums for \(report.seconds.count) runs")
    }
    let sizes = options.sizes
    let expected: (count: Int, sum: Int64?) = switch workload {
    case .update: (sizes.updateCount, nil)
    case .indexed: (sizes.indexedRange.count, Workload.expectedSum(rows: sizes.indexedRange.upperBound)
                    - Workload.expectedSum(rows: sizes.indexedRange.lowerBound))
    case .traversal: (sizes.books, Library.expectedTitleBytes(sizes))
    case .main, .scaling: (0, nil)
    }
    if let bad = report.counts.first(where: { $0 != expected.count }) {
        problems.append("\(bad) objects, not \(expected.count)")
    }
    if let sum = expected.sum, let bad = report.sums.first(where: { $0 != sum }) {
        problems.append("sum \(bad) ≠ \(sum)")
    }
    if workload == .update { problems += checkUpdatedStore(report, sizes: sizes) }
    return problems
}

private func checkUpdatedStore(_ report: PhaseReport, sizes: Sizes) -> [String] {
    guard let file = report.file, let table = report.table, let columns = report.columns, !columns.isEmpty else {
        return ["the report does not name its store, table and columns"]
    }
    do {
        let db = try SQLiteDB(path: file)
        let rows = try db.integer("SELECT count(*) FROM \(table)")
        let sum = try db.integer("SELECT \(columns.map { "sum(\($0))" }.joined(separator: " + ")) FROM \(table)")
        let expected = Workload.expectedSum(rows: sizes.updateRows) + Int64(report.totalRuns * sizes.updateCount)
        var problems: [String] = []
        if rows != Int64(sizes.updateRows) { problems.append("the store has \(rows) rows, not \(sizes.updateRows)") }
        if sum != expected { problems.append("store sum \(sum) ≠ \(expected) after \(report.totalRuns) updates") }
        return problems
    } catch {
        return ["store: \(error)"]
    }
}
