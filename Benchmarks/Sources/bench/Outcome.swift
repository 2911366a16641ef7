/// What became of one contender in this run: its row in a table. `Measured` is what a
/// measured contender reports: `InsertFetch` for the main workload, `Stats` for a
/// one-phase workload.
struct Outcome<Measured> {
    enum State {
        case measured(Measured)
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

/// The main workload's two phases.
struct InsertFetch {
    let insert: Stats
    let fetch: Stats
}

/// A row's text when the contender was not measured; nil when it was.
func unmeasuredRow<M>(_ outcome: Outcome<M>, title: String) -> String? {
    switch outcome.state {
    case .measured: nil
    case .skipped(let why): title + "skipped: " + why
    case .failed(let why): title + "FAILED: " + (why.split(separator: "\n").first.map(String.init) ?? why)
    }
}

/// The lines under a table: each contender's `about` line, then any check failures.
func tableNotes<M>(_ outcomes: [Outcome<M>]) -> [String] {
    var lines: [String] = []
    let abouts = outcomes.compactMap { o in o.about.map { "  \(o.spec.title): \($0)" } }
    if !abouts.isEmpty { lines += [""] + abouts }
    let problems = outcomes.flatMap { o in o.problems.map { "  \(o.spec.id): \($0)" } }
    if !problems.isEmpty { lines += ["", "check failures:"] + problems }
    return lines
}
