/// A contender of a workload with one timed phase (update, indexed, traversal, the batch
/// workloads, upsert), run in a process of its own (`bench --worker ID --workload W`).
protocol PhaseContender: Sendable {
    /// The table and columns holding the items, for the runner's check of the store
    /// after the workloads that write (`WorkloadKind.checksStore`; empty for the others).
    var table: String { get }
    var columns: [String] { get }

    /// Builds the store at `path` (not timed).
    func prepare(path: String, sizes: Sizes) throws

    /// One run on the prepared store: opens it (not timed; batch-insert first makes it
    /// anew, batch-delete and upsert restore it from its StoreTemplate), then times the
    /// workload's phase.
    func run(path: String, sizes: Sizes) throws -> PhaseResult
}

extension PhaseContender {
    var table: String { "" }
    var columns: [String] { [] }
}

/// One timed run: how long it took, and what the checks compare (objects seen or
/// changed, and a sum of what was read).
struct PhaseResult {
    var time: Duration
    var count: Int
    var sum: Int64
}
