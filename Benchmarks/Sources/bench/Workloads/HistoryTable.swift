import Foundation

/// The printed result of history: what it does, then two tables. The insert table has the
/// contenders that time main's insert with history tracking off and on; `×off` is the
/// median with history over the median without, both of the same contender in the same
/// process. The read table has every contender; `×raw` is the median over raw SQLite's
/// query, and Python's sqlite3 module running that query is the Python binding's reference
/// (the ratio under the table).
func renderHistoryTables(_ outcomes: [PhaseOutcome], options: Options) -> String {
    let s = options.sizes
    let reference = outcomes.first { $0.spec.id == "raw-sqlite" }.flatMap { outcome -> Double? in
        guard case .measured(let measured) = outcome.state else { return nil }
        return measured.run.median
    }
    let titleWidth = max(26, (outcomes.map(\.spec.title.count).max() ?? 0) + 2)
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"
    func check(_ outcome: PhaseOutcome) -> String { outcome.problems.isEmpty ? "ok" : "FAILED" }

    var lines = ["ObjectGraph benchmark, workload history: " + describe(.history, s)]
    lines += timedPart(.history).map { "  " + $0 }
    lines += [
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender, \(warmup); each contender in a process of its own",
        "  times in ms",
        "",
        pad("", titleWidth) + pad("  insert \(grouped(options.n)), history off", 27) + "  insert \(grouped(options.n)), history on",
        pad("contender", titleWidth) + "  median      min      max" + "    median      min      max    ×off   check",
    ]
    lines.append(String(repeating: "-", count: lines.last!.count))
    for outcome in outcomes where historyInsertContenders.contains(outcome.spec.id) {
        let title = pad(outcome.spec.title, titleWidth)
        if let row = unmeasuredRow(outcome, title: title) {
            lines.append(row)
        } else if case .measured(let measured) = outcome.state {
            if let (off, on) = measured.inserts {
                lines.append(title + String(format: "%8.1f %8.1f %8.1f", off.median * 1e3, off.min * 1e3, off.max * 1e3)
                             + "  " + columns(on, off.median) + "   " + check(outcome))
            } else {
                lines.append(title + "FAILED: no insert timings")
            }
        }
    }
    lines += [
        "",
        pad("", titleWidth) + "  read \(grouped(s.historyChanges)) changes after a token",
        pad("contender", titleWidth) + "  median      min      max    ×raw   check",
    ]
    lines.append(String(repeating: "-", count: lines.last!.count))
    for outcome in outcomes {
        let title = pad(outcome.spec.title, titleWidth)
        if let row = unmeasuredRow(outcome, title: title) {
            lines.append(row)
        } else if case .measured(let measured) = outcome.state {
            lines.append(title + columns(measured.run, reference) + "   " + check(outcome))
        }
    }
    lines += pythonRatio(outcomes)
    lines += tableNotes(outcomes)
    return lines.joined(separator: "\n")
}
