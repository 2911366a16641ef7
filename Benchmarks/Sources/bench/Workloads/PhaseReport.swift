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

    enum CodingKeys: String, CodingKey {
        case skipped, seconds, counts, sums, about, file, table, columns
        case totalRuns = "total_runs"
    }
}
