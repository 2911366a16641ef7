#if canImport(Glibc)
import Glibc
#endif

/// Worker mode: prepares the fetch store, runs the warm-up and timed runs of one Swift
/// contender, and returns its report. The C and Python contenders follow the same steps.
func runWorker(_ contender: any SwiftContender, id: String, options: Options) throws -> Report {
    let fetchPath = "\(options.dir)/\(id)-fetch.sqlite"
    let insertPath = "\(options.dir)/\(id)-insert.sqlite"
    removeStore(fetchPath)
    _ = try contender.insert(path: fetchPath, count: options.fetchRows)  // preparation, not timed

    var report = Report()
    report.insertTable = contender.insertTable
    report.insertColumns = contender.insertColumns
    report.insertFile = insertPath
    let total = options.warmup + options.runs
    for run in 0..<total {
        removeStore(insertPath)
        let insert = try contender.insert(path: insertPath, count: options.n)
        let fetch = try contender.fetch(path: fetchPath)
        let label = run < options.warmup ? "warm-up" : "run \(run - options.warmup + 1)/\(options.runs)"
        logLine("\(id): \(label): insert \(milliseconds(insert.seconds)) ms, fetch \(milliseconds(fetch.time.seconds)) ms")
        if run >= options.warmup {
            report.insertSeconds.append(insert.seconds)
            report.fetchSeconds.append(fetch.time.seconds)
            report.fetchSums.append(fetch.sum)
            report.fetchCounts.append(fetch.count)
        }
    }
    removeStore(fetchPath)  // the insert file stays for the runner's check
    return report
}

/// Deletes an SQLite file and its companions.
func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
}

/// A progress line on standard error (standard output carries only the report).
func logLine(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

func milliseconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10_000).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
}
