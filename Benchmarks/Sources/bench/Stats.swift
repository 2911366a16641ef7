/// Median, minimum and maximum of a contender's timed runs.
struct Stats {
    let median: Double
    let min: Double
    let max: Double

    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted.first!
        max = sorted.last!
    }
}
