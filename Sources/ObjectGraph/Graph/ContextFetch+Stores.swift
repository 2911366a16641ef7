/// The store side of a fetch over several stores: each store that holds the entity is read
/// once, and its rows keep the store they came from (two stores may both have a row 1).
extension ManagedObjectContext {
    /// The rows of each store in `stores`, with the store resolved once per fetch.
    func storeRows(_ request: FetchRequest, _ entity: EntityDescription, _ stores: [PersistentStoreCoordinator.AttachedStore])
        throws(ObjectGraphError) -> [(store: StoreRef, result: StoreFetchResult)]
    {
        var parts: [(store: StoreRef, result: StoreFetchResult)] = []
        parts.reserveCapacity(stores.count)
        for record in stores {
            parts.append((record.ref, try persistentStoreCoordinator.fetchRows(request, entity: entity, from: record)))
        }
        return parts
    }

    /// The count the stores give without loading objects: one store's own count, or the
    /// sum over several when no window applies; nil when it must be counted by fetching.
    func storeCount(_ request: FetchRequest, _ entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        let stores = try persistentStoreCoordinator.fetchStores(request, entity: entity)
        if stores.count == 1 { return try persistentStoreCoordinator.countRows(request, entity: entity, from: stores[0]) }
        if request.fetchLimit > 0 || request.fetchOffset > 0 { return nil }
        var total = 0
        for record in stores {
            guard let n = try persistentStoreCoordinator.countRows(request, entity: entity, from: record) else { return nil }
            total += n
        }
        return total
    }
}
