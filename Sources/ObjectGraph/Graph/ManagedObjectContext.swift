import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A scratch pad of managed objects over a coordinator: it uniques objects (one object per
/// ID), tracks inserts, updates and deletes, and saves them in one transaction. A context
/// belongs to the thread that created it; a call from another thread is an error.
public final class ManagedObjectContext {
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    private let ownerThread: pthread_t

    /// Objects with permanent IDs, by (hierarchy root, primary key).
    var registered: [ObjectKey: ManagedObject] = [:]
    var inserted = ObjectList()
    var updated = ObjectList()
    var deleted = ObjectList()

    struct ObjectKey: Hashable {
        let root: ObjectIdentifier
        let primaryKey: Int64
    }

    public init(coordinator: PersistentStoreCoordinator) {
        self.persistentStoreCoordinator = coordinator
        self.ownerThread = pthread_self()
    }

    @inline(__always)
    /// Fails with `wrongThread` when called off the thread that owns the context.
    public func checkThread() throws(ObjectGraphError) {
        if pthread_equal(ownerThread, pthread_self()) == 0 { throw .wrongThread("a managed object context") }
    }

    static func key(_ entity: EntityDescription, _ pk: Int64) -> ObjectKey {
        ObjectKey(root: ObjectIdentifier(entity.rootEntity), primaryKey: pk)
    }

    // MARK: Pending changes

    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
    public var insertedObjects: [ManagedObject] { inserted.objects }
    public var updatedObjects: [ManagedObject] { updated.objects }
    public var deletedObjects: [ManagedObject] { deleted.objects }
    public var registeredObjects: [ManagedObject] { Array(registered.values) + inserted.objects }

    func didChange(_ object: ManagedObject) {
        if !object.isInserted && !object.isDeleted { updated.insert(object) }
    }

    // MARK: Inserting and looking up

    /// Inserts a new object of `entityName` with its attributes' default values.
    public func insertObject(entityName: String) throws(ObjectGraphError) -> ManagedObject {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: entityName)
        guard !entity.isAbstract else {
            var e = ObjectGraphError.unknownEntity(entity.name)
            e.message = "cannot insert an object of the abstract entity '\(entity.name)'"
            throw e
        }
        let object = ManagedObject(entity: entity, id: ManagedObjectID(temporaryFor: entity), context: self, snapshot: nil)
        object.isInserted = true
        object.current = entity.layout.defaults
        inserted.insert(object)
        return object
    }

    /// The registered object for a row, or a new fault for it (uniquing: one object per ID).
    func object(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> ManagedObject {
        let key = Self.key(entity, primaryKey)
        if let existing = registered[key] { return existing }
        let store = try persistentStoreCoordinator.store(for: entity)
        let id = ManagedObjectID(entity: entity, primaryKey: primaryKey, storeIdentifier: store.identifier)
        let object = ManagedObject(entity: entity, id: id, context: self, snapshot: nil)
        // A destination with subentities is loaded now, so the object has its concrete entity.
        if !entity.subentities.isEmpty { try object.fireFault(self) }
        registered[key] = object
        return object
    }

    /// The registered object for a fetched row; a fault is filled, a loaded object is kept as it is.
    func object(for row: RowSnapshot, storeIdentifier: String) -> ManagedObject {
        let key = Self.key(row.entity, row.primaryKey)
        if let existing = registered[key] {
            if existing.isFault { existing.snapshot = row }
            return existing
        }
        let id = ManagedObjectID(entity: row.entity, primaryKey: row.primaryKey, storeIdentifier: storeIdentifier)
        let object = ManagedObject(entity: row.entity, id: id, context: self, snapshot: row)
        registered[key] = object
        return object
    }

    /// The object for `id`: the registered one, or a fault (error 133000 when it fires for a row that is gone).
    public func object(with id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        try checkThread()
        if id.isTemporaryID {
            if let o = inserted.objects.first(where: { $0.objectID == id }) { return o }
            throw ObjectGraphError(code: ErrorCode.referentialIntegrity, message: "no object with the temporary ID \(id) in this context")
        }
        return try object(entity: id.entity, primaryKey: id.primaryKey)
    }

    /// The objects whose to-one `inverse` points at `owner`: the store's rows, then this
    /// context's pending changes (objects moved in or out, deleted objects left out).
    func objects(pointingAt owner: ManagedObject, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [ManagedObject] {
        var result: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        let storeIdentifier = owner.objectID.storeIdentifier ?? ""
        let rows = owner.isInserted ? [] : try persistentStoreCoordinator.fetchRows(pointingAt: owner.objectID, through: inverse)
        for row in rows {
            let o = object(for: row, storeIdentifier: storeIdentifier)
            if o.isDeleted { continue }
            if let s = o.state(inverse.slot), s.target !== owner { continue }
            seen.insert(ObjectIdentifier(o))
            result.append(o)
        }
        for list in [inserted, updated] {
            for o in list.objects where !seen.contains(ObjectIdentifier(o)) && o.entity.isKind(of: inverse.entity!) {
                if let s = o.state(inverse.slot), s.target === owner {
                    seen.insert(ObjectIdentifier(o))
                    result.append(o)
                }
            }
        }
        return result
    }
}
