import Foundation

// bench: runs every contender of the benchmark and prints the table (runner mode), or
// runs one Swift contender and prints its report (worker mode, --worker ID).

func main() -> Int32 {
    let options: Options
    do {
        options = try Options.parse(Array(CommandLine.arguments.dropFirst()),
                                    environment: ProcessInfo.processInfo.environment)
    } catch {
        logLine("bench: \(error)")
        return 2
    }
    if options.help {
        print(Options.usage)
        return 0
    }
    if let id = options.worker {
        return worker(id, options: options)
    }

    var runOptions = options
    let madeDirectory = options.dir.isEmpty
    do {
        if madeDirectory { runOptions.dir = try Runner.makeScratchDirectory() }
    } catch {
        logLine("bench: \(error)")
        return 1
    }
    if options.migrationRows > 0 {
        defer { if madeDirectory && !options.keep { try? FileManager.default.removeItem(atPath: runOptions.dir) } }
        do {
            print(try MigrationBench.run(rows: options.migrationRows, objectRows: options.migrationObjectRows, runs: options.runs, dir: runOptions.dir))
            return 0
        } catch {
            logLine("bench: migration: \(error)")
            return 1
        }
    }
    if options.memoryObjects > 0 {
        defer { if madeDirectory && !options.keep { try? FileManager.default.removeItem(atPath: runOptions.dir) } }
        do {
            print(try MemoryBench.run(objects: options.memoryObjects, dir: runOptions.dir))
            return 0
        } catch {
            logLine("bench: memory: \(error)")
            return 1
        }
    }
    var failed = false
    if options.workloads.contains(.main) {
        let outcomes = Runner(options: runOptions).run()
        print("")
        print(renderTable(outcomes, options: runOptions))
        failed = outcomes.contains { outcome in
            if case .failed = outcome.state { return true }
            return !outcome.problems.isEmpty
        }
    }
    for workload in WorkloadKind.phases where options.workloads.contains(workload) {
        let outcomes = PhaseRunner(options: runOptions, workload: workload).run()
        print("")
        print(renderPhaseTable(outcomes, workload: workload, options: runOptions))
        failed = failed || outcomes.contains { outcome in
            if case .failed = outcome.state { return true }
            return !outcome.problems.isEmpty
        }
    }
    if options.workloads.contains(.postgres) {
        var server: PostgresServer?
        var unreachable: String?
        if let url = options.postgresURL {
            do { server = try PostgresServer(url: url) } catch { unreachable = "\(error)" }
        }
        let outcomes: [Outcome<InsertFetch>]
        if let unreachable {
            logLine("bench: postgres: \(unreachable)")
            outcomes = postgresContenders.filter { options.only?.contains($0.id) ?? true }
                .map { Outcome(spec: $0, state: .failed(unreachable)) }
        } else {
            outcomes = Runner(options: runOptions, workload: .postgres, postgres: server).run()
        }
        print("")
        print(renderPostgresTable(outcomes, options: runOptions, server: server?.description))
        failed = failed || outcomes.contains { outcome in
            if case .failed = outcome.state { return true }
            return !outcome.problems.isEmpty
        }
    }
    var keepDirectory = options.keep
    if options.workloads.contains(.scaling) {
        let points = Scaling.run(options: runOptions)
        print("")
        print(renderScalingTable(points, options: runOptions))
        failed = failed || Scaling.failed(points)
        let out = options.out ?? runOptions.dir
        do {
            try writeScalingFiles(points, sizes: options.sizes.scaling, to: out)
            print("")
            print("scaling series: \(out)/scaling.csv, chart: \(out)/scaling.svg")
            keepDirectory = keepDirectory || options.out == nil
        } catch {
            logLine("bench: scaling files: \(error)")
            failed = true
        }
    }
    if madeDirectory && !keepDirectory { try? FileManager.default.removeItem(atPath: runOptions.dir) }
    if madeDirectory && keepDirectory && !options.keep { removeStores(in: runOptions.dir) }
    return failed ? 1 : 0
}

func worker(_ id: String, options: Options) -> Int32 {
    guard !options.dir.isEmpty,
          case .worker(let contender)? = allContenders.first(where: { $0.id == id })?.launch(options) else {
        logLine("bench: --worker needs a Swift contender's id and --dir")
        return 2
    }
    if let workload = options.workloads.first, workload != .main && workload != .postgres {
        guard let phased = phaseContender(id: id, workload: workload) else {
            logLine("bench: contender \(id) has no workload \(workload.rawValue)")
            return 2
        }
        do {
            let report = try runPhaseWorker(phased, id: id, workload: workload, options: options)
            print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
            return 0
        } catch {
            logLine("\(id): \(workload.rawValue): \(error)")
            return 1
        }
    }
    do {
        let report = try runWorker(contender, id: id, options: options)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return 0
    } catch {
        logLine("\(id): \(error)")
        return 1
    }
}

exit(main())
