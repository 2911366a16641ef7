import FoundationEssentials

/// Reading and purging persistent history through a context
/// (`NSPersistentHistoryChangeRequest`), and the coordinator's current token.
extension ManagedObjectContext {
    /// The transactions after `point` (exclusive; nil: the whole history), oldest first,
    /// with their changes; filtered by `fetchRequest` when given.
    public func history(after point: HistoryPoint? = nil, fetchRequest: FetchRequest? = nil) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        guard case .transactions(let list) = try execute(HistoryChangeRequest(after: point, fetchRequest: fetchRequest)) else { return [] }
        return list
    }

    /// Deletes the transactions before `point` in every store that keeps history (the
    /// transaction of a token or transaction is kept). Transaction numbers are not reused.
    public func deleteHistory(before point: HistoryPoint) throws(ObjectGraphError) {
        _ = try execute(HistoryChangeRequest.deleteHistory(before: point))
    }

    /// Runs a history request on every store of the coordinator that keeps history.
    /// 140002 for a request with both `after` and `before`, a fetch request with a sort
    /// order or of another entity than `Transaction` or `Change`, or a token none of whose
    /// stores is attached; 134301 for a token whose transaction was purged; 134091 when
    /// no attached store keeps history.
    public func execute(_ request: HistoryChangeRequest) throws(ObjectGraphError) -> HistoryResult {
        try checkThread()
        if request.after != nil && request.before != nil {
            throw .invalidArgument("a history request reads after a point or deletes before one, not both")
        }
        let filter = try HistoryFilter(request.fetchRequest)
        let stores = try historyStores()
        if let before = request.before {
            var deleted = 0
            try persistentStoreCoordinator.lock.withLock { () throws(ObjectGraphError) in
                for store in stores {
                    guard let boundary = try Self.boundary(before, for: store, among: stores, deleting: true) else { continue }
                    deleted += try store.deleteHistory(before: boundary)
                }
            }
            return request.resultType == .count ? .count(deleted) : .status(true)
        }
        let includeChanges = request.resultType != .transactionsOnly || filter.onChanges
        var transactions: [PersistentHistoryTransaction] = []
        try persistentStoreCoordinator.lock.withLock { () throws(ObjectGraphError) in
            for store in stores {
                let boundary = try request.after.flatMap { (p) throws(ObjectGraphError) in try Self.boundary(p, for: store, among: stores, deleting: false) }
                for stored in try store.historyTransactions(after: boundary, includingChanges: includeChanges) {
                    transactions.append(Self.transaction(stored, of: store))
                }
            }
        }
        if stores.count > 1 { transactions.sort { ($0.timestamp, $0.storeIdentifier, $0.transactionNumber) < ($1.timestamp, $1.storeIdentifier, $1.transactionNumber) } }
        transactions = try filter.apply(transactions)
        switch request.resultType {
        case .statusOnly: return .status(true)
        case .count: return .count(filter.onChanges ? transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) } : transactions.count)
        case .objectIDs: return .objectIDs(transactions.flatMap { ($0.changes ?? []).map(\.changedObjectID) })
        case .transactionsOnly: return .transactions(transactions.map(\.header))
        case .changesOnly: return .changes(transactions.flatMap { $0.changes ?? [] })
        case .transactionsAndChanges: return .transactions(transactions)
        }
    }

    /// The attached stores that can keep history; 134091 when there are none.
    private func historyStores() throws(ObjectGraphError) -> [HistoryKeepingStore] {
        let stores = persistentStoreCoordinator.lock.withLock { persistentStoreCoordinator.attached.compactMap { $0.store as? HistoryKeepingStore } }
        guard !stores.isEmpty else {
            throw ObjectGraphError(code: ErrorCode.storeUnsupportedRequestType,
                                   message: "none of the coordinator's stores keeps persistent history (only SQLite stores do)")
        }
        return stores
    }

    /// `point` as a boundary in `store`: nil means the whole history (reading) or nothing
    /// (deleting). A token or transaction that names none of `stores` is 140002.
    private static func boundary(_ point: HistoryPoint, for store: HistoryKeepingStore, among stores: [HistoryKeepingStore],
                                 deleting: Bool) throws(ObjectGraphError) -> HistoryBoundary? {
        let numbers: [String: Int64]
        switch point {
        case .date(let date): return .date(date)
        case .token(let token): numbers = token.transactionNumbers
        case .transaction(let t): numbers = [t.storeIdentifier: t.transactionNumber]
        }
        guard stores.contains(where: { numbers[$0.identifier] != nil }) else {
            let named = numbers.keys.sorted().joined(separator: ", ")
            throw .invalidArgument("the history token names the stores [\(named)], none of which is attached to this coordinator")
        }
        return numbers[store.identifier].map { .transaction($0) }
    }

    private static func transaction(_ stored: StoredHistoryTransaction, of store: HistoryKeepingStore) -> PersistentHistoryTransaction {
        let storeID = store.identifier
        var t = PersistentHistoryTransaction(
            transactionNumber: stored.number, storeIdentifier: storeID, timestamp: stored.timestamp,
            author: stored.authorship.author, contextName: stored.authorship.contextName,
            processID: stored.authorship.processID, bundleID: stored.authorship.bundleID, changes: nil)
        guard let changes = stored.changes else { return t }
        let header = TransactionHeader(t)
        var out: [PersistentHistoryChange] = []
        out.reserveCapacity(changes.count)
        for c in changes {
            guard let entity = c.entity else { continue }
            out.append(PersistentHistoryChange(
                changeID: c.changeID, changeType: c.type,
                changedObjectID: ManagedObjectID(entity: entity, primaryKey: c.primaryKey, storeIdentifier: storeID),
                updatedProperties: c.type == .update ? Set(c.updatedProperties ?? []) : nil,
                tombstone: c.type == .delete ? (c.tombstone ?? [:]) : nil, header: header))
        }
        t.changes = out
        return t
    }
}

extension PersistentStoreCoordinator {
    /// The token of the newest transaction in each of `stores` (all attached stores when
    /// nil) that keeps history; nil when none has a transaction
    /// (`currentPersistentHistoryTokenFromStores:`).
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) throws(ObjectGraphError) -> PersistentHistoryToken? {
        try lock.withLock { () throws(ObjectGraphError) -> PersistentHistoryToken? in
            var numbers: [String: Int64] = [:]
            for record in attached {
                if let stores, !stores.contains(where: { $0 === record.store }) { continue }
                guard let store = record.store as? HistoryKeepingStore, let last = try store.lastHistoryTransactionNumber() else { continue }
                numbers[store.identifier] = last
            }
            return numbers.isEmpty ? nil : PersistentHistoryToken(transactionNumbers: numbers)
        }
    }
}

/// A history fetch request's predicate, applied to transactions or to changes.
private struct HistoryFilter {
    let predicate: ObjectPredicate?
    /// True for a request on `Change`: it filters changes, and counts count them.
    let onChanges: Bool

    init(_ request: FetchRequest?) throws(ObjectGraphError) {
        guard let request else {
            predicate = nil
            onChanges = false
            return
        }
        guard request.sortKeys.isEmpty else {
            throw .invalidArgument("a history fetch request cannot have a sort order: history comes oldest first")
        }
        switch request.entityName {
        case HistoryChangeRequest.transactionEntityName: onChanges = false
        case HistoryChangeRequest.changeEntityName: onChanges = true
        default:
            throw .invalidArgument("a history fetch request is on '\(HistoryChangeRequest.transactionEntityName)' or '\(HistoryChangeRequest.changeEntityName)', not '\(request.entityName)'")
        }
        predicate = request.predicate
    }

    func apply(_ transactions: [PersistentHistoryTransaction]) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        guard let predicate else { return transactions }
        var out: [PersistentHistoryTransaction] = []
        for t in transactions {
            if onChanges {
                var kept: [PersistentHistoryChange] = []
                for c in t.changes ?? [] where try predicate.evaluate(with: .object(HistoryChangeReader(c))) { kept.append(c) }
                guard !kept.isEmpty else { continue }
                var copy = t
                copy.changes = kept
                out.append(copy)
            } else if try predicate.evaluate(with: .object(HistoryTransactionReader(t))) {
                out.append(t)
            }
        }
        return out
    }
}

/// A transaction's keys, for predicates.
private final class HistoryTransactionReader: KeyValueReading {
    let t: PersistentHistoryTransaction
    init(_ t: PersistentHistoryTransaction) { self.t = t }

    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        func text(_ s: String?) -> PredicateValue { s.map { .scalar(.string($0)) } ?? .null }
        switch key {
        case "author": return text(t.author)
        case "bundleID": return text(t.bundleID)
        case "contextName": return text(t.contextName)
        case "processID": return text(t.processID)
        case "storeID": return text(t.storeIdentifier)
        case "timestamp": return .scalar(.date(t.timestamp))
        case "transactionNumber": return .scalar(.integer(t.transactionNumber))
        default: throw .unknownKey(key, entity: HistoryChangeRequest.transactionEntityName)
        }
    }
}

/// A change's keys, for predicates.
private final class HistoryChangeReader: KeyValueReading {
    let c: PersistentHistoryChange
    init(_ c: PersistentHistoryChange) { self.c = c }

    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        switch key {
        case "changeID": return .scalar(.integer(c.changeID))
        case "changeType": return .scalar(.integer(Int64(c.changeType.rawValue)))
        case "changedObjectID": return .object(c.changedObjectID)
        case "entityName": return .scalar(.string(c.changedObjectID.entity.name))
        case "transaction": return .object(HistoryTransactionReader(c.transaction))
        default: throw .unknownKey(key, entity: HistoryChangeRequest.changeEntityName)
        }
    }
}
