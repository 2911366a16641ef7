/// Settings from the command line and the environment. Precedence, lowest first:
/// defaults, quick mode (--quick or BENCH_QUICK=1), BENCH_* variables, flags.
struct Options: Sendable {
    var n = 50_000            // objects inserted per run
    var fetchRows = 200_000   // objects in the fetch store
    var runs = 5              // timed runs per contender
    var warmup = 1            // untimed runs before them
    var only: [String]?       // contender ids to run (all when nil)
    var dir = ""              // scratch directory (a new temporary one when empty)
    var keep = false          // keep the scratch directory
    var cProgram: String?     // the built C contender
    var python = "python3"
    var pythonDir: String?    // Benchmarks/python
    var worker: String?       // worker mode: run this Swift contender and print its report
    var help = false
    var migrationRows = 0     // the migration benchmark's store size (0: not run)
    var migrationObjectRows = 200_000  // rows the object-by-object migration copies

    static let usage = """
        usage: bench [options]
          --n N              objects inserted per run (BENCH_N; default 50000)
          --fetch-rows M     objects fetched per run (BENCH_FETCH_ROWS; default 200000)
          --runs R           timed runs per contender (BENCH_RUNS; default 5)
          --warmup W         untimed runs first (BENCH_WARMUP; default 1)
          --quick            N=5000, M=20000, 3 runs, no warm-up (BENCH_QUICK=1)
          --only a,b         only these contenders (BENCH_ONLY): \(contenders.map(\.id).joined(separator: ", "))
          --dir D            scratch directory (default: a new one under $TMPDIR, removed after)
          --keep             keep the scratch directory
          --c-program P      the built ObjectGraph-from-C contender (c/og_bench.c)
          --python P         the Python interpreter (default python3)
          --python-dir D     the Python contenders' directory (Benchmarks/python)
          --migration ROWS   instead: migrate a store of ROWS rows in place and object by
                             object (BENCH_MIGRATION_ROWS), and print rows per second
          --migration-object-rows K  rows the object-by-object migration copies (default 200000)
        """

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Options {
        var flags: [String: String] = [:]
        var switches: Set<String> = []
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            switch flag {
            case "--quick", "--keep", "--help", "-h":
                switches.insert(flag)
            case "--n", "--fetch-rows", "--runs", "--warmup", "--only", "--dir",
                 "--c-program", "--python", "--python-dir", "--worker", "--migration", "--migration-object-rows":
                guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
                flags[flag] = value
            default:
                throw BenchError("unknown option '\(flag)'\n\(usage)")
            }
        }

        var o = Options()
        if switches.contains("--quick") || environment["BENCH_QUICK"] == "1" {
            (o.n, o.fetchRows, o.runs, o.warmup) = (5_000, 20_000, 3, 0)
        }
        let settings: [(flag: String, env: String, set: (inout Options, String) throws -> Void)] = [
            ("--n", "BENCH_N", { $0.n = try count($1, "--n", minimum: 1) }),
            ("--fetch-rows", "BENCH_FETCH_ROWS", { $0.fetchRows = try count($1, "--fetch-rows", minimum: 1) }),
            ("--runs", "BENCH_RUNS", { $0.runs = try count($1, "--runs", minimum: 1) }),
            ("--warmup", "BENCH_WARMUP", { $0.warmup = try count($1, "--warmup", minimum: 0) }),
            ("--only", "BENCH_ONLY", { $0.only = $1.split(separator: ",").map(String.init) }),
            ("--migration", "BENCH_MIGRATION_ROWS", { $0.migrationRows = try count($1, "--migration", minimum: 1) }),
            ("--migration-object-rows", "BENCH_MIGRATION_OBJECT_ROWS", { $0.migrationObjectRows = try count($1, "--migration-object-rows", minimum: 1) }),
        ]
        for s in settings {
            if let value = environment[s.env], !value.isEmpty { try s.set(&o, value) }
            if let value = flags[s.flag] { try s.set(&o, value) }
        }
        o.dir = flags["--dir"] ?? ""
        o.keep = switches.contains("--keep")
        o.cProgram = flags["--c-program"]
        o.python = flags["--python"] ?? o.python
        o.pythonDir = flags["--python-dir"]
        o.worker = flags["--worker"]
        o.help = switches.contains("--help") || switches.contains("-h")
        if let only = o.only {
            let known = Set(contenders.map(\.id))
            if let bad = only.first(where: { !known.contains($0) }) {
                throw BenchError("unknown contender '\(bad)'; known: \(contenders.map(\.id).joined(separator: ", "))")
            }
        }
        return o
    }

    /// The flags every contender program receives.
    var contenderArguments: [String] {
        ["--n", "\(n)", "--fetch-rows", "\(fetchRows)", "--runs", "\(runs)", "--warmup", "\(warmup)", "--dir", dir]
    }
}

private func count(_ text: String, _ name: String, minimum: Int) throws -> Int {
    guard let value = Int(text.filter { $0 != "_" }), value >= minimum else {
        throw BenchError("\(name) needs a whole number ≥ \(minimum), not '\(text)'")
    }
    return value
}
