/// The workloads `--workload` chooses from. `main` is the one of DESIGN.md §9 (insert and
/// fetch + read); the others each time one phase (PhaseContender), except `scaling`, which
/// runs main's insert and fetch at several sizes, and `history`, whose contenders time
/// reading persistent history as their phase and, the ObjectGraph ones, main's insert with
/// history tracking off and on beside it (HistoryInserting), and `postgres`, main's insert
/// and fetch + read on a PostgreSQL server (PostgresWorkload.swift).
enum WorkloadKind: String, CaseIterable, Sendable {
    case main, update, indexed, traversal
    case batchInsert = "batch-insert", batchUpdate = "batch-update", batchDelete = "batch-delete", upsert
    case history
    case postgres
    case scaling

    /// The workloads with one timed phase.
    static let phases: [WorkloadKind] = [.update, .indexed, .traversal, .batchInsert, .batchUpdate, .batchDelete, .upsert, .history]

    /// The workloads whose store the runner checks after the contender exits: the report
    /// names it (StoreCheck.swift). history's read store is not checked (its reads are);
    /// its insert stores are, by HistoryChecks.swift.
    var checksStore: Bool {
        switch self {
        case .update, .batchInsert, .batchUpdate, .batchDelete, .upsert: true
        case .main, .indexed, .traversal, .history, .postgres, .scaling: false
        }
    }

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
    /// batch-insert and upsert: the rows one run inserts.
    var batchInsertRows = 50_000
    /// batch-update, batch-delete and upsert: the rows in the store.
    var batchRows = 200_000
    /// history: the changes a read finds after its token.
    var historyChanges = 100_000

    /// The sizes of `--quick`.
    static let quick = Sizes(updateRows: 20_000, indexedRows: 100_000, authors: 1_000, scaling: [1_000, 10_000, 50_000],
                             batchInsertRows: 5_000, batchRows: 20_000, historyChanges: 10_000)

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

    /// batch-update: the value every row's a9 is set to, and the predicate's bound
    /// (`a0 >= 0`: every row).
    static let batchUpdateValue: Int64 = -1
    static let batchLowerBound: Int64 = 0

    /// upsert: the items a run inserts, half of them (the first) already in the store:
    /// with the defaults 175,000 ..< 225,000.
    var upsertRange: Range<Int> {
        let start = max(0, batchRows - batchInsertRows / 2)
        return start..<(start + batchInsertRows)
    }

    /// upsert: the rows in the store after a run.
    var upsertRowsAfter: Int { max(batchRows, upsertRange.upperBound) }

    /// history: the items of each saved transaction of the read store. The first one's
    /// token is kept; `historyChanges` items are saved after it, in transactions of this many.
    static let historyTransaction = 1_000

    /// history: what the primary keys of the changed objects a read finds add up to. The
    /// first transaction's items have the keys 1 … 1,000, the items after it the
    /// `historyChanges` keys that follow.
    var historyKeySum: Int64 {
        let (n, first) = (Int64(historyChanges), Int64(Sizes.historyTransaction + 1))
        return n * first + n * (n - 1) / 2
    }
}
