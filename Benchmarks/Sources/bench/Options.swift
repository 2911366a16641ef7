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
    var cPhaseProgram: String?  // the built C contender of the one-phase workloads
    var libpqProgram: String?  // the built raw libpq contender of the postgres workload
    var postgresURL: String?  // the postgres workload's server (OBJECTGRAPH_BENCH_POSTGRES_URL)
    var python = "python3"
    var pythonDir: String?    // Benchmarks/python
    var worker: String?       // worker mode: run this Swift contender and print its report
    var help = false
    var migrationRows = 0     // the migration benchmark's store size (0: not run)
    var migrationObjectRows = 200_000  // rows the object-by-object migration copies
    var memoryObjects = 0     // the memory measurement's object count (0: not run)
    var workloads: [WorkloadKind] = [.main]  // what to run (--workload)
    var sizes = Sizes()       // the sizes of the workloads other than main
    var out: String?          // where the scaling CSV and SVG go (default: the scratch directory)

    static let usage = """
        usage: bench [options]
          --n N              objects inserted per run (BENCH_N; default 50000)
          --fetch-rows M     objects fetched per run (BENCH_FETCH_ROWS; default 200000)
          --runs R           timed runs per contender (BENCH_RUNS; default 5)
          --warmup W         untimed runs first (BENCH_WARMUP; default 1)
          --quick            N=5000, M=20000, 3 runs, no warm-up (BENCH_QUICK=1)
          --only a,b         only these contenders (BENCH_ONLY): \(allContenders.map(\.id).joined(separator: ", "))
          --dir D            scratch directory (default: a new one under $TMPDIR, removed after)
          --keep             keep the scratch directory
          --c-program P      the built ObjectGraph-from-C contender (c/og_bench.c)
          --c-phase-program P  the same for the one-phase workloads (c/og_phase_bench.c)
          --libpq-program P  the built raw libpq contender of the postgres workload (c/raw_libpq_bench.c)
          --python P         the Python interpreter (default python3)
          --python-dir D     the Python contenders' directory (Benchmarks/python)
          --migration ROWS   instead: migrate a store of ROWS rows in place and object by
                             object (BENCH_MIGRATION_ROWS), and print rows per second
          --migration-object-rows K  rows the object-by-object migration copies (default 200000)
          --memory N         instead: bytes per live fetched object from Swift, as
                             c/og_memory.c measures them from C (BENCH_MEMORY_OBJECTS)
          --workload W[,W]   main, update, indexed, traversal, batch-insert, batch-update,
                             batch-delete, upsert, history, postgres, scaling or all (BENCH_WORKLOAD;
                             default main); postgres runs on the server of OBJECTGRAPH_BENCH_POSTGRES_URL
          --update-rows U    update: objects in the store (BENCH_UPDATE_ROWS; default 200000)
          --update-percent P update: percent of them changed and saved (default 10)
          --indexed-rows I   indexed: objects in the store (BENCH_INDEXED_ROWS; default 1000000)
          --indexed-percent P  indexed: percent of them the predicate returns (default 1)
          --authors A        traversal: authors (BENCH_AUTHORS; default 10000)
          --books-per-author B  traversal: books of each author (default 20)
          --batch-insert-rows R  batch-insert, upsert: rows inserted per run (BENCH_BATCH_INSERT_ROWS;
                             default 50000)
          --batch-rows B     batch-update, batch-delete, upsert: rows in the store (BENCH_BATCH_ROWS;
                             default 200000)
          --history-changes H  history: changes read after the token (BENCH_HISTORY_CHANGES;
                             default 100000); its inserts are --n objects
          --scaling-sizes S  scaling: object counts, comma-separated (BENCH_SCALING_SIZES;
                             default 10000,100000,1000000)
          --out D            scaling: directory of scaling.csv and scaling.svg (default: the
                             scratch directory, then kept)
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
                 "--c-program", "--c-phase-program", "--libpq-program", "--python", "--python-dir", "--worker", "--migration", "--migration-object-rows", "--memory",
             "--workload", "--out", "--update-rows", "--update-percent", "--indexed-rows", "--indexed-percent",
             "--authors", "--books-per-author", "--scaling-sizes", "--batch-insert-rows", "--batch-rows", "--history-changes":
                guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
                flags[flag] = value
            default:
                throw BenchError("unknown option '\(flag)'\n\(usage)")
            }
        }

        var o = Options()
        if switches.contains("--quick") || environment["BENCH_QUICK"] == "1" {
            (o.n, o.fetchRows, o.runs, o.warmup) = (5_000, 20_000, 3, 0)
            o.sizes = .quick
        }
        let settings: [(flag: String, env: String, set: (inout Options, String) throws -> Void)] = [
            ("--n", "BENCH_N", { $0.n = try count($1, "--n", minimum: 1) }),
            ("--fetch-rows", "BENCH_FETCH_ROWS", { $0.fetchRows = try count($1, "--fetch-rows", minimum: 1) }),
            ("--runs", "BENCH_RUNS", { $0.runs = try count($1, "--runs", minimum: 1) }),
            ("--warmup", "BENCH_WARMUP", { $0.warmup = try count($1, "--warmup", minimum: 0) }),
            ("--only", "BENCH_ONLY", { $0.only = $1.split(separator: ",").map(String.init) }),
            ("--migration", "BENCH_MIGRATION_ROWS", { $0.migrationRows = try count($1, "--migration", minimum: 1) }),
            ("--migration-object-rows", "BENCH_MIGRATION_OBJECT_ROWS", { $0.migrationObjectRows = try count($1, "--migration-object-rows", minimum: 1) }),
            ("--memory", "BENCH_MEMORY_OBJECTS", { $0.memoryObjects = try count($1, "--memory", minimum: 1) }),
            ("--workload", "BENCH_WORKLOAD", { $0.workloads = try WorkloadKind.parse($1) }),
            ("--update-rows", "BENCH_UPDATE_ROWS", { $0.sizes.updateRows = try count($1, "--update-rows", minimum: 1) }),
            ("--update-percent", "BENCH_UPDATE_PERCENT", { $0.sizes.updatePercent = try count($1, "--update-percent", minimum: 1) }),
            ("--indexed-rows", "BENCH_INDEXED_ROWS", { $0.sizes.indexedRows = try count($1, "--indexed-rows", minimum: 1) }),
            ("--indexed-percent", "BENCH_INDEXED_PERCENT", { $0.sizes.indexedPercent = try count($1, "--indexed-percent", minimum: 1) }),
            ("--authors", "BENCH_AUTHORS", { $0.sizes.authors = try count($1, "--authors", minimum: 1) }),
            ("--books-per-author", "BENCH_BOOKS_PER_AUTHOR", { $0.sizes.booksPerAuthor = try count($1, "--books-per-author", minimum: 1) }),
            ("--batch-insert-rows", "BENCH_BATCH_INSERT_ROWS", { $0.sizes.batchInsertRows = try count($1, "--batch-insert-rows", minimum: 1) }),
            ("--batch-rows", "BENCH_BATCH_ROWS", { $0.sizes.batchRows = try count($1, "--batch-rows", minimum: 1) }),
            ("--history-changes", "BENCH_HISTORY_CHANGES", { $0.sizes.historyChanges = try count($1, "--history-changes", minimum: 1) }),
            ("--scaling-sizes", "BENCH_SCALING_SIZES", { s, v in
                s.sizes.scaling = try v.split(separator: ",").map { try count(String($0), "--scaling-sizes", minimum: 1) }
            }),
        ]
        for s in settings {
            if let value = environment[s.env], !value.isEmpty { try s.set(&o, value) }
            if let value = flags[s.flag] { try s.set(&o, value) }
        }
        o.dir = flags["--dir"] ?? ""
        o.out = flags["--out"]
        if o.sizes.updatePercent > 100 || o.sizes.indexedPercent > 100 { throw BenchError("a percentage above 100") }
        o.keep = switches.contains("--keep")
        o.cProgram = flags["--c-program"]
        o.cPhaseProgram = flags["--c-phase-program"]
        o.libpqProgram = flags["--libpq-program"]
        o.postgresURL = environment[PostgresWorkload.urlVariable].flatMap { $0.isEmpty ? nil : $0 }
        o.python = flags["--python"] ?? o.python
        o.pythonDir = flags["--python-dir"]
        o.worker = flags["--worker"]
        o.help = switches.contains("--help") || switches.contains("-h")
        if let only = o.only {
            let known = Set(allContenders.map(\.id))
            if let bad = only.first(where: { !known.contains($0) }) {
                throw BenchError("unknown contender '\(bad)'; known: \(allContenders.map(\.id).joined(separator: ", "))")
            }
        }
        return o
    }

    /// The flags of a Swift worker running a workload other than main.
    var phaseArguments: [String] {
        contenderArguments + [
            "--update-rows", "\(sizes.updateRows)", "--update-percent", "\(sizes.updatePercent)",
            "--indexed-rows", "\(sizes.indexedRows)", "--indexed-percent", "\(sizes.indexedPercent)",
            "--authors", "\(sizes.authors)", "--books-per-author", "\(sizes.booksPerAuthor)",
            "--batch-insert-rows", "\(sizes.batchInsertRows)", "--batch-rows", "\(sizes.batchRows)",
            "--history-changes", "\(sizes.historyChanges)",
        ]
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
