/// The coordinator's side of object-ID and dictionary fetches: each runs on one store under
/// the coordinator's lock, like every other store operation. Dictionaries are computed by
/// one store; an entity several stores hold needs `affectedStores` naming one of them.
extension PersistentStoreCoordinator {
    /// The store a dictionary fetch reads: the only one holding the entity among the request's stores.
    func dictionaryStore(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> AttachedStore {
        let stores = try fetchStores(request, entity: entity)
        guard stores.count == 1 else {
            throw .invalidArgument(
                "dictionary results are computed by one store, but \(stores.count) stores hold entity '\(entity.name)': set the request's affectedStores to one of them")
        }
        return stores[0]
    }

    func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription, from record: AttachedStore) throws(ObjectGraphError) -> [[StoreValue]] {
        try lock.withLock { () throws(ObjectGraphError) in try record.store.fetchDictionaries(request, entity: entity) }
    }

    func fetchIdentities(_ request: FetchRequest, entity: EntityDescription, from record: AttachedStore) throws(ObjectGraphError)
        -> [(entity: EntityDescription, primaryKey: Int64)]?
    {
        try lock.withLock { () throws(ObjectGraphError) in try record.store.fetchIdentities(request, entity: entity) }
    }

    /// Reads related rows of one store for in-memory evaluation without a context, each
    /// under the lock. The source keeps the coordinator (it holds nothing back), so its
    /// readers work for as long as anyone keeps them.
    func rowSource(_ record: AttachedStore) -> RowSource {
        RowSource(
            load: { [self] (e, k) throws(ObjectGraphError) in
                try lock.withLock { () throws(ObjectGraphError) in try record.store.fetchRow(entity: e, primaryKey: k) }
            },
            members: { [self] (row, r) throws(ObjectGraphError) in
                try lock.withLock { () throws(ObjectGraphError) in try record.store.fetchMembers(of: row.primaryKey, through: r) }
            }, storeIdentifier: record.store.identifier)
    }
}
