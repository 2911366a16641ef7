import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A scratch pad of managed objects over a coordinator: it uniques objects (one object per
/// ID), tracks inserts, updates and deletes, and saves them in one transaction.
///
/// A confinement context belongs to the thread that created it; a private-queue context
/// to its own serial queue, reached through `perform` and `performAndWait`. A call from
/// anywhere else is error 140007.
public final class ManagedObjectContext: @unchecked Sendable {
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    public let concurrencyType: ConcurrencyType
    /// The parent of a child context (`parentContext`): its store. Held strongly, as in Core Data.
    public let parentContext: ManagedObjectContext?
    /// The confinement thread, or the thread running the current block of a queue context.
    var ownerThread: pthread_t? {
        get { link.owner }
        set { link.owner = newValue }
    }
    let queue: ContextQueue?

    /// Objects with permanent IDs, by (store, hierarchy root, primary key). Held strongly; unless
    /// `retainsRegisteredObjects`, a sweep (`releaseUnreferencedObjects`) drops unchanged
    /// ones nobody else holds. (Weak references would give every object a side table and
    /// make all of its reference counting slow.)
    var registered = ObjectRegistry()
    /// The registry's size that triggers the next sweep: twice what the last one kept.
    var sweepThreshold = ManagedObjectContext.minimumSweepThreshold
    static let minimumSweepThreshold = 1024
    /// What this context's objects point to; cleared when the context goes away.
    let link = ContextLink()
    var inserted = ObjectList()
    var updated = ObjectList()
    var deleted = ObjectList()
    /// Changes since the last `processPendingChanges`, for ObjectsDidChange.
    var event = EventChanges()
    /// Deleted objects whose delete rules wait for the save (`propagatesDeletesAtEndOfEvent` off).
    var deletesToPropagate = ObjectList()
    var observers = ContextObservers()
    /// Relationship destinations of deleted objects, kept until their delete rules apply.
    var pendingDestinations: [ObjectIdentifier: [(RelationshipDescription, [ManagedObject])]] = [:]
    var entityHooks: [ObjectIdentifier: ObjectHooks] = [:]
    var hooksCache: [ObjectIdentifier: ObjectHooks?] = [:]
    var classCache: [ObjectIdentifier: ManagedObject.Type] = [:]
    /// Counts changes, so a save can tell which objects changed after their `willSave`.
    var changeStamp = 0
    /// Set while a store writes this context's save from a save request: saving again then is refused.
    var isSendingSaveRequests = false
    /// Set while `awakeFromFetch` runs: changes are not recorded then.
    var changeProcessingSuspended = 0

    /// New objects assigned to a store (`assign(_:to:)`), until they are saved or discarded.
    var storeAssignments: [ObjectIdentifier: PersistentStore] = [:]

    /// How a save resolves optimistic-locking conflicts (`mergePolicy`; default `.error`).
    public var mergePolicy: MergePolicy = .error
    /// How old (seconds) a cached row may be when a fault fires or an object is refreshed
    /// (`stalenessInterval`): negative, any age; 0, the store is always read.
    public var stalenessInterval: Double = -1
    /// Whether a fault whose row is gone becomes a deleted object with empty values instead
    /// of failing with 133000 (`shouldDeleteInaccessibleFaults`).
    public var shouldDeleteInaccessibleFaults = true

    /// Whether changes saved elsewhere are merged automatically (`automaticallyMergesChangesFromParent`).
    var autoMerge = false
    /// Saves waiting to be merged automatically.
    let inbox = MergeInbox()
    /// The children that merge this context's saves automatically.
    let autoMergingChildren = ContextSet()
    /// How many children this context has (made and not yet gone), from any thread.
    let childCount = Atomic<Int>(0)
    /// A child's objects that exist in its parent under temporary IDs.
    var temporaryObjects: [ManagedObjectID: ManagedObject] = [:]
    /// A child's to-one destinations that its rows name by ID, by owner.
    var parentTargets: [ManagedObjectID: [Int: ManagedObjectID?]] = [:]
    /// The permanent IDs that new objects received at this context's saves, by their
    /// temporary ones: children still name them by the temporary ID. Kept while children exist.
    var formerTemporaryIDs: [ManagedObjectID: ManagedObjectID] = [:]

    /// The undo manager (`undoManager` in ContextUndo.swift) and the states of objects
    /// before their first change in the current event, while it is set.
    var attachedUndoManager: ObjectUndoManager?
    var undoImages: [ObjectIdentifier: (ManagedObject, ObjectImage)] = [:]
    /// The context's name (`name`), for the application and for history.
    public var name: String?
    /// Recorded as the author of each history transaction this context's saves and batches
    /// write (`transactionAuthor`).
    public var transactionAuthor: String?

    /// Anything the application wants to keep with the context.
    public var userInfo: [String: String] = [:]
    /// Whether delete rules apply when an object is deleted (the end of the event on a
    /// platform without an event loop) or only when the context saves.
    public var propagatesDeletesAtEndOfEvent = true
    /// Whether unchanged registered objects are kept alive by the context.
    public var retainsRegisteredObjects = false {
        didSet { if !retainsRegisteredObjects { releaseUnreferencedObjects() } }
    }

    typealias ObjectKey = StoredObjectKey

    public enum ConcurrencyType: Int, Sendable {
        /// Used directly, only from the thread that created the context.
        case confinement = 0
        /// Used inside `perform`/`performAndWait` blocks, on the context's own serial queue.
        case privateQueue = 1
        /// Like `privateQueue`, on a queue the library designates as the main one.
        case mainQueue = 2
    }

    public convenience init(coordinator: PersistentStoreCoordinator, concurrencyType: ConcurrencyType = .confinement) {
        self.init(coordinator: coordinator, concurrencyType: concurrencyType, parent: nil)
    }

    /// A child context of `parent` (`parentContext`), of any concurrency type: its store
    /// is the parent (see `ContextParent.swift`).
    public convenience init(parent: ManagedObjectContext, concurrencyType: ConcurrencyType = .confinement) {
        self.init(coordinator: parent.persistentStoreCoordinator, concurrencyType: concurrencyType, parent: parent)
        parent.childCount.add(1, ordering: .relaxed)
    }

    init(coordinator: PersistentStoreCoordinator, concurrencyType: ConcurrencyType, parent: ManagedObjectContext?) {
        self.persistentStoreCoordinator = coordinator
        self.parentContext = parent
        self.concurrencyType = concurrencyType
        if concurrencyType == .confinement {
            queue = nil
        } else {
            queue = concurrencyType == .mainQueue ? ContextQueue.main : ContextQueue(label: "objectgraph.context")
        }
        link.owner = concurrencyType == .confinement ? pthread_self() : nil
        link.context = self
        if parent == nil { coordinator.rootContexts.add(1, ordering: .relaxed) }
    }

    /// Related objects hold each other through their loaded relationships, as in Core
    /// Data; a context that goes away breaks those cycles so its objects can be freed.
    deinit {
        parentContext?.childCount.subtract(1, ordering: .relaxed)
        if parentContext == nil { persistentStoreCoordinator.rootContexts.subtract(1, ordering: .relaxed) }
        link.context = nil
        link.nextChangeWatcher = nil  // objects outlive the context with its link
        registered.forEach { $0.forgetRelations() }
        for o in inserted.objects + updated.objects + deleted.objects { o.relations = nil }
        for o in temporaryObjects.values { o.relations = nil }
    }

    @inline(__always)
    /// Fails with `wrongThread` when called off the thread that owns the context (for a
    /// queue context: outside its `perform` blocks).
    public func checkThread() throws(ObjectGraphError) {
        guard link.isOwnedByCurrentThread else {
            throw .wrongThread(concurrencyType == .confinement
                ? "a managed object context"
                : "a queue-based managed object context outside perform/performAndWait")
        }
    }

    static func key(_ entity: EntityDescription, _ pk: Int64, _ store: StoreRef) -> ObjectKey {
        ObjectKey(root: ObjectIdentifier(entity.rootEntity), primaryKey: pk, store: store.slot)
    }

    /// The key of a permanent ID; nil when its store is not attached.
    func key(for id: ManagedObjectID) -> ObjectKey? {
        guard !id.isTemporaryID, let store = persistentStoreCoordinator.storeRef(forIdentifier: id.storeIdentifier) else { return nil }
        return Self.key(id.entity, id.primaryKey, store)
    }

    /// The store of a permanent ID (once per fault or relationship load, not per row).
    func storeRef(of id: ManagedObjectID) throws(ObjectGraphError) -> StoreRef {
        guard id.entity.model === persistentStoreCoordinator.managedObjectModel else {
            throw .invalidArgument("entity '\(id.entity.name)' belongs to another model than this coordinator's; object IDs cannot move between coordinators of different models")
        }
        guard let store = persistentStoreCoordinator.storeRef(forIdentifier: id.storeIdentifier) else {
            throw ObjectGraphError(
                code: ErrorCode.storeOperation,
                message: "the store of \(id.uriRepresentation) is not attached to this coordinator (it was removed, or the ID comes from another stack)")
        }
        return store
    }

    /// The registered object for a key.
    @inline(__always)
    func registeredObject(_ key: ObjectKey) -> ManagedObject? { registered[key] }

    @inline(__always)
    func register(_ object: ManagedObject, _ key: ObjectKey) {
        registerWithoutSweep(object, key)
        if registered.count >= sweepThreshold { releaseUnreferencedObjects() }
    }

    @inline(__always)
    func registerWithoutSweep(_ object: ManagedObject, _ key: ObjectKey) {
        registered[key] = object
    }

    func unregister(_ object: ManagedObject, _ key: ObjectKey?) {
        if let key { registered.removeValue(forKey: key) }
    }

    /// Drops from the registry every unchanged object that nothing outside it holds (none
    /// while `retainsRegisteredObjects`). Runs when the registry has doubled since the last
    /// sweep, and at `processPendingChanges`, `fetch` and `save`, so an object the
    /// application let go is released by the context's next operation.
    func releaseUnreferencedObjects() {
        defer { sweepThreshold = max(Self.minimumSweepThreshold, registered.count * 2) }
        if retainsRegisteredObjects || registered.isEmpty { return }
        for o in registered.removeUnreferenced() { o.relations = nil }
    }

    // MARK: Pending changes

    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
    public var insertedObjects: [ManagedObject] { inserted.objects }
    public var updatedObjects: [ManagedObject] { updated.objects }
    public var deletedObjects: [ManagedObject] { deleted.objects }
    /// Every object the context knows: registered ones still alive, and new ones.
    public var registeredObjects: [ManagedObject] { Array(registered.values) + inserted.objects }

    func didChange(_ object: ManagedObject) {
        link.noteValuesChanged()
        if changeProcessingSuspended > 0 { return }
        changeStamp += 1
        object.lastChange = changeStamp
        guard !object.isDeleted else { return }
        if !object.isInserted { updated.insert(object) }
        // An insert changed in a later event is reported as updated by that event; within
        // its own event it is reported as inserted only (the notification leaves inserted
        // objects out of updated), so it is not listed twice. Usually it is the object
        // inserted last, which the list answers without a probe.
        if object.isInserted && event.inserted.contains(object) { return }
        event.updated.insert(object)
    }

    /// The class to instantiate for an entity: its registered subclass, or ManagedObject.
    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        if let cached = classCache[ObjectIdentifier(entity)] { return cached }
        let type = ManagedObjectClasses.type(named: entity.managedObjectClassName) ?? ManagedObject.self
        classCache[ObjectIdentifier(entity)] = type
        return type
    }

    // MARK: Inserting and looking up

    /// Inserts a new object of `entityName` with its attributes' default values, then calls
    /// its `awakeFromInsert`.
    public func insertObject(entityName: String) throws(ObjectGraphError) -> ManagedObject {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: entityName)
        guard !entity.isAbstract else {
            var e = ObjectGraphError.unknownEntity(entity.name)
            e.message = "cannot insert an object of the abstract entity '\(entity.name)'"
            throw e
        }
        let object = ManagedObject.make(entity: entity, id: ManagedObjectID(temporaryFor: entity), context: self, snapshot: nil)
        object.isInserted = true
        object.current = entity.layout.defaults
        willInsert(object)
        inserted.appendNew(object)
        event.inserted.appendNew(object)
        object.awakeFromInsert()
        return object
    }

    /// The registered object for a row of `store`, or a new fault for it (uniquing: one object per ID).
    /// `isConcrete`: `entity` is the object's own, not possibly a superentity of it.
    func object(entity: EntityDescription, primaryKey: Int64, in store: StoreRef, isConcrete: Bool = false) throws(ObjectGraphError) -> ManagedObject {
        let key = Self.key(entity, primaryKey, store)
        if let existing = registeredObject(key) { return existing }
        let id = ManagedObjectID(entity: entity, primaryKey: primaryKey, storeIdentifier: store.identifier)
        guard !isConcrete && !entity.subentities.isEmpty else {
            let object = ManagedObject.make(entity: entity, id: id, context: self, snapshot: nil)
            register(object, key)
            return object
        }
        // With subentities the row is read first, so the object is made with its concrete entity.
        guard let row = try sourceRow(id) else {
            throw ObjectGraphError(
                code: ErrorCode.referentialIntegrity,
                message: "the object \(id.uriRepresentation) no longer exists in the store; its fault cannot be fulfilled",
                userInfo: [(ErrorUserInfoKey.validationObject, id.uriRepresentation)])
        }
        let concrete = ManagedObjectID(entity: row.entity, primaryKey: primaryKey, storeIdentifier: store.identifier)
        let object = ManagedObject.make(entity: row.entity, id: concrete, context: self, snapshot: row)
        register(object, key)
        object.awakeFromFetchIgnoringErrors(self)
        return object
    }

    /// The objects for fetched rows, in order, as the request asks (§2.13 rule 4): registered
    /// ones as they are (an unloaded fault gets the row); new ones as faults with their row
    /// cached (`returnsObjectsAsFaults`), fully loaded, or, for rows without values, plain
    /// faults, loaded `fetchBatchSize` at a time when one fires. What a new object needs
    /// from its entity is worked out once per entity.
    /// With `refreshing` (`shouldRefreshRefetchedObjects`), a registered object that is
    /// loaded takes the fetched row as a merging refresh would give it.
    ///
    /// The rows are consumed: each is moved into its object rather than copied, which would
    /// retain it once more and release it again with the array.
    func objects(for rows: consuming [RowSnapshot], in store: StoreRef, asFaults: Bool = true, batchSize: Int = 0, hasValues: Bool = true,
                 refreshing: Bool = false) -> [ManagedObject] {
        var rows = rows
        // Sweep before registering these rows rather than after: every object this fetch
        // returns is held by its result, so a sweep after it would visit them all for nothing.
        if registered.count + rows.count >= sweepThreshold { releaseUnreferencedObjects() }
        // A fetch's rows share a hierarchy and a store.
        if let first = rows.first { registered.reserveCapacity(rows.count, like: Self.key(first.entity, 0, store)) }
        // The previous row's entity and what follows from it: rows of one entity come in runs.
        var entity: EntityDescription? = nil
        var layout: EntityDescription.Layout? = nil
        var type: ManagedObject.Type = ManagedObject.self
        var root = ObjectIdentifier(self)
        var awakes = false
        var unloaded: [ManagedObject] = []
        // Objects whose awakeFromFetch runs once all are registered, and loaded objects that
        // take their fetched row (`refreshing`), both in result order after the loop.
        var awaking: [ManagedObject] = []
        var refreshed: [(ManagedObject, RowSnapshot)] = []
        // Last row first: `popLast` moves a row out of the array. The result is written from
        // its end (reversing it after would retain and release every object); the lists are
        // reversed after.
        var entityAddress: UnsafeRawPointer? = nil
        let count = rows.count
        let out = [ManagedObject](unsafeUninitializedCapacity: count) { buffer, written in
            var next = count
            while let row = rows.popLast() {
                next -= 1
                if row.entityAddress != entityAddress {
                    let e = row.entity
                    entityAddress = row.entityAddress
                    entity = e
                    layout = e.layout
                    type = objectClass(for: e)
                    root = ObjectIdentifier(e.rootEntity)
                    awakes = type != ManagedObject.self || hooks(for: e) != nil
                }
                let primaryKey = row.primaryKey
                let key = ObjectKey(root: root, primaryKey: primaryKey, store: store.slot)
                let (known, place) = registered.place(for: key)
                if let existing = known {
                    if hasValues && existing.isUnloaded {
                        existing.snapshot = row
                        existing.faultBatch = nil
                        if asFaults { existing.rowCached = true } else { awaking.append(existing) }
                    } else if !hasValues && existing.isUnloaded {
                        unloaded.append(existing)
                    } else if refreshing && hasValues && !existing.isInserted {
                        refreshed.append((existing, row))
                    }
                    buffer.initializeElement(at: next, to: existing)
                    continue
                }
                let object = ManagedObject.instantiate(type, entity: entity.unsafelyUnwrapped, layout: layout.unsafelyUnwrapped, context: self, id: nil,
                                                       snapshot: hasValues ? row : nil, primaryKey: primaryKey, store: store.name)
                registered.fill(object, at: place)
                if !hasValues {
                    unloaded.append(object)
                } else if asFaults {
                    object.rowCached = true
                } else if awakes {
                    awaking.append(object)
                }
                buffer.initializeElement(at: next, to: object)
            }
            written = count
        }
        unloaded.reverse()
        for object in awaking.reversed() { object.awakeFromFetchIgnoringErrors(self) }
        for (object, row) in refreshed.reversed() {
            link.noteValuesChanged()
            merge(row, into: object)
            event.refreshed.insert(object)
        }
        if batchSize > 0 && !unloaded.isEmpty { batch(unloaded, size: batchSize, store: store) }
        return out
    }

    /// Splits faults into batches of `size` in result order; each batch loads as one read.
    private func batch(_ faults: [ManagedObject], size: Int, store: StoreRef) {
        var start = 0
        while start < faults.count {
            let members = faults[start..<min(start + size, faults.count)]
            let batch = FaultBatch(entity: members.first!.entity.rootEntity, store: store, primaryKeys: members.map(\.primaryKey))
            for o in members { o.faultBatch = batch }
            start += size
        }
    }

    /// The registered object for a row fetched from `store`; a fault is filled, a loaded object is kept as it is.
    func object(for row: RowSnapshot, in store: StoreRef) -> ManagedObject {
        let key = Self.key(row.entity, row.primaryKey, store)
        if let existing = registeredObject(key) {
            if existing.isFault {
                existing.snapshot = row
                existing.rowCached = false
                existing.faultBatch = nil
                existing.awakeFromFetchIgnoringErrors(self)
            }
            return existing
        }
        let id = ManagedObjectID(entity: row.entity, primaryKey: row.primaryKey, storeIdentifier: store.identifier)
        let object = ManagedObject.make(entity: row.entity, id: id, context: self, snapshot: row)
        register(object, key)
        object.awakeFromFetchIgnoringErrors(self)
        return object
    }

    /// The object for `id`: the registered one, or a fault (error 133000 when it fires for a row that is gone).
    public func object(with id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        try checkThread()
        if id.isTemporaryID {
            if let o = temporaryObject(id) { return o }
            if let saved = formerTemporaryIDs[id] { return try object(with: saved) }
            if let parent = parentContext,
                try parent.withAccessFromChild({ () throws(ObjectGraphError) in try parent.objectForChild(id) != nil })
            {
                return adoptTemporary(id)
            }
            throw ObjectGraphError(code: ErrorCode.referentialIntegrity, message: "no object with the temporary ID \(id) in this context")
        }
        return try object(entity: id.entity, primaryKey: id.primaryKey, in: try storeRef(of: id))
    }

    /// The object for `id` with its values loaded; error 133000 when its row is gone.
    public func existingObject(with id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        let o = try object(with: id)
        if o.rowGone {
            throw ObjectGraphError(
                code: ErrorCode.referentialIntegrity, message: "the object \(id.uriRepresentation) no longer exists in the store",
                userInfo: [(ErrorUserInfoKey.validationObject, id.uriRepresentation)])
        }
        do {
            try o.fireFault(self, strict: true)
        } catch {
            if !o.hasChanges { unregister(o, key(for: id)) }
            throw error
        }
        return o
    }

    /// The object registered for `id`, or nil; never touches the store.
    public func objectRegistered(for id: ManagedObjectID) -> ManagedObject? {
        guard (try? checkThread()) != nil else { return nil }
        if id.isTemporaryID { return temporaryObject(id) }
        return key(for: id).flatMap { registeredObject($0) }
    }

    /// The objects whose to-one `inverse` points at `owner`: the store's rows, then this
    /// context's pending changes (objects moved in or out, deleted objects left out).
    func objects(pointingAt owner: ManagedObject, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [ManagedObject] {
        var result: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        var base: [ManagedObject] = []
        if inverse.isTransient || inverse.inverseRelationship?.isTransient == true {
            // Transient: no store or parent holds it; only what this context set counts.
        } else if let parent = parentContext, let forward = inverse.inverseRelationship {
            if !owner.isInserted {
                for id in try parent.membersForChild(owner.objectID, forward) { base.append(try childObject(forParent: id)) }
            }
        } else if !owner.isInserted, persistentStoreCoordinator.hasObjectLevelStores, let forward = inverse.inverseRelationship,
            let keys = try RequestingContext.with(self, { () throws(ObjectGraphError) in try persistentStoreCoordinator.memberKeys(of: owner.objectID, through: forward) })
        {
            // A store that names the members without their values: faults.
            let store = try storeRef(of: owner.objectID)
            for (entity, key) in keys { base.append(try object(entity: entity, primaryKey: key, in: store, isConcrete: true)) }
        } else {
            let rows = owner.isInserted ? [] : try persistentStoreCoordinator.fetchRows(pointingAt: owner.objectID, through: inverse)
            let store = rows.isEmpty ? nil : try storeRef(of: owner.objectID)
            for row in rows { base.append(object(for: row, in: store!)) }
        }
        for o in base {
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
