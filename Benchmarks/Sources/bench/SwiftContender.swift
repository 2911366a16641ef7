/// A contender that runs inside this executable, in a process of its own (`bench --worker ID`).
protocol SwiftContender: Sendable {
    /// Where inserted rows land, for the runner's check of the insert file.
    var insertTable: String { get }
    var insertColumns: [String] { get }

    /// Creates a store at `path`, then (timed) inserts `count` objects and saves them.
    func insert(path: String, count: Int) throws -> Duration

    /// Opens the store at `path`, then (timed) fetches every object and sums every attribute.
    func fetch(path: String) throws -> (time: Duration, sum: Int64, count: Int)
}
