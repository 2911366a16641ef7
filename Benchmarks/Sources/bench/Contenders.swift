/// How the runner starts a contender.
enum Launch: Sendable {
    /// This executable in worker mode, running a SwiftContender.
    case worker(any SwiftContender)
    /// Another program (its command line), printing the same report (README.md, "The report").
    case program([String])
    /// Not runnable in this run, with the reason shown in the table.
    case unavailable(String)
}

/// One row of the table.
struct ContenderSpec: Sendable {
    let id: String      // for --only and --worker
    let title: String   // the row's label
    let launch: @Sendable (Options) -> Launch
}

/// The rows of the table, in order. The first one is the reference of the ratios.
///
/// To add a contender: write it as a SwiftContender (like RawSQLite.swift), or as a
/// program that takes the common flags and prints a report (like c/og_bench.c or
/// python/og_bench.py), then add its row here.
let contenders: [ContenderSpec] = [
    ContenderSpec(id: "raw-sqlite", title: "raw SQLite (C API)") { _ in .worker(RawSQLite()) },
    ContenderSpec(id: "grdb", title: "GRDB 7 records") { _ in .worker(GRDBRecords()) },
    ContenderSpec(id: "og-swift", title: "ObjectGraph (Swift)") { _ in .worker(ObjectGraphSwift()) },

    // ---- Contenders outside this executable ----
    ContenderSpec(id: "og-c", title: "ObjectGraph (C)") { options in
        guard let program = options.cProgram else { return .unavailable("not built (--c-program)") }
        return .program([program])
    },
    ContenderSpec(id: "og-python", title: "ObjectGraph (Python)") { options in
        guard let dir = options.pythonDir else { return .unavailable("no --python-dir") }
        return .program([options.python, "\(dir)/og_bench.py"])
    },
    ContenderSpec(id: "sqlalchemy", title: "SQLAlchemy 2 ORM (Python)") { options in
        guard let dir = options.pythonDir else { return .unavailable("no --python-dir") }
        return .program([options.python, "\(dir)/sqlalchemy_bench.py"])
    },
    ContenderSpec(id: "python-sqlite3", title: "Python sqlite3 (stdlib)") { options in
        guard let dir = options.pythonDir else { return .unavailable("no --python-dir") }
        return .program([options.python, "\(dir)/sqlite3_bench.py"])
    },
    ContenderSpec(id: "python-sqlite3-loop", title: "Python sqlite3, execute loop") { options in
        guard let dir = options.pythonDir else { return .unavailable("no --python-dir") }
        return .program([options.python, "\(dir)/sqlite3_loop_bench.py"])
    },
    // ---- Add new rows above this line ----
]

/// The rows of the postgres workload's table (PostgresWorkload.swift), in order: raw libpq,
/// the reference of the ratios, main's ObjectGraph rows (the same code, on a PostgreSQL
/// schema: `--workload postgres`), and SQLAlchemy's ORM on psycopg.
let postgresContenders: [ContenderSpec] = [
    ContenderSpec(id: "raw-libpq", title: "raw libpq (C)") { options in
        guard let program = options.libpqProgram else { return .unavailable("not built (--libpq-program)") }
        return .program([program])
    },
] + contenders.filter { ["og-swift", "og-c", "og-python"].contains($0.id) } + [
    ContenderSpec(id: "sqlalchemy-psycopg", title: "SQLAlchemy 2 ORM + psycopg") { options in
        guard let dir = options.pythonDir else { return .unavailable("no --python-dir") }
        return .program([options.python, "\(dir)/sqlalchemy_bench.py"])
    },
]

/// Every contender of every workload, each once (for --only and --worker).
let allContenders: [ContenderSpec] = contenders + postgresContenders.filter { p in !contenders.contains { $0.id == p.id } }

/// The contenders of the one-phase workloads, by contender id (rows of `contenders`, in
/// their order); a contender without an entry has no row in that workload's table.
func phaseContender(id: String, workload: WorkloadKind) -> (any PhaseContender)? {
    switch (id, workload) {
    case ("raw-sqlite", .update): RawUpdate()
    case ("raw-sqlite", .indexed): RawIndexed()
    case ("raw-sqlite", .traversal): RawTraversal()
    case ("grdb", .update): GRDBUpdate()
    case ("grdb", .indexed): GRDBIndexed()
    case ("grdb", .traversal): GRDBTraversal()
    case ("og-swift", .update): OGUpdate()
    case ("og-swift", .indexed): OGIndexed()
    case ("og-swift", .traversal): OGTraversal()
    case ("raw-sqlite", .batchInsert): RawBatchInsert()
    case ("raw-sqlite", .batchUpdate): RawBatchUpdate()
    case ("raw-sqlite", .batchDelete): RawBatchDelete()
    case ("raw-sqlite", .upsert): RawUpsert()
    case ("og-swift", .batchInsert): OGBatchInsert()
    case ("og-swift", .batchUpdate): OGBatchUpdate()
    case ("og-swift", .batchDelete): OGBatchDelete()
    case ("og-swift", .upsert): OGUpsert()
    case ("raw-sqlite", .history): RawHistory()
    case ("og-swift", .history): OGHistory()
    default: nil
    }
}

/// How the runner starts a contender of a one-phase workload: a Swift worker
/// (`phaseContender`), or a program taking `--workload W` (Benchmarks/README.md); nil when
/// the contender has no such workload.
enum PhaseLaunch {
    case worker
    case program([String])
}

func phaseLaunch(id: String, workload: WorkloadKind, options: Options) -> PhaseLaunch? {
    if phaseContender(id: id, workload: workload) != nil { return .worker }
    switch id {
    case "og-c" where WorkloadKind.phases.contains(workload):
        return options.cPhaseProgram.map { .program([$0]) }
    case "og-python" where WorkloadKind.phases.contains(workload):
        return options.pythonDir.map { .program([options.python, "\($0)/og_phase_bench.py"]) }
    case "python-sqlite3" where [.batchInsert, .upsert, .history].contains(workload):
        // The anchor of the Python rows: executemany in one transaction; history's query.
        return options.pythonDir.map { .program([options.python, "\($0)/sqlite3_phase_bench.py"]) }
    default:
        return nil
    }
}

/// history: the contenders that time main's insert with history tracking off and on beside
/// their read (HistoryInserting, and the same in the C and Python programs); the runner
/// requires those timings of them.
let historyInsertContenders: Set<String> = ["og-swift", "og-c", "og-python"]
