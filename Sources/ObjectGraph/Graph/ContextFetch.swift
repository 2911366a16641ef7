/// Executing fetch requests over the store and this context's pending changes (§2.13):
/// inserted objects that match are included, changed objects are matched on their
/// in-memory values, deleted objects are excluded, and objects already registered are
/// returned as they are. Sort, offset and limit apply to the merged result.
extension ManagedObjectContext {
    public func fetch(_ request: FetchRequest) throws(ObjectGraphError) -> [ManagedObject] {
        let start = SQLDebug.summaryStart()
        var rows = 0
        let objects = try fetch(request, rows: &rows)
        if let start { SQLDebug.logFetch(since: start, rows: rows, results: objects.count, entity: request.entityName) }
        return objects
    }

    /// `fetch(_:)` without its summary line, adding the rows read from the stores to `rows`
    /// (a parent answering its child's fetch: the child logs it).
    func fetch(_ request: FetchRequest, rows: inout Int) throws(ObjectGraphError) -> [ManagedObject] {
        try checkThread()
        // Other result types are run by execute(_:), fetchObjectIDs(_:) and fetchDictionaries(_:).
        guard request.resultType == .managedObject else { throw Self.notObjects(request) }
        try Self.checkGrouping(request, as: .managedObject)
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        return try RequestingContext.with(self) { () throws(ObjectGraphError) -> [ManagedObject] in
            let objects = try fetchObjects(request, entity, rows: &rows)
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
            return objects
        }
    }

    private func fetchObjects(_ request: FetchRequest, _ entity: EntityDescription, rows: inout Int) throws(ObjectGraphError) -> [ManagedObject] {
        if let parent = parentContext {
            // A child: the parent answers (its unsaved changes included); ours go over it.
            let parts = [(objects: try childObjects(try parent.fetchForChild(request, rows: &rows)), isExact: true)]
            return try mergePending(request, entity, parts, pending: request.includesPendingChanges)
        }
        let pending = request.includesPendingChanges && hasPendingChanges(of: entity)
        let stores = try persistentStoreCoordinator.fetchStores(request, entity: entity)
        // With pending changes or several stores the window applies to the merged result, not the store's rows.
        let storeRequest = pending || stores.count > 1 ? request.withoutWindow() : request
        var parts = try storeRows(storeRequest, entity, stores)
        var fetched: [(objects: [ManagedObject], isExact: Bool)] = []
        for i in parts.indices {
            let (store, hasValues, isExact) = (parts[i].store, parts[i].result.hasValues, parts[i].result.isExact)
            // Taken out of `parts`, so that `objects(for:)` holds the only reference and can move each row.
            let taken = parts[i].result.rows
            parts[i].result.rows = []
            let count = taken.count
            rows += count
            // Rows without values (an incremental store's) asked for loaded: read in one batch.
            let loads = !hasValues && !request.returnsObjectsAsFaults
            let made = objects(
                for: consume taken, in: store, asFaults: request.returnsObjectsAsFaults,
                batchSize: loads && request.fetchBatchSize == 0 ? count : request.fetchBatchSize, hasValues: hasValues,
                refreshing: request.shouldRefreshRefetchedObjects)
            if loads { for o in made where o.isFault { try o.fireFault(self) } }
            fetched.append((made, isExact))
        }
        if !pending, fetched.count == 1, fetched[0].isExact { return fetched[0].objects }
        return try mergePending(request, entity, fetched, pending: pending)
    }

    /// Lays this context's pending changes over fetched objects, then sorts and windows.
    private func mergePending(_ request: FetchRequest, _ entity: EntityDescription, _ fetched: [(objects: [ManagedObject], isExact: Bool)],
                              pending: Bool) throws(ObjectGraphError) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(fetched.reduce(0) { $0 + $1.objects.count } + inserted.count)
        var seen = Set<ObjectIdentifier>()
        for (part, isExact) in fetched {
            for o in part {
                if pending && o.isDeleted { continue }
                // The store matched committed values; a changed object is matched on its own.
                if (!isExact || (pending && o.hasChanges)), let p = request.predicate, !(try matches(o, p)) { continue }
                seen.insert(ObjectIdentifier(o))
                objects.append(o)
            }
        }
        if pending { objects += try pendingMatches(request, entity, notIn: seen) }
        objects = try sortInMemory(objects, request.sortKeys)
        return InMemoryFetch.window(objects, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// How many objects `fetch` would return; counted in SQL when nothing is pending.
    public func count(for request: FetchRequest) throws(ObjectGraphError) -> Int {
        try checkThread()
        // The number of results execute(_:) gives: dictionaries (rows or groups) or objects.
        if request.resultType == .dictionary { return try storeDictionaries(request).count }
        try Self.checkGrouping(request, as: request.resultType)
        if request.resultType != .managedObject { return try count(for: request.withResultType(.managedObject)) }
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        if parentContext == nil, !(request.includesPendingChanges && hasPendingChanges(of: entity)),
            let n = try RequestingContext.with(self, { () throws(ObjectGraphError) in try storeCount(request, entity) })
        {
            return n
        }
        // Counted over what fetching gives, without its prefetching.
        var rows = 0
        return try RequestingContext.with(self) { () throws(ObjectGraphError) in try fetchObjects(request, entity, rows: &rows).count }
    }

    private func matches(_ o: ManagedObject, _ p: ObjectPredicate) throws(ObjectGraphError) -> Bool {
        try p.evaluate(with: .object(o))
    }

    /// The inserted and changed objects of `request`'s entity that match it and are not
    /// among `fetched` (objects the store did not return: new, or changed to match), in
    /// the order they were inserted or changed. Every path that lays pending changes over
    /// a fetch adds these.
    func pendingMatches(_ request: FetchRequest, _ entity: EntityDescription, notIn fetched: Set<ObjectIdentifier>) throws(ObjectGraphError) -> [ManagedObject] {
        var seen = fetched
        var out: [ManagedObject] = []
        for list in [inserted, updated] {
            for o in list.objects where !seen.contains(ObjectIdentifier(o)) {
                guard request.includesSubentities ? o.entity.isKind(of: entity) : o.entity === entity else { continue }
                if let p = request.predicate, !(try matches(o, p)) { continue }
                seen.insert(ObjectIdentifier(o))
                out.append(o)
            }
        }
        return out
    }

    /// Whether an unsaved insert, update or delete touches the hierarchy of `entity`: only
    /// then do pending changes have to be laid over what the store returns.
    func hasPendingChanges(of entity: EntityDescription) -> Bool {
        let root = entity.rootEntity
        for list in [inserted, updated, deleted] where !list.isEmpty {
            if list.objects.contains(where: { $0.entity.rootEntity === root }) { return true }
        }
        return false
    }

    /// Sorts objects as the SQLite store does (`InMemoryFetch`): ties by primary key,
    /// objects not saved yet (temporary IDs, here or in a parent) last in the order given.
    func sortInMemory(_ objects: [ManagedObject], _ keys: [SortKey]) throws(ObjectGraphError) -> [ManagedObject] {
        try InMemoryFetch.sort(
            objects, by: keys,
            values: { (o) throws(ObjectGraphError) in try sortValues(of: o, keys) },
            tie: { o, position in Self.tie(o.objectID, sequence: position) })
    }

    /// The values `keys` sort `o` by.
    func sortValues(of o: ManagedObject, _ keys: [SortKey]) throws(ObjectGraphError) -> [AttributeValue] {
        var values: [AttributeValue] = []
        for k in keys {
            if let slot = o.entity.slot(forKey: k.key) {
                // A fault whose row is here is sorted on it without firing.
                if let loaded = o.loadedValue(slot) { values.append(loaded) } else { values.append(try o.attribute(at: slot, key: k.key, self)) }
            } else {
                values.append(try InMemoryFetch.sortValue(k.key, of: o))
            }
        }
        return values
    }

    /// Where an object's ID goes among equals (`InMemoryFetch.Tie`).
    static func tie(_ id: ManagedObjectID, sequence: Int) -> InMemoryFetch.Tie {
        id.isTemporaryID ? .new(sequence: sequence) : .stored(primaryKey: id.primaryKey, store: id.storeIdentifier ?? "")
    }
}
