/// The coordinator's side of object-ID and dictionary fetches: each runs on the entity's
/// store under the coordinator's lock, like every other store operation.
extension PersistentStoreCoordinator {
    func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.fetchDictionaries(request, entity: entity) }
    }

    func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]? {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.fetchIdentities(request, entity: entity) }
    }

    /// Reads related rows for in-memory evaluation without a context, each under the lock.
    func rowSource() -> RowSource {
        RowSource(
            load: { [unowned self] (e, k) throws(ObjectGraphError) in
                try withStore(for: e) { s throws(ObjectGraphError) in try s.fetchRow(entity: e, primaryKey: k) }
            },
            members: { [unowned self] (row, r) throws(ObjectGraphError) in
                try withStore(for: row.entity) { s throws(ObjectGraphError) in try s.fetchMembers(of: row.primaryKey, through: r) }
            })
    }
}
