import Foundation

/// The printed result of a one-phase workload: what it does, one row per contender, then
/// any problems. Ratios are a contender's median over raw SQLite's median.
func renderPhaseTable(_ outcomes: [PhaseOutcome], workload: WorkloadKind, options: Options) -> String {
    let reference = outcomes.first { $0.spec.id == "raw-sqlite" }.flatMap { outcome -> Double? in
        guard case .measured(let stats) = outcome.state else { return nil }
        return stats.median
    }
    let titleWidth = max(26, (outcomes.map(\.spec.title.count).max() ?? 0) + 2)
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"
    var lines = ["ObjectGraph benchmark, workload \(workload.rawValue): " + describe(workload, options.sizes)]
    lines += timedPart(workload).map { "  " + $0 }
    lines += [
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender, \(warmup); each contender in a process of its own",
        "  times in ms; ×raw = median / raw SQLite's median",
        "",
        pad("contender", titleWidth) + "  median      min      max    ×raw   check",
    ]
    lines.append(String(repeating: "-", count: lines.last!.count))
    for outcome in outcomes {
        let title = pad(outcome.spec.title, titleWidth)
        if let row = unmeasuredRow(outcome, title: title) {
            lines.append(row)
        } else if case .measured(let stats) = outcome.state {
            lines.append(title + columns(stats, reference) + "   " + (outcome.problems.isEmpty ? "ok" : "FAILED"))
        }
    }
    lines += tableNotes(outcomes)
    return lines.joined(separator: "\n")
}

private func describe(_ workload: WorkloadKind, _ s: Sizes) -> String {
    switch workload {
    case .update:
        "change \(grouped(s.updateCount)) of \(grouped(s.updateRows)) items (\(s.updatePercent)%, a0 < \(grouped(s.updateCount * 10))) and save"
    case .indexed:
        "fetch \(grouped(s.indexedRange.count)) of \(grouped(s.indexedRows)) items (\(s.indexedPercent)%) by a range of the indexed a0, read every attribute"
    case .traversal:
        "\(grouped(s.authors)) authors × \(s.booksPerAuthor) books, read every title (\(grouped(s.books)) books)"
    case .main, .scaling: ""
    }
}

private func timedPart(_ workload: WorkloadKind) -> [String] {
    switch workload {
    case .update:
        ["timed: finding the items, changing a9 (a9 + 1) and saving, in one transaction",
         "  raw SQLite: one UPDATE … WHERE a0 < ?; GRDB: fetchAll, then update(db) per record; ObjectGraph: predicate fetch, setValue, save()"]
    case .indexed:
        ["timed: the fetch by `a0 >= ? AND a0 < ?` and reading the results; every contender's table has an index of a0 alone"]
    case .traversal:
        ["timed: fetching the authors and their books and reading every title",
         "  raw SQLite: one join; GRDB: including(all:) (two queries); ObjectGraph: relationshipKeyPathsForPrefetching [\"books\"]"]
    case .main, .scaling: []
    }
}
