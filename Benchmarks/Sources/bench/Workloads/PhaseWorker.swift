/// Worker mode for a one-phase workload: prepares the store, runs the warm-up and timed
/// runs of one contender, and returns its report.
func runPhaseWorker(_ contender: any PhaseContender, id: String, workload: WorkloadKind,
                    options: Options) throws -> PhaseReport {
    let path = "\(options.dir)/\(id)-\(workload.rawValue).sqlite"
    removeStore(path)
    try contender.prepare(path: path, sizes: options.sizes)

    var report = PhaseReport()
    // history: main's insert with history tracking off and on, in every run before the read.
    let inserts = workload == .history ? (contender as? HistoryInserting).map { HistoryInserts($0, id: id, options: options) } : nil
    for run in 0..<(options.warmup + options.runs) {
        let timings = try inserts?.run(run)
        let result = try contender.run(path: path, sizes: options.sizes)
        let label = run < options.warmup ? "warm-up" : "run \(run - options.warmup + 1)/\(options.runs)"
        logLine("\(id): \(workload.rawValue): \(label): \(milliseconds(result.time.seconds)) ms, \(result.count) objects"
                + (timings.map { "; insert, history off \(milliseconds($0.off.seconds)) ms, on \(milliseconds($0.on.seconds)) ms" } ?? ""))
        if run >= options.warmup {
            report.seconds.append(result.time.seconds)
            report.counts.append(result.count)
            report.sums.append(result.sum)
            if let timings {
                report.insertSeconds = (report.insertSeconds ?? []) + [timings.off.seconds]
                report.historyInsertSeconds = (report.historyInsertSeconds ?? []) + [timings.on.seconds]
            }
        }
    }
    report.totalRuns = options.warmup + options.runs
    removeStore(StoreTemplate.path(for: path))
    if workload.checksStore {
        (report.file, report.table, report.columns) = (path, contender.table, contender.columns)
    } else {
        removeStore(path)
    }
    if let inserts {
        // The stores of the last inserts stay for the runner's check (HistoryChecks.swift).
        (report.insertFile, report.historyInsertFile) = (inserts.offPath, inserts.onPath)
        (report.table, report.columns) = ("ZITEM", OGItemBatch.columns)
    }
    return report
}

/// history: the two inserts of one run, each into a new, empty store (made before its
/// timing). Which goes first alternates from run to run, so that neither always runs on a
/// machine the other has just warmed (or left writing back its pages).
struct HistoryInserts {
    let contender: any HistoryInserting
    let count: Int
    let offPath: String
    let onPath: String

    init(_ contender: any HistoryInserting, id: String, options: Options) {
        self.contender = contender
        count = options.n
        offPath = "\(options.dir)/\(id)-history-off.sqlite"
        onPath = "\(options.dir)/\(id)-history-on.sqlite"
    }

    func run(_ index: Int) throws -> (off: Duration, on: Duration) {
        func insert(_ tracking: Bool) throws -> Duration {
            let path = tracking ? onPath : offPath
            removeStore(path)
            return try contender.insert(path: path, count: count, tracking: tracking)
        }
        if index % 2 == 0 {
            let off = try insert(false)
            return (off, try insert(true))
        }
        let on = try insert(true)
        return (try insert(false), on)
    }
}
