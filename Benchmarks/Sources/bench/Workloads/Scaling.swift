/// The scaling workload: main's insert + save and fetch + read, run at each size of
/// `--scaling-sizes` (N = M = the size) by every selected contender, as main runs them.
struct ScalingPoint {
    enum Phase: String, CaseIterable { case insert, fetch }

    let spec: ContenderSpec
    let size: Int
    let outcome: Outcome<InsertFetch>

    func stats(_ phase: Phase) -> Stats? {
        guard case .measured(let m) = outcome.state else { return nil }
        return phase == .insert ? m.insert : m.fetch
    }

    /// Microseconds per object, from the median.
    func perObject(_ phase: Phase) -> Double? { stats(phase).map { $0.median * 1e6 / Double(size) } }
}

enum Scaling {
    static func run(options: Options) -> [ScalingPoint] {
        var points: [ScalingPoint] = []
        for size in options.sizes.scaling {
            var sized = options
            (sized.n, sized.fetchRows) = (size, size)
            for spec in contenders where options.only?.contains(spec.id) ?? true {
                logLine("== scaling \(size): \(spec.title)")
                points.append(ScalingPoint(spec: spec, size: size, outcome: Runner(options: sized).measure(spec)))
            }
        }
        return points
    }

    /// Raw SQLite's point of the same size and phase, the reference of the ratios.
    static func reference(_ points: [ScalingPoint], size: Int, _ phase: ScalingPoint.Phase) -> Double? {
        points.first { $0.spec.id == "raw-sqlite" && $0.size == size }?.stats(phase)?.median
    }

    static func failed(_ points: [ScalingPoint]) -> Bool {
        points.contains { point in
            if case .failed = point.outcome.state { return true }
            return !point.outcome.problems.isEmpty
        }
    }
}
