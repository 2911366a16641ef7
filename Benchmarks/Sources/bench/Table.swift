import Foundation

/// The printed result: a header naming the workload, one row per contender, then any problems.
/// Ratios are a contender's median over raw SQLite's median (none when raw SQLite did not run).
func renderTable(_ outcomes: [Outcome], options: Options) -> String {
    let reference = outcomes.first { $0.spec.id == "raw-sqlite" }.flatMap { outcome -> (insert: Double, fetch: Double)? in
        guard case .measured(let insert, let fetch) = outcome.state else { return nil }
        return (insert.median, fetch.median)
    }
    let titleWidth = max(26, (outcomes.map(\.spec.title.count).max() ?? 0) + 2)
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"

    var lines = [
        "ObjectGraph benchmark: entity Item, 10 Int64 attributes; SQLite \(SQLiteDB.version), WAL, default synchronous",
        "  insert: \(grouped(options.n)) objects, then one save into a new file",
        "  fetch:  \(grouped(options.fetchRows)) objects, every attribute read and summed",
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender, \(warmup); each contender in a process of its own",
        "  times in ms; ×raw = median / raw SQLite's median",
        "",
        pad("", titleWidth) + pad("  insert", 36) + "  fetch + read",
        pad("contender", titleWidth)
            + "  median      min      max    ×raw" + "    median      min      max    ×raw" + "   check",
    ]
    lines.append(String(repeating: "-", count: lines.last!.count))
    for outcome in outcomes {
        let title = pad(outcome.spec.title, titleWidth)
        switch outcome.state {
        case .measured(let insert, let fetch):
            lines.append(title + columns(insert, reference?.insert) + "  " + columns(fetch, reference?.fetch)
                         + "   " + (outcome.problems.isEmpty ? "ok" : "FAILED"))
        case .skipped(let why):
            lines.append(title + "skipped: " + why)
        case .failed(let why):
            lines.append(title + "FAILED: " + (why.split(separator: "\n").first.map(String.init) ?? why))
        }
    }
    let abouts = outcomes.compactMap { o in o.about.map { "  \(o.spec.title): \($0)" } }
    if !abouts.isEmpty { lines += [""] + abouts }
    let problems = outcomes.flatMap { o in o.problems.map { "  \(o.spec.id): \($0)" } }
    if !problems.isEmpty { lines += ["", "check failures:"] + problems }
    return lines.joined(separator: "\n")
}

func columns(_ s: Stats, _ reference: Double?) -> String {
    let ratio = reference.map { String(format: "%7.2f×", s.median / $0) } ?? "       —"
    return String(format: "%8.1f %8.1f %8.1f", s.median * 1e3, s.min * 1e3, s.max * 1e3) + ratio
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var out = ""
    for (i, digit) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return out
}
