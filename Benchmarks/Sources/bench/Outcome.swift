/// What became of one contender in this run: its row in the table.
struct Outcome {
    enum State {
        case measured(insert: Stats, fetch: Stats)
        case skipped(String)
        case failed(String)
    }

    let spec: ContenderSpec
    let state: State
    /// Problems found by the checks (wrong sums, counts, or rows in the insert file).
    var problems: [String] = []
    /// The contender's `about` line, if it sent one.
    var about: String?
}
