/// The workloads `--workload` chooses from. `main` is the one of DESIGN.md §9 (insert and
/// fetch + read); the others each time one phase (PhaseContender), except `scaling`, which
/// runs main's insert and fetch at several sizes.
enum WorkloadKind: String, CaseIterable, Sendable {
    case main, update, indexed, traversal, scaling

    /// The workloads with one timed phase.
    static let phases: [WorkloadKind] = [.update, .indexed, .traversal]

    /// `main`, `update,indexed`, or `all` (every workload, in the order above).
    static func parse(_ text: String) throws -> [WorkloadKind] {
        var chosen: [WorkloadKind] = []
        for name in text.split(separator: ",").map(String.init) {
            if name == "all" { chosen += allCases; continue }
            guard let kind = WorkloadKind(rawValue: name) else {
                throw BenchError("unknown workload '\(name)'; known: \(allCases.map(\.rawValue).joined(separator: ", ")), all")
            }
            chosen.append(kind)
        }
        return allCases.filter(chosen.contains)
    }
}

/// The sizes of the workloads other than main, and what each one must find.
struct Sizes: Sendable {
    var updateRows = 200_000
    var updatePercent = 10
    var indexedRows = 1_000_000
    var indexedPercent = 1
    var authors = 10_000
    var booksPerAuthor = 20
    var scaling = [10_000, 100_000, 1_000_000]

    /// The sizes of `--quick`.
    static let quick = Sizes(updateRows: 20_000, indexedRows: 100_000, authors: 1_000, scaling: [1_000, 10_000, 50_000])

    /// update: the objects changed, those with `i < updateCount` (`a0 < updateCount * 10`).
    var updateCount: Int { max(1, updateRows * updatePercent / 100) }

    /// indexed: the objects `start ..< start + count` in the middle of the store, found by
    /// `a0 >= start * 10 AND a0 < (start + count) * 10`.
    var indexedRange: Range<Int> {
        let count = max(1, indexedRows * indexedPercent / 100)
        let start = (indexedRows - count) / 2
        return start..<(start + count)
    }

    var books: Int { authors * booksPerAuthor }
}
