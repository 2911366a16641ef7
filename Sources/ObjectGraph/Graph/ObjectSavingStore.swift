/// The part of an `ObjectLevelStore` a save talks to in terms of objects: it names new
/// objects itself and takes each save as one request. A context asks only through this
/// protocol; nothing else about the store's type is known to it.
public protocol ObjectSavingStore: ObjectLevelStore {
    /// Called by a save (and `obtainPermanentIDs(for:)`) before anything is written, with
    /// the new objects bound for this store that still have temporary IDs. Returns one
    /// permanent ID of this store per object, in order, each of the object's entity.
    func obtainPermanentIDs(for objects: [ManagedObject], context: ManagedObjectContext) throws(ObjectGraphError) -> [ManagedObjectID]

    /// Called exactly once per save of a context this store is attached to (also when the
    /// save changes nothing here), inside the save's transaction, after the other stores'
    /// rows are written: an error rolls every store back and the context keeps its changes.
    func executeSave(_ request: SaveChangesRequest, context: ManagedObjectContext) throws(ObjectGraphError)
}
