/// A store that takes part in a save in terms of the context's objects rather than rows:
/// Core Data's incremental stores, whose hooks are given the objects themselves. A saving
/// context asks every attached store whether it is one; nothing else about the store's
/// type is known to it.
public protocol ObjectSavingStore: PersistentStore {
    /// Called by a save (and `obtainPermanentIDs(for:)`) before anything is written, with
    /// the new objects bound for this store that still have temporary IDs. Returns one
    /// permanent ID of this store per object, in order, each of the object's entity.
    func obtainPermanentIDs(for objects: [ManagedObject], context: ManagedObjectContext) throws(ObjectGraphError) -> [ManagedObjectID]

    /// Called exactly once per save of a context this store is attached to (also when the
    /// save changes nothing here), inside the save's transaction, after the other stores'
    /// rows are written: an error rolls every store back and the context keeps its changes.
    func executeSave(_ request: SaveChangesRequest, context: ManagedObjectContext) throws(ObjectGraphError)
}
