/// The request a save sends an incremental store (`NSSaveChangesRequest`): the objects it
/// inserts, updates and deletes, and those it locks for optimistic locking. A list is nil
/// when it was not given.
public final class SaveChangesRequest {
    public let insertedObjects: [ManagedObject]?
    public let updatedObjects: [ManagedObject]?
    public let deletedObjects: [ManagedObject]?
    public let lockedObjects: [ManagedObject]?

    public init(inserted: [ManagedObject]? = nil, updated: [ManagedObject]? = nil, deleted: [ManagedObject]? = nil,
                locked: [ManagedObject]? = nil) {
        insertedObjects = inserted
        updatedObjects = updated
        deletedObjects = deleted
        lockedObjects = locked
    }
}
