/// Executing fetch requests over the store and this context's pending changes (§2.13):
/// inserted objects that match are included, changed objects are matched on their
/// in-memory values, deleted objects are excluded, and objects already registered are
/// returned as they are. Sort, offset and limit apply to the merged result.
extension ManagedObjectContext {
    public func fetch(_ request: FetchRequest) throws(ObjectGraphError) -> [ManagedObject] {
        try checkThread()
        // Other result types are run by execute(_:), fetchObjectIDs(_:) and fetchDictionaries(_:).
        guard request.resultType == .managedObject else { throw Self.notObjects(request) }
        try Self.checkGrouping(request, as: .managedObject)
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        return try RequestingContext.with(self) { () throws(ObjectGraphError) -> [ManagedObject] in
            let objects = try fetchObjects(request, entity)
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
            return objects
        }
    }

    private func fetchObjects(_ request: FetchRequest, _ entity: EntityDescription) throws(ObjectGraphError) -> [ManagedObject] {
        if let parent = parentContext {
            // A child: the parent answers (its unsaved changes included); ours go over it.
            let parts = [(objects: try childObjects(try parent.fetchForChild(request)), isExact: true)]
            return try mergePending(request, entity, parts, pending: request.includesPendingChanges)
        }
        let pending = request.includesPendingChanges && hasPendingChanges(of: entity)
        let stores = try persistentStoreCoordinator.fetchStores(request, entity: entity)
        // With pending changes or several stores the window applies to the merged result, not the store's rows.
        let storeRequest = pending || stores.count > 1 ? request.withoutWindow() : request
        let parts = try storeRows(storeRequest, entity, stores)
        var fetched: [(objects: [ManagedObject], isExact: Bool)] = []
        for (store, result) in parts {
            // Rows without values (an incremental store's) asked for loaded: read in one batch.
            let loads = !result.hasValues && !request.returnsObjectsAsFaults
            let made = objects(
                for: result.rows, in: store, asFaults: request.returnsObjectsAsFaults,
                batchSize: loads && request.fetchBatchSize == 0 ? result.rows.count : request.fetchBatchSize, hasValues: result.hasValues,
                refreshing: request.shouldRefreshRefetchedObjects)
            if loads { for o in made where o.isFault { try o.fireFault(self) } }
            fetched.append((made, result.isExact))
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
        if pending {
            for list in [inserted, updated] {
                for o in list.objects where !seen.contains(ObjectIdentifier(o)) && isCandidate(o.entity, entity, request) {
                    if let p = request.predicate, !(try matches(o, p)) { continue }
                    seen.insert(ObjectIdentifier(o))
                    objects.append(o)
                }
            }
        }
        try sortInMemory(&objects, request.sortKeys)
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 && objects.count > request.fetchLimit { objects = Array(objects.prefix(request.fetchLimit)) }
        return objects
    }

    /// How many objects `fetch` would return; counted in SQL when nothing is pending.
    public func count(for request: FetchRequest) throws(ObjectGraphError) -> Int {
        try checkThread()
        // The number of results execute(_:) gives: dictionaries (rows or groups) or objects.
        if request.resultType == .dictionary { return try fetchDictionaries(request).count }
        try Self.checkGrouping(request, as: request.resultType)
        if request.resultType != .managedObject { return try count(for: request.withResultType(.managedObject)) }
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        try FetchValidation.check(request, entity)
        if parentContext == nil, !(request.includesPendingChanges && hasPendingChanges(of: entity)),
            let n = try RequestingContext.with(self, { () throws(ObjectGraphError) in try storeCount(request, entity) })
        {
            return n
        }
        return try fetch(request).count
    }

    private func matches(_ o: ManagedObject, _ p: ObjectPredicate) throws(ObjectGraphError) -> Bool {
        try p.evaluate(with: .object(o))
    }

    private func isCandidate(_ candidate: EntityDescription, _ entity: EntityDescription, _ request: FetchRequest) -> Bool {
        request.includesSubentities ? candidate.isKind(of: entity) : candidate === entity
    }

    private func hasPendingChanges(of entity: EntityDescription) -> Bool {
        let root = entity.rootEntity
        for list in [inserted, updated, deleted] where !list.isEmpty {
            if list.objects.contains(where: { $0.entity.rootEntity === root }) { return true }
        }
        return false
    }

    /// Sorts like the SQLite store: nil first, numbers by value, strings by the key's
    /// comparison, ties by primary key, new objects last in insertion order.
    func sortInMemory(_ objects: inout [ManagedObject], _ keys: [SortKey]) throws(ObjectGraphError) {
        var keyed: [(object: ManagedObject, values: [AttributeValue], order: Int)] = []
        keyed.reserveCapacity(objects.count)
        for (i, o) in objects.enumerated() {
            var values: [AttributeValue] = []
            for k in keys {
                let v: AttributeValue
                if let slot = o.entity.slot(forKey: k.key) {
                    // A fault whose row is here is sorted on it without firing.
                    if let loaded = o.loadedValue(slot) { v = loaded } else { v = try o.attribute(at: slot, key: k.key, self) }
                } else if case .scalar(let s) = try PredicateEvaluator.read(k.key, from: .object(o)) {
                    v = s
                } else {
                    v = .null
                }
                values.append(v)
            }
            keyed.append((o, values, o.isInserted ? Int.max - objects.count + i : Int(o.primaryKey)))
        }
        keyed.sort { a, b in
            for (i, k) in keys.enumerated() {
                let c: Int
                if case .string(let x) = a.values[i], case .string(let y) = b.values[i] {
                    c = k.comparison.compare(x, y)
                } else {
                    c = StoreOrder.compare(a.values[i], b.values[i])
                }
                if c != 0 { return k.ascending ? c < 0 : c > 0 }
            }
            return a.order < b.order
        }
        objects = keyed.map(\.object)
    }
}
