/// The faults of one batch of a fetch with a batch size: the first of them to fire loads
/// the rows of all of them in one store read (`fetchBatchSize`, §2.13 rule 7).
final class FaultBatch {
    let entity: EntityDescription
    let store: StoreRef
    let primaryKeys: [Int64]

    init(entity: EntityDescription, store: StoreRef, primaryKeys: [Int64]) {
        self.entity = entity
        self.store = store
        self.primaryKeys = primaryKeys
    }

    /// Fills every member that is still an unloaded fault; each then fires without a store trip.
    func load(_ context: ManagedObjectContext) throws(ObjectGraphError) {
        let rows = try RequestingContext.with(context) { () throws(ObjectGraphError) in
            try context.persistentStoreCoordinator.fetchRows(entity: entity, primaryKeys: primaryKeys, in: store)
        }
        for row in rows {
            guard let o = context.registeredObject(ManagedObjectContext.key(row.entity, row.primaryKey, store)) else { continue }
            o.faultBatch = nil
            if o.isUnloaded {
                o.snapshot = row
                o.rowCached = true
            }
        }
    }
}
