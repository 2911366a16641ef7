/// `explain`: how a fetch would be answered, store by store, without registering objects.
public struct FetchExplanation: Sendable, CustomStringConvertible {
    /// The store's path and type.
    public let storePath: String
    public let storeType: String
    public let store: StoreFetchExplanation
    /// Whether the context lays its unsaved changes over the store's rows (in memory).
    public let mergesPendingChanges: Bool

    /// The explanation as text, one `key: value` line each.
    public var description: String {
        var lines = ["store: \(storePath) (\(storeType))"]
        if let sql = store.sql { lines.append("sql: \(sql)") }
        if !store.bindings.isEmpty { lines.append("bindings: " + store.bindings.map(\.debugText).joined(separator: ", ")) }
        for step in store.queryPlan { lines.append("plan: \(step)") }
        lines.append("filtered in memory: \(store.filteredInMemory ? "yes" : "no")")
        lines.append("pending changes merged in memory: \(mergesPendingChanges ? "yes" : "no")")
        return lines.joined(separator: "\n")
    }
}

extension AttributeValue {
    /// A bound value as a log or explanation shows it.
    var debugText: String {
        switch self {
        case .null: "NULL"
        case .string(let s): "'\(s)'"
        case .integer(let n): "\(n)"
        case .double(let d): "\(d)"
        default: "\(self)"
        }
    }
}

extension ManagedObjectContext {
    /// How `request` would be fetched: for each store that answers it, the SQL, its bound
    /// values, SQLite's plan, and what is done in memory. A child context explains its
    /// root's fetch (its parents' and its own changes are laid over it in memory).
    public func explain(_ request: FetchRequest) throws(ObjectGraphError) -> [FetchExplanation] {
        try checkThread()
        if let parent = parentContext {
            let inner = try parent.withAccessFromChild { () throws(ObjectGraphError) in try parent.explain(request) }
            return inner.map { FetchExplanation(storePath: $0.storePath, storeType: $0.storeType, store: $0.store, mergesPendingChanges: true) }
        }
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        let pending = request.includesPendingChanges && hasChanges
        return try persistentStoreCoordinator.fetchStores(request, entity: entity).map { record throws(ObjectGraphError) in
            let store = try persistentStoreCoordinator.explainFetch(request, entity: entity, from: record)
            return FetchExplanation(storePath: record.store.path, storeType: record.store.type, store: store, mergesPendingChanges: pending)
        }
    }
}
