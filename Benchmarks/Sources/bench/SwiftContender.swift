/// A contender that runs inside this executable, in a process of its own (`bench --worker ID`).
protocol SwiftContender: Sendable {
    /// Where inserted rows land, for the runner's check of the insert file.
    var insertTable: String { get }
    var insertColumns: [String] { get }

    /// Creates a store at `path`, then (timed) inserts `count` objects and saves them.
    func insert(path: String, count: Int) throws -> Duration

    /// Opens the store at `path`, then (timed) fetches every object and sums every attribute.
    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int)

    /// The same two phases on a store wherever it is (the worker calls these). The
    /// defaults take files only; a contender that also runs the postgres workload
    /// implements them for a PostgreSQL schema as well.
    func insert(at store: StoreLocation, count: Int) throws -> Duration
    func fetch(at store: StoreLocation) throws -> (time: Duration, sum: Int64, count: Int)
}

extension SwiftContender {
    func insert(at store: StoreLocation, count: Int) throws -> Duration {
        guard case .file(let path) = store else { throw BenchError("this contender runs on SQLite files only") }
        return try insert(path: path, count: count)
    }

    func fetch(at store: StoreLocation) throws -> (time: Duration, sum: Int64, count: Int) {
        guard case .file(let path) = store else { throw BenchError("this contender runs on SQLite files only") }
        return try fetch(path: path)
    }
}

/// Where a store of main's two phases is: an SQLite file (main, scaling), or a schema of
/// a PostgreSQL database (postgres; the server's libpq URL and the schema's name).
enum StoreLocation: Sendable {
    case file(String)
    case postgreSQL(url: String, schema: String)
}
