import Foundation

/// The postgres workload: main's insert and fetch + read (the same N, M, objects and
/// checks) on a PostgreSQL server instead of SQLite files. Its rows are
/// `postgresContenders`; raw libpq is the reference of the ratios.
///
/// Where the stores are: every contender keeps them in schemas of the server's database,
/// named after its id, `ogbench_<id>_fetch` (filled once before the runs, as main's fetch
/// file) and `ogbench_<id>_insert_<run>` (a new, empty schema for each run's insert, the
/// warm-up's included, run numbered from 1), `-` in the id spelled `_`. The C and Python
/// programs name them the same way. The runner drops a contender's schemas before starting
/// it (anything an earlier run left) and after checking its last insert (unless `--keep`).
enum PostgresWorkload {
    /// The server's libpq URL, set by scripts/bench.sh (which starts a throwaway server
    /// unless one is given); the contenders read it from their environment.
    static let urlVariable = "OBJECTGRAPH_BENCH_POSTGRES_URL"

    /// The reference of the ratios.
    static let referenceID = "raw-libpq"

    static func schemaPrefix(id: String) -> String { "ogbench_" + id.replacing("-", with: "_") + "_" }
    static func fetchSchema(id: String) -> String { schemaPrefix(id: id) + "fetch" }
    /// `run` counts from 0 (the first warm-up run); the name counts from 1.
    static func insertSchema(id: String, run: Int) -> String { schemaPrefix(id: id) + "insert_\(run + 1)" }

    /// The worker's stores.
    static func stores(id: String, options: Options) throws -> MainStores {
        guard let url = options.postgresURL else { throw BenchError("no PostgreSQL server: \(urlVariable) is not set") }
        return MainStores(fetch: .postgreSQL(url: url, schema: fetchSchema(id: id)),
                          insert: { .postgreSQL(url: url, schema: insertSchema(id: id, run: $0)) })
    }
}

/// The runner's connection to the server, and what it does there.
struct PostgresServer {
    let client: PostgresClient
    /// "PostgreSQL 15.x on host:port (fsync …, synchronous_commit …)", for the table.
    let description: String

    init(url: String) throws {
        client = try PostgresClient(url: url)
        let version = try client.value("SHOW server_version")
        let fsync = try client.value("SHOW fsync")
        let synchronousCommit = try client.value("SHOW synchronous_commit")
        description = "PostgreSQL \(version) on \(client.address) (fsync \(fsync), synchronous_commit \(synchronousCommit))"
    }

    /// Drops every schema of the contender `id` (PostgresWorkload's names).
    func dropSchemas(of id: String) throws {
        let prefix = PostgresWorkload.schemaPrefix(id: id)
        let names = try client.rows(
            "SELECT nspname FROM pg_namespace WHERE left(nspname, \(prefix.utf8.count)) = \(PostgresClient.literal(prefix))")
        for case let name? in names.map({ $0.first ?? nil }) {
            try client.execute("DROP SCHEMA IF EXISTS \(PostgresClient.quoted(name)) CASCADE")
        }
    }

    /// The problems with the rows of the contender's last insert: the schema its report
    /// names must be one of its own and hold N rows adding up to main's sum for N.
    func checkInsert(_ report: Report, id: String, options: Options) -> [String] {
        guard let schema = report.insertSchema, let table = report.insertTable,
              let columns = report.insertColumns, !columns.isEmpty else {
            return ["the report does not name its insert schema, table and columns"]
        }
        let expectedSchema = PostgresWorkload.insertSchema(id: id, run: options.warmup + options.runs - 1)
        guard schema == expectedSchema else { return ["the report names the insert schema \(schema), not \(expectedSchema)"] }
        do {
            let sums = columns.map { "COALESCE(sum(\(PostgresClient.quoted($0))), 0)" }.joined(separator: " + ")
            let row = try client.rows(
                "SELECT count(*), (\(sums))::bigint FROM \(PostgresClient.quoted(schema)).\(PostgresClient.quoted(table))").first
            let rows = row?[0].flatMap { Int($0) } ?? -1
            let sum = row?[1].flatMap { Int64($0) } ?? -1
            var problems: [String] = []
            if rows != options.n { problems.append("insert schema has \(rows) rows, not \(options.n)") }
            let expected = Workload.expectedSum(rows: options.n)
            if sum != expected { problems.append("insert schema sum \(sum) ≠ \(expected)") }
            return problems
        } catch {
            return ["insert schema: \(error)"]
        }
    }
}

/// The printed result of the postgres workload: main's table, with raw libpq's medians as
/// the reference, and under it the ratios the targets are set on.
func renderPostgresTable(_ outcomes: [Outcome<InsertFetch>], options: Options, server: String?) -> String {
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"
    let header = [
        "ObjectGraph benchmark, workload postgres: entity Item, 10 Int64 attributes; \(server ?? "no PostgreSQL server")",
        "  insert: \(grouped(options.n)) objects, then one save into a new, empty schema",
        "  fetch:  \(grouped(options.fetchRows)) objects, every attribute read and summed",
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender, \(warmup); each contender in a process of its own",
        "  times in ms; ×raw = median / raw libpq's median",
    ]
    func medians(_ id: String) -> InsertFetch? {
        guard case .measured(let m)? = outcomes.first(where: { $0.spec.id == id })?.state else { return nil }
        return m
    }
    func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
    var ratios: [String] = []
    if let swift = medians("og-swift"), let raw = medians(PostgresWorkload.referenceID) {
        ratios.append("  ObjectGraph (Swift) / raw libpq: insert \(ratio(swift.insert.median, raw.insert.median)), "
                      + "fetch + read \(ratio(swift.fetch.median, raw.fetch.median)) (target: at most 1.5×)")
    }
    if let python = medians("og-python"), let orm = medians("sqlalchemy-psycopg") {
        ratios.append("  SQLAlchemy 2 ORM + psycopg / ObjectGraph (Python): insert \(ratio(orm.insert.median, python.insert.median)), "
                      + "fetch + read \(ratio(orm.fetch.median, python.fetch.median)) (target: at least 5×)")
    }
    return insertFetchTable(outcomes, options: options, referenceID: PostgresWorkload.referenceID, header: header,
                            footer: ratios.isEmpty ? [] : [""] + ratios)
}
