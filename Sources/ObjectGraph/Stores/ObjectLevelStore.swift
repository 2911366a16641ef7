/// A store that answers in terms of objects and identities rather than rows: Core Data's
/// incremental stores, whose hooks are given the context's objects and name objects by
/// reference. A context asks only through this protocol; nothing else about the store's
/// type is known to it. The coordinator counts the attached ones, so contexts without any
/// skip these calls.
public protocol ObjectLevelStore: PersistentStore {
    /// Called by a save (and `obtainPermanentIDs(for:)`) before anything is written, with
    /// the new objects bound for this store that still have temporary IDs. Returns one
    /// permanent ID of this store per object, in order, each of the object's entity.
    func obtainPermanentIDs(for objects: [ManagedObject], context: ManagedObjectContext) throws(ObjectGraphError) -> [ManagedObjectID]

    /// Called exactly once per save of a context this store is attached to (also when the
    /// save changes nothing here), inside the save's transaction, after the other stores'
    /// rows are written: an error rolls every store back and the context keeps its changes.
    func executeSave(_ request: SaveChangesRequest, context: ManagedObjectContext) throws(ObjectGraphError)

    /// The identities of the members of the to-many `relationship` of the row
    /// `primaryKey`, without their values, each with its own (concrete) entity, in order
    /// when it is ordered. The context makes faults of them; `fetchMembers` and
    /// `fetchRows(pointingAt:)` are used only where rows are wanted (prefetching).
    func memberKeys(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]
}
