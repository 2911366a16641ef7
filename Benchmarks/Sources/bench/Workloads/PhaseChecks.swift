/// The problems with a one-phase report: the number of runs, and in each run the objects
/// seen (or rows changed) and what they add up to; then, for the workloads that write,
/// the store the contender left (StoreCheck.swift), and for history the inserts' timings
/// and stores (HistoryChecks.swift).
func checkPhase(_ report: PhaseReport, id: String, workload: WorkloadKind, options: Options) -> [String] {
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
    case .batchInsert, .upsert: (sizes.batchInsertRows, nil)
    case .batchUpdate, .batchDelete: (sizes.batchRows, nil)
    case .history: (sizes.historyChanges, sizes.historyKeySum)  // inserts read, their objects' keys
    case .main, .postgres, .scaling: (0, nil)
    }
    if let bad = report.counts.first(where: { $0 != expected.count }) {
        problems.append("\(bad) objects, not \(expected.count)")
    }
    if let sum = expected.sum, let bad = report.sums.first(where: { $0 != sum }) {
        problems.append("sum \(bad) ≠ \(sum)")
    }
    if workload == .history { problems += checkHistoryInserts(report, id: id, options: options) }
    return problems + checkStore(report, workload: workload, sizes: sizes)
}
