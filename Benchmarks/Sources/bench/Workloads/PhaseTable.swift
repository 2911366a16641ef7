import Foundation

/// The printed result of a one-phase workload: what it does, one row per contender, then
/// any problems. Ratios are a contender's median over raw SQLite's median.
func renderPhaseTable(_ outcomes: [PhaseOutcome], workload: WorkloadKind, options: Options) -> String {
    if workload == .history { return renderHistoryTables(outcomes, options: options) }
    let reference = outcomes.first { $0.spec.id == "raw-sqlite" }.flatMap { outcome -> Double? in
        guard case .measured(let measured) = outcome.state else { return nil }
        return measured.run.median
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
        } else if case .measured(let measured) = outcome.state {
            lines.append(title + columns(measured.run, reference) + "   " + (outcome.problems.isEmpty ? "ok" : "FAILED"))
        }
    }
    lines += pythonRatio(outcomes)
    lines += tableNotes(outcomes)
    return lines.joined(separator: "\n")
}

/// Where Python's sqlite3 module runs the workload, it is the Python binding's reference:
/// the ratio of the two medians, under the table.
func pythonRatio(_ outcomes: [PhaseOutcome]) -> [String] {
    func median(_ id: String) -> Double? {
        guard case .measured(let measured)? = outcomes.first(where: { $0.spec.id == id })?.state else { return nil }
        return measured.run.median
    }
    guard let binding = median("og-python"), let module = median("python-sqlite3"), module > 0 else { return [] }
    return ["", "  ObjectGraph (Python) / Python sqlite3: \(String(format: "%.2f", binding / module))×"]
}
