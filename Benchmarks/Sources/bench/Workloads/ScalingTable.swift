/// The printed result of the scaling workload: per phase, one row per contender with the
/// time per object at each size (µs, from the median) and its ratio to raw SQLite's.
func renderScalingTable(_ points: [ScalingPoint], options: Options) -> String {
    let sizes = options.sizes.scaling
    var specs: [ContenderSpec] = []
    for p in points where !specs.contains(where: { $0.id == p.spec.id }) { specs.append(p.spec) }
    let titleWidth = max(26, (specs.map(\.title.count).max() ?? 0) + 2)
    let warmup = options.warmup == 0 ? "no warm-up" : "after \(options.warmup) warm-up run\(options.warmup == 1 ? "" : "s")"
    var lines = [
        "ObjectGraph benchmark, workload scaling: main's insert + save and fetch + read at \(sizes.map(grouped).joined(separator: ", ")) objects",
        "  \(options.runs) timed run\(options.runs == 1 ? "" : "s") per contender and size, \(warmup)",
        "  µs per object (median time / objects); ×raw = median / raw SQLite's median at that size",
    ]
    for phase in ScalingPoint.Phase.allCases {
        let header = pad(phase == .insert ? "insert + save" : "fetch + read", titleWidth)
            + sizes.map { pad(String(repeating: " ", count: max(0, 17 - grouped($0).count)) + grouped($0), 19) }.joined()
            + "  check"
        lines += ["", header, String(repeating: "-", count: header.count)]
        for spec in specs {
            var row = pad(spec.title, titleWidth)
            var state = "ok"
            for size in sizes {
                guard let point = points.first(where: { $0.spec.id == spec.id && $0.size == size }) else { continue }
                switch point.outcome.state {
                case .measured:
                    let ratio = Scaling.reference(points, size: size, phase).map {
                        String(format: "%7.2f×", point.stats(phase)!.median / $0)
                    } ?? "       —"
                    row += String(format: "%9.3f", point.perObject(phase)!) + ratio + "  "
                    if !point.outcome.problems.isEmpty { state = "FAILED" }
                case .skipped(let why): row += pad("skipped", 19); state = "skipped: \(why)"
                case .failed: row += pad("FAILED", 19); state = "FAILED"
                }
            }
            lines.append(row + state)
        }
    }
    let problems = points.flatMap { p in p.outcome.problems.map { "  \(p.spec.id) at \(p.size): \($0)" } }
        + points.compactMap { p in
            if case .failed(let why) = p.outcome.state { return "  \(p.spec.id) at \(p.size): \(why)" } else { return nil }
        }
    if !problems.isEmpty { lines += ["", "check failures:"] + problems }
    return lines.joined(separator: "\n")
}
