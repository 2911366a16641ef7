import Foundation

/// What a worker of a one-phase workload prints as the last line of its standard output.
struct PhaseReport: Codable {
    var skipped: String?
    /// One entry per timed run (warm-up runs left out).
    var seconds: [Double] = []
    var counts: [Int] = []
    var sums: [Int64] = []
    /// Runs done on the store in all, warm-up included (the update's check needs it).
    var totalRuns = 0
    /// The store, and where its items are (the workloads that write: the runner checks them).
    var file: String?
    var table: String?
    var columns: [String]?
    var about: String?
    /// history, the ObjectGraph contenders: main's insert with history tracking off and on,
    /// one entry per timed run each, and the stores of the last ones (the runner checks them,
    /// HistoryChecks.swift; their items are in `table` and `columns`).
    var insertSeconds: [Double]?
    var historyInsertSeconds: [Double]?
    var insertFile: String?
    var historyInsertFile: String?

    enum CodingKeys: String, CodingKey {
        case skipped, seconds, counts, sums, about, file, table, columns
        case totalRuns = "total_runs"
        case insertSeconds = "insert_seconds", historyInsertSeconds = "history_insert_seconds"
        case insertFile = "insert_file", historyInsertFile = "history_insert_file"
    }
}
