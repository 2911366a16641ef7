import Foundation

/// Runner mode: starts every selected contender in a process of its own, one after the
/// other, collects and checks their reports, and returns the outcomes for the table.
struct Runner {
    var options: Options
    /// main (its rows, on files; scaling runs them too), or postgres (its rows, on the
    /// server of `postgres`: PostgresWorkload.swift).
    var workload: WorkloadKind = .main
    var postgres: PostgresServer? = nil

    /// Runs the contenders in the scratch directory `options.dir`.
    func run() -> [Outcome<InsertFetch>] {
        (workload == .postgres ? postgresContenders : contenders)
            .filter { options.only?.contains($0.id) ?? true }
            .map { spec in
                logLine(workload == .main ? "== \(spec.title)" : "== \(workload.rawValue): \(spec.title)")
                return measure(spec)
            }
    }

    func measure(_ spec: ContenderSpec) -> Outcome<InsertFetch> {
        let command: [String]
        switch spec.launch(options) {
        case .unavailable(let why): return Outcome(spec: spec, state: .skipped(why))
        case .worker: command = [Self.executablePath, "--worker", spec.id, "--workload", workload.rawValue]  // not BENCH_WORKLOAD
        case .program(let program): command = program + (workload == .main ? [] : ["--workload", workload.rawValue])
        }
        if workload == .postgres {
            guard let postgres else {
                return Outcome(spec: spec, state: .skipped("no PostgreSQL server (\(PostgresWorkload.urlVariable))"))
            }
            do { try postgres.dropSchemas(of: spec.id) } catch { return Outcome(spec: spec, state: .failed("\(error)")) }
        }
        defer {
            if workload == .postgres && !options.keep {
                do { try postgres?.dropSchemas(of: spec.id) } catch { logLine("bench: \(error)") }
            }
        }
        do {
            let report: Report = try Self.report(from: runProcess(command + options.contenderArguments))
            if let why = report.skipped { return Outcome(spec: spec, state: .skipped(why)) }
            guard let insert = Stats(report.insertSeconds), let fetch = Stats(report.fetchSeconds) else {
                return Outcome(spec: spec, state: .failed("the report has no timings"))
            }
            return Outcome(spec: spec, state: .measured(InsertFetch(insert: insert, fetch: fetch)),
                           problems: check(report, options: options, insertsOn: postgres.map { ($0, spec.id) }), about: report.about)
        } catch {
            return Outcome(spec: spec, state: .failed("\(error)"))
        }
    }

    /// The report on the last non-empty line of a contender's standard output.
    static func report<R: Decodable>(from output: String) throws -> R {
        guard let line = output.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            throw BenchError("no report on standard output")
        }
        do {
            return try JSONDecoder().decode(R.self, from: Data(line.utf8))
        } catch {
            throw BenchError("unreadable report '\(line.prefix(200))': \(error)")
        }
    }

    /// Runs a command (a bare name is looked up on PATH) and returns its standard output;
    /// its standard error goes to ours. A non-zero exit is an error.
    func runProcess(_ command: [String]) throws -> String {
        let process = Process()
        if command[0].contains("/") {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("\(command.joined(separator: " ")) ended with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// A new, empty scratch directory under $TMPDIR.
    static func makeScratchDirectory() throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/objectgraph-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a directory in \(base)") }
        return String(cString: made)
    }
}
