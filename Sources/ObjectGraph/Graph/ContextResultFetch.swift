/// Fetches by result type (§2.13 rule 8): objects, object IDs, dictionaries or a count.
///
/// - Object IDs include pending changes as object fetches do (new objects' temporary IDs,
///   changed objects matched on their values in memory, deleted objects left out), but no
///   object is registered for a row that is not in memory already.
/// - Dictionaries are computed by the store (in SQL on the SQLite store) and behave as
///   `includesPendingChanges = false`: unsaved changes are not reflected, and nothing is
///   registered.
/// - A count is `count(for:)`, which always equals the number of results fetching gives.
extension ManagedObjectContext {
    /// Runs `request` and returns what its `resultType` asks for.
    public func execute(_ request: FetchRequest) throws(ObjectGraphError) -> FetchResult {
        switch request.resultType {
        case .managedObject: return .objects(try fetch(request))
        case .managedObjectID: return .objectIDs(try fetchObjectIDs(request))
        case .dictionary: return .dictionaries(try fetchDictionaries(request))
        case .count: return .count(try count(for: request))
        }
    }

    /// The IDs of the objects `request` matches, whatever its result type.
    public func fetchObjectIDs(_ request: FetchRequest) throws(ObjectGraphError) -> [ManagedObjectID] {
        let start = SQLDebug.summaryStart()
        var rows = 0
        let ids = try fetchObjectIDs(request, rows: &rows)
        if let start { SQLDebug.logFetch(since: start, rows: rows, results: ids.count, noun: "object ID", entity: request.entityName) }
        return ids
    }

    private func fetchObjectIDs(_ request: FetchRequest, rows: inout Int) throws(ObjectGraphError) -> [ManagedObjectID] {
        try checkThread()
        try Self.checkGrouping(request, as: .managedObjectID)
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        if parentContext != nil {
            // A child sees its parent's unsaved objects: the IDs of what fetching gives.
            return try fetch(request.withResultType(.managedObject), rows: &rows).map(\.objectID)
        }
        return try RequestingContext.with(self) { () throws(ObjectGraphError) in try storeObjectIDs(request, entity, rows: &rows) }
    }

    /// The object IDs of a root context's fetch: the store's, with pending changes laid over them.
    private func storeObjectIDs(_ request: FetchRequest, _ entity: EntityDescription, rows: inout Int) throws(ObjectGraphError) -> [ManagedObjectID] {
        let pending = request.includesPendingChanges && hasPendingChanges(of: entity)
        let stores = try persistentStoreCoordinator.fetchStores(request, entity: entity)
        if !pending, stores.count == 1,
            let ids = try persistentStoreCoordinator.fetchIdentities(MemoryAggregation.rowRequest(request, window: true), entity: entity, from: stores[0])
        {
            rows += ids.count
            let storeIdentifier = stores[0].ref.identifier
            return ids.map { ManagedObjectID(entity: $0.entity, primaryKey: $0.primaryKey, storeIdentifier: storeIdentifier) }
        }
        return try mergedObjectIDs(request, entity, stores, pending: pending, rows: &rows)
    }

    /// One dictionary per result row (or group) over the request's `propertiesToFetch`,
    /// whatever its result type. The store's committed state only: pending changes are not
    /// reflected (save first to see them).
    public func fetchDictionaries(_ request: FetchRequest) throws(ObjectGraphError) -> [ResultDictionary] {
        let start = SQLDebug.summaryStart()
        let dictionaries = try storeDictionaries(request)
        if let start {
            // One dictionary per row the store returned (a group is one row).
            SQLDebug.logFetch(since: start, rows: dictionaries.count, results: dictionaries.count, noun: "dictionary", entity: request.entityName)
        }
        return dictionaries
    }

    /// `fetchDictionaries(_:)` without its summary line (counting is not a fetch).
    func storeDictionaries(_ request: FetchRequest) throws(ObjectGraphError) -> [ResultDictionary] {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        let asDictionaries = request.resultType == .dictionary ? request : request.withResultType(.dictionary)
        try FetchValidation.check(asDictionaries, entity)
        let plan = try DictionaryPlan.make(asDictionaries, entity)
        let keys = plan.columns.prefix(plan.visibleCount).map(\.name)
        let record = try persistentStoreCoordinator.dictionaryStore(asDictionaries, entity: entity)
        let rows = try RequestingContext.with(self) { () throws(ObjectGraphError) in
            try persistentStoreCoordinator.fetchDictionaries(asDictionaries, entity: entity, from: record)
        }
        let storeIdentifier = record.ref.identifier
        // Transformable columns hold stored bytes: they are given as their values.
        var transformables: [Int: AttributeDescription] = [:]
        for (i, c) in plan.columns.prefix(plan.visibleCount).enumerated() {
            if case .attribute(_, let a) = c.source, a.attributeType == .transformable { transformables[i] = a }
        }
        var out: [ResultDictionary] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            var values: [FetchedValue] = []
            values.reserveCapacity(row.count)
            for (i, v) in row.enumerated() {
                switch v {
                case .value(.data(let bytes)) where transformables[i] != nil:
                    let t = try ValueTransformers.decode(bytes, for: transformables[i]!)
                    values.append(.value(t == .null ? .null : .transformable(t)))
                case .value(let a): values.append(.value(a))
                case .row(let e, let k): values.append(.objectID(ManagedObjectID(entity: e, primaryKey: k, storeIdentifier: storeIdentifier)))
                }
            }
            out.append(ResultDictionary(keys: keys, values: values))
        }
        return out
    }

    /// The keys of the dictionaries `request` gives (also when it matches nothing), in order.
    public func dictionaryKeys(for request: FetchRequest) throws(ObjectGraphError) -> [String] {
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        let plan = try DictionaryPlan.make(request.resultType == .dictionary ? request : request.withResultType(.dictionary), entity)
        return plan.columns.prefix(plan.visibleCount).map(\.name)
    }

    /// Grouping and having belong to dictionary results.
    static func checkGrouping(_ request: FetchRequest, as type: FetchResultType) throws(ObjectGraphError) {
        guard type != .dictionary else { return }
        if !(request.propertiesToGroupBy ?? []).isEmpty {
            throw .invalidArgument("propertiesToGroupBy needs the dictionary result type (the request's is \(type))")
        }
        if request.havingPredicate != nil {
            throw .invalidArgument("havingPredicate needs the dictionary result type (the request's is \(type))")
        }
    }

    /// The IDs of store rows and pending changes merged: rows whose object is in memory
    /// are judged on the object, the others on the stored row; nothing new is registered.
    private func mergedObjectIDs(_ request: FetchRequest, _ entity: EntityDescription, _ stores: [PersistentStoreCoordinator.AttachedStore],
        pending: Bool, rows: inout Int) throws(ObjectGraphError) -> [ManagedObjectID]
    {
        var items: [(reader: any KeyValueReading, id: ManagedObjectID)] = []
        var seen = Set<ObjectIdentifier>()
        var allExact = stores.count == 1
        for record in stores {
            var result = try persistentStoreCoordinator.fetchRows(MemoryAggregation.rowRequest(request, window: false), entity: entity, from: record)
            let source = persistentStoreCoordinator.rowSource(record)
            allExact = allExact && result.isExact
            rows += result.rows.count
            if !result.hasValues {
                // Identities only (an incremental store): the rows are read to be judged and sorted.
                let keys = result.rows.map(\.primaryKey)
                var byKey: [Int64: RowSnapshot] = [:]
                for row in try persistentStoreCoordinator.fetchRows(entity: entity, primaryKeys: keys, in: record.ref) { byKey[row.primaryKey] = row }
                result.rows = keys.compactMap { byKey[$0] }
            }
            for row in result.rows {
                if pending, let o = registeredObject(Self.key(row.entity, row.primaryKey, record.ref)) {
                    if o.isDeleted { continue }
                    if !result.isExact || o.hasChanges, let p = request.predicate, !(try p.evaluate(with: .object(o))) { continue }
                    seen.insert(ObjectIdentifier(o))
                    items.append((o, o.objectID))
                } else {
                    let r = source.reader(row)
                    if !result.isExact, let p = request.predicate, !(try p.evaluate(with: .object(r))) { continue }
                    items.append((r, ManagedObjectID(entity: row.entity, primaryKey: row.primaryKey, storeIdentifier: record.ref.identifier)))
                }
            }
        }
        if pending {
            for o in try pendingMatches(request, entity, notIn: seen) { items.append((o, o.objectID)) }
        }
        if !allExact || pending {
            // New objects sort after stored ones on ties, in the order they were added here.
            let keys = request.sortKeys
            items = try InMemoryFetch.sort(
                items, by: keys,
                values: { (item) throws(ObjectGraphError) in
                    var values: [AttributeValue] = []
                    for k in keys { values.append(try InMemoryFetch.sortValue(k.key, of: item.reader)) }
                    return values
                },
                tie: { item, position in Self.tie(item.id, sequence: position) })
        }
        return InMemoryFetch.window(items.map(\.id), offset: request.fetchOffset, limit: request.fetchLimit)
    }
}

extension FetchRequest {
    /// A copy asking for another result type.
    func withResultType(_ type: FetchResultType) -> FetchRequest {
        let c = copy()
        c.resultType = type
        return c
    }
}

extension ManagedObjectContext {
    /// `fetch(_:)` returns managed objects only; a request for another result type says so.
    static func notObjects(_ request: FetchRequest) -> ObjectGraphError {
        .invalidArgument(
            "fetch(_:) returns managed objects, but the request for '\(request.entityName)' asks for the \(request.resultType) result type: run it with execute(_:) (or fetchObjectIDs(_:), fetchDictionaries(_:), count(for:))")
    }
}
