import Foundation

/// The printed result: a header naming the workload, one row per contender, then any problems.
/// Ratios are a contender's median over raw SQLite's median (none when raw SQLite did not run).
func renderTable(_ outcomes: [Outcome<InsertFetch>], options: Options) -> String {
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"
    return insertFetchTable(outcomes, options: options, referenceID: "raw-sqlite", header: [
        "ObjectGraph benchmark: entity Item, 10 Int64 attributes; SQLite \(SQLiteDB.version), WAL, default synchronous",
        "  insert: \(grouped(options.n)) objects, then one save into a new file",
        "  fetch:  \(grouped(options.fetchRows)) objects, every attribute read and summed",
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender, \(warmup); each contender in a process of its own",
        "  times in ms; ×raw = median / raw SQLite's median",
    ], footer: anchorRatios(outcomes))
}

/// Each binding against its own anchor, from the medians of this run: Swift's fetch against
/// GRDB's, C against Swift, Python against its sqlite3 module (insert against the execute
/// loop, fetch against fetchall). A ratio whose rows did not both run is left out.
func anchorRatios(_ outcomes: [Outcome<InsertFetch>]) -> [String] {
    func medians(_ id: String) -> (insert: Double, fetch: Double)? {
        guard case .measured(let m)? = outcomes.first(where: { $0.spec.id == id })?.state else { return nil }
        return (m.insert.median, m.fetch.median)
    }
    func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
    var lines: [String] = []
    if let swift = medians("og-swift"), let grdb = medians("grdb") {
        lines.append("  ObjectGraph Swift ÷ GRDB: fetch + read \(ratio(swift.fetch, grdb.fetch))")
    }
    if let c = medians("og-c"), let swift = medians("og-swift") {
        lines.append("  ObjectGraph C ÷ Swift: insert \(ratio(c.insert, swift.insert)), fetch + read \(ratio(c.fetch, swift.fetch))")
    }
    if let python = medians("og-python") {
        var parts: [String] = []
        if let loop = medians("python-sqlite3-loop") { parts.append("insert \(ratio(python.insert, loop.insert)) its execute loop") }
        if let module = medians("python-sqlite3") { parts.append("fetch + read \(ratio(python.fetch, module.fetch)) its fetchall") }
        if !parts.isEmpty { lines.append("  ObjectGraph Python ÷ sqlite3 module: " + parts.joined(separator: ", ")) }
    }
    return lines.isEmpty ? [] : [""] + lines
}

/// A table of main's two phases (main, postgres): `header`, one row per contender with the
/// ratios to the medians of the row `referenceID` (none when it did not run), `footer`,
/// then the contenders' notes and any problems.
func insertFetchTable(_ outcomes: [Outcome<InsertFetch>], options: Options, referenceID: String,
                      header: [String], footer: [String] = []) -> String {
    let reference = outcomes.first { $0.spec.id == referenceID }.flatMap { outcome -> (insert: Double, fetch: Double)? in
        guard case .measured(let m) = outcome.state else { return nil }
        return (m.insert.median, m.fetch.median)
    }
    let titleWidth = max(26, (outcomes.map(\.spec.title.count).max() ?? 0) + 2)
    var lines = header + [
        "",
        pad("", titleWidth) + pad("  insert", 36) + "  fetch + read",
        pad("contender", titleWidth)
            + "  median      min      max    ×raw" + "    median      min      max    ×raw" + "   check",
    ]
    lines.append(String(repeating: "-", count: lines.last!.count))
    for outcome in outcomes {
        let title = pad(outcome.spec.title, titleWidth)
        if let row = unmeasuredRow(outcome, title: title) {
            lines.append(row)
        } else if case .measured(let m) = outcome.state {
            lines.append(title + columns(m.insert, reference?.insert) + "  " + columns(m.fetch, reference?.fetch)
                         + "   " + (outcome.problems.isEmpty ? "ok" : "FAILED"))
        }
    }
    lines += footer
    lines += tableNotes(outcomes)
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
