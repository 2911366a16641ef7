#if canImport(Glibc)
import Glibc
#endif

/// Worker mode: prepares the fetch store, runs the warm-up and timed runs of one Swift
/// contender, and returns its report. The C and Python contenders follow the same steps.
func runWorker(_ contender: any SwiftContender, id: String, options: Options) throws -> Report {
    let stores = options.workloads.first == .postgres ? try PostgresWorkload.stores(id: id, options: options)
                                                      : MainStores.files(id: id, options: options)
    stores.clear(stores.fetch)
    _ = try contender.insert(at: stores.fetch, count: options.fetchRows)  // preparation, not timed

    var report = Report()
    report.insertTable = contender.insertTable
    report.insertColumns = contender.insertColumns
    let total = options.warmup + options.runs
    for run in 0..<total {
        let store = stores.insert(run)
        stores.clear(store)
        let insert = try contender.insert(at: store, count: options.n)
        let fetch = try contender.fetch(at: stores.fetch)
        let label = run < options.warmup ? "warm-up" : "run \(run - options.warmup + 1)/\(options.runs)"
        logLine("\(id): \(label): insert \(milliseconds(insert.seconds)) ms, fetch \(milliseconds(fetch.time.seconds)) ms")
        if run >= options.warmup {
            report.insertSeconds.append(insert.seconds)
            report.fetchSeconds.append(fetch.time.seconds)
            report.fetchSums.append(fetch.sum)
            report.fetchCounts.append(fetch.count)
        }
    }
    stores.clear(stores.fetch)  // the last insert's store stays for the runner's check
    switch stores.insert(total - 1) {
    case .file(let path): report.insertFile = path
    case .postgreSQL(_, let schema): report.insertSchema = schema
    }
    return report
}

/// Where one worker keeps the stores of main's two phases: the fetch store, filled once,
/// and the store of each run's insert (`run` from 0, warm-up runs first).
struct MainStores {
    let fetch: StoreLocation
    let insert: (Int) -> StoreLocation

    /// main and scaling: two files in the scratch directory, the insert file made anew for
    /// every run. (postgres: a new schema for every run, PostgresWorkload.stores.)
    static func files(id: String, options: Options) -> MainStores {
        let insertPath = "\(options.dir)/\(id)-insert.sqlite"
        return MainStores(fetch: .file("\(options.dir)/\(id)-fetch.sqlite"), insert: { _ in .file(insertPath) })
    }

    /// Removes a file store before it is made again, and after use. A schema is new when
    /// used: the runner drops the contender's schemas before starting it and after its check.
    func clear(_ store: StoreLocation) {
        if case .file(let path) = store { removeStore(path) }
    }
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
