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
    let outcomes = Runner(options: runOptions).run()
    if madeDirectory && !options.keep { try? FileManager.default.removeItem(atPath: runOptions.dir) }
    print("")
    print(renderTable(outcomes, options: runOptions))
    let failed = outcomes.contains { outcome in
        if case .failed = outcome.state { return true }
        return !outcome.problems.isEmpty
    }
    return failed ? 1 : 0
}

func worker(_ id: String, options: Options) -> Int32 {
    guard !options.dir.isEmpty,
          case .worker(let contender)? = contenders.first(where: { $0.id == id })?.launch(options) else {
        logLine("bench: --worker needs a Swift contender's id and --dir")
        return 2
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
