import ObjectGraph

/// history (Benchmarks/README.md, "Persistent history"): what its Swift contenders share.
/// The read store is built with ObjectGraph for every contender, raw SQLite included
/// (preparation, not timed), in the same way as the C and Python programs build theirs.
enum HistoryStore {
    /// The store options that turn persistent history on (`NSPersistentHistoryTrackingKey`).
    static let tracking: [String: PropertyListValue] = [StoreOptionKey.historyTracking: .boolean(true)]

    /// The read store at `path`, with history: items 0 ..< 1,000 saved in one transaction,
    /// whose token is returned, then `sizes.historyChanges` more items saved in transactions
    /// of 1,000 (`Sizes.historyTransaction`), the context reset after each save. Item `i` has
    /// main's values; a read after the token finds one insert per item after the first
    /// transaction.
    static func prepare(path: String, sizes: Sizes) throws -> PersistentHistoryToken {
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false), options: tracking)
        let slots = try Workload.attributeNames.map { try stack.slot("Item", $0) }
        let step = Sizes.historyTransaction
        func save(_ items: Range<Int>) throws {
            for i in items {
                let object = try stack.context.insertObject(entityName: "Item")
                for k in 0..<Workload.attributeCount { try object.setValue(.integer(Workload.value(i, k)), atSlot: slots[k]) }
            }
            try stack.context.save()
            try stack.context.reset()
        }
        try save(0..<step)
        guard let token = try stack.coordinator.currentPersistentHistoryToken() else {
            throw BenchError("history: no token after the first save (is history tracking on?)")
        }
        let end = step + sizes.historyChanges
        for first in stride(from: step, to: end, by: step) { try save(first..<min(first + step, end)) }
        return token
    }
}

/// history: a contender that also times main's insert (N objects inserted through a context
/// and saved in one transaction, into a new store) with history tracking off and on. The
/// worker runs both in every run, before the read, each into a new store of its own
/// (`PhaseWorker.swift`).
protocol HistoryInserting {
    /// Creates a store at `path` (history tracking on when `tracking`), then (timed) inserts
    /// `count` objects and saves them.
    func insert(path: String, count: Int, tracking: Bool) throws -> Duration
}

/// What a contender's `prepare` keeps for its runs (the history token), in the one worker
/// process that runs both.
final class Kept<Value>: @unchecked Sendable {
    var value: Value?
}
