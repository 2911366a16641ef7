/// Worker mode for a one-phase workload: prepares the store, runs the warm-up and timed
/// runs of one contender, and returns its report.
func runPhaseWorker(_ contender: any PhaseContender, id: String, workload: WorkloadKind,
                    options: Options) throws -> PhaseReport {
    let path = "\(options.dir)/\(id)-\(workload.rawValue).sqlite"
    removeStore(path)
    try contender.prepare(path: path, sizes: options.sizes)

    var report = PhaseReport()
    for run in 0..<(options.warmup + options.runs) {
        let result = try contender.run(path: path, sizes: options.sizes)
        let label = run < options.warmup ? "warm-up" : "run \(run - options.warmup + 1)/\(options.runs)"
        logLine("\(id): \(workload.rawValue): \(label): \(milliseconds(result.time.seconds)) ms, \(result.count) objects")
        if run >= options.warmup {
            report.seconds.append(result.time.seconds)
            report.counts.append(result.count)
            report.sums.append(result.sum)
        }
    }
    report.totalRuns = options.warmup + options.runs
    removeStore(StoreTemplate.path(for: path))
    if workload.checksStore {
        (report.file, report.table, report.columns) = (path, contender.table, contender.columns)
    } else {
        removeStore(path)
    }
    return report
}
