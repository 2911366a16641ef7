import ObjectGraph

/// history, ObjectGraph (Swift). The read: `context.history(after: .token(token))`, and for
/// every change of every transaction its `changeType` and `changedObjectID` (its primary key
/// summed), on the store HistoryStore built, opened again (with history tracking) before each
/// run's timing. The inserts: ObjectGraphSwift's (`insertObject`, `setValue(_:atSlot:)`,
/// `save()`), into a store added with or without `StoreOptionKey.historyTracking`.
struct OGHistory: PhaseContender, HistoryInserting {
    private let token = Kept<PersistentHistoryToken>()

    func prepare(path: String, sizes: Sizes) throws {
        token.value = try HistoryStore.prepare(path: path, sizes: sizes)
    }

    func run(path: String, sizes: Sizes) throws -> PhaseResult {
        guard let token = token.value else { throw BenchError("history: run before prepare") }
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false), options: HistoryStore.tracking)
        // The transactions are returned out of the timed block: releasing them is not timed.
        let run = try timed { () throws -> ([PersistentHistoryTransaction], Int, Int64) in
            let transactions = try stack.context.history(after: .token(token))
            var inserts = 0
            var keys: Int64 = 0
            for transaction in transactions {
                for change in transaction.changes ?? [] {
                    if change.changeType == .insert { inserts += 1 }
                    keys &+= change.changedObjectID.primaryKey
                }
            }
            return (transactions, inserts, keys)
        }
        return PhaseResult(time: run.time, count: run.result.1, sum: run.result.2)
    }

    func insert(path: String, count: Int, tracking: Bool) throws -> Duration {
        let stack = try OGStack(path: path, model: try OGStack.itemModel(indexed: false), options: tracking ? HistoryStore.tracking : [:])
        let slots = try Workload.attributeNames.map { try stack.slot("Item", $0) }
        return try ObjectGraphSwift.timedInsert(stack.context, slots: slots, count: count)
    }
}
