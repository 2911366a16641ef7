import Synchronization

/// The object IDs of one save (a did-save notification's lists), safe to hand to another
/// thread: what `mergeChanges(from:)` applies to another context.
public struct SavedChanges: Sendable {
    public var inserted: [ManagedObjectID] = []
    public var updated: [ManagedObjectID] = []
    public var deleted: [ManagedObjectID] = []
    /// The coordinator of the context that saved; nil for changes gathered elsewhere
    /// (another coordinator or process), which are merged by ID (`mergeChanges(fromRemoteContextSave:into:)`).
    let coordinatorSerial: Int?
    /// The context that saved, which does not merge its own save.
    let sourceContext: ObjectIdentifier?

    public init(inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        coordinatorSerial = nil
        sourceContext = nil
    }

    init(inserted: [ManagedObjectID], updated: [ManagedObjectID], deleted: [ManagedObjectID], coordinatorSerial: Int, source: ObjectIdentifier) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.coordinatorSerial = coordinatorSerial
        self.sourceContext = source
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Changes waiting for a context that merges automatically but could not be reached on its
/// own thread when they arrived (a confinement context used by another thread).
final class MergeInbox: @unchecked Sendable {
    private let pending = Mutex<[SavedChanges]>([])

    func post(_ changes: SavedChanges) { pending.withLock { $0.append(changes) } }

    func take() -> [SavedChanges] { pending.withLock { p in defer { p.removeAll() }; return p } }

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }
}

/// Merging another context's save (§2.15), staleness and refreshing everything (§2.10).
extension ManagedObjectContext {
    /// The committed row of `id` from below this context: the coordinator (its row cache
    /// within `staleness`, by default `stalenessInterval`, else the store), or for a child
    /// context its parent.
    func sourceRow(_ id: ManagedObjectID, staleness: Double? = nil) throws(ObjectGraphError) -> RowSnapshot? {
        if let parent = parentContext { return try parent.rowForChild(id, of: self) }
        return try RequestingContext.with(self) { () throws(ObjectGraphError) in
            try persistentStoreCoordinator.fetchRow(id, staleness: staleness ?? stalenessInterval)
        }
    }

    /// `mergeChangesFromContextDidSaveNotification:`: applies another context's save.
    public func mergeChanges(fromContextDidSave notification: ContextNotification) throws(ObjectGraphError) {
        guard notification.name == .didSave, let changes = notification.changes else {
            throw .invalidArgument("only a did-save notification can be merged; this one is \(notification.name)")
        }
        try mergeChanges(from: changes)
    }

    /// Applies a save's object IDs: registered objects it updated are refreshed keeping this
    /// context's own changes; objects it deleted are marked deleted (fetches leave them out);
    /// inserted ones are registered as faults. Objects-did-change is posted.
    public func mergeChanges(from changes: SavedChanges) throws(ObjectGraphError) {
        try checkThread()
        if let serial = changes.coordinatorSerial, serial != persistentStoreCoordinator.serial {
            throw .invalidArgument("the changes were saved through another coordinator; merge them by ID with mergeChanges(fromRemoteContextSave:into:)")
        }
        try applyMerge(changes, remote: changes.coordinatorSerial == nil)
    }

    /// `mergeChangesFromRemoteContextSave:intoContexts:`: merges changes given as IDs (from
    /// another coordinator or process, or batch work) into each context, on its own queue.
    /// IDs of stores a context's coordinator does not have are skipped for it.
    public static func mergeChanges(fromRemoteContextSave changes: SavedChanges, into contexts: [ManagedObjectContext]) throws(ObjectGraphError) {
        for context in contexts {
            let remote = SavedChanges(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted)
            var failure: ObjectGraphError?
            context.performAndWaitWithoutEvent {
                do throws(ObjectGraphError) { try context.applyMerge(remote, remote: true) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// The merge itself, on the context's thread. `remote` changes come from outside the
    /// coordinator, so updated rows are read from the store rather than its cache.
    func applyMerge(_ changes: SavedChanges, remote: Bool) throws(ObjectGraphError) {
        try checkThread()
        link.noteValuesChanged()
        var n = ContextNotification(name: .objectsDidChange, context: self)
        for id in changes.updated {
            guard let o = mergeTarget(id) else { continue }
            if o.isUnloaded { continue }  // a fault reads its row when it fires
            if o.rowCached {
                // An unfired fault drops its copy of the row: firing reads the new one.
                o.rowCached = false
                o.snapshot = nil
                continue
            }
            do throws(ObjectGraphError) {
                try refresh(o, mergeChanges: true, staleness: remote ? 0 : -1)
            } catch where error.code == ErrorCode.referentialIntegrity {
                markDeletedElsewhere(o)
                n.deleted.append(o)
                continue
            }
            n.updated.append(o)
        }
        for id in changes.deleted {
            guard let o = mergeTarget(id) else { continue }
            markDeletedElsewhere(o)
            n.deleted.append(o)
        }
        for id in changes.inserted where !id.isTemporaryID {
            guard let store = persistentStoreCoordinator.storeRef(forIdentifier: id.storeIdentifier) else { continue }
            n.inserted.append(try object(entity: id.entity, primaryKey: id.primaryKey, in: store))
        }
        // The merge reports its objects itself, not again at the end of the event.
        for o in n.updated { event.refreshed.remove(o) }
        n.refreshed = n.updated
        if !n.isEmpty { post(n) }
    }

    /// The registered object for a merged ID, if this context has it.
    private func mergeTarget(_ id: ManagedObjectID) -> ManagedObject? {
        guard let key = key(for: id) else { return nil }
        return registeredObject(key)
    }

    /// An object whose row another context deleted: it stays registered with its last
    /// values, marked deleted, and is neither saved nor fetched again.
    func markDeletedElsewhere(_ o: ManagedObject) {
        if o.isUnloaded || o.rowCached {
            o.rowCached = false
            if o.snapshot == nil {
                o.snapshot = RowSnapshot.make(entity: o.entity, primaryKey: o.primaryKey, version: 0,
                                         values: [AttributeValue](repeating: .null, count: o.layout.kinds.count))
            }
        }
        o.current = nil
        o.clearChanges()
        updated.remove(o)
        deleted.remove(o)
        event.updated.remove(o)
        o.isDeleted = true
        o.rowGone = true
    }

    /// `refreshAllObjects`: refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() throws(ObjectGraphError) {
        try checkThread()
        for o in Array(registered.values) + Array(temporaryObjects.values) where !o.isInserted {
            if o.hasChanges {
                do throws(ObjectGraphError) { try refresh(o, mergeChanges: true) } catch where error.code == ErrorCode.referentialIntegrity {
                    markDeletedElsewhere(o)
                }
            } else {
                try refresh(o, mergeChanges: false)
            }
        }
    }

    // MARK: Automatic merging

    /// `automaticallyMergesChangesFromParent`: a child merges each save of its parent, a
    /// root context each save of the other contexts of its coordinator. Each merge runs on
    /// this context's queue; a confinement context used from another thread merges at its
    /// next `processPendingChanges` (and so before its next fetch or save).
    public var automaticallyMergesChangesFromParent: Bool {
        get { autoMerge }
        set {
            autoMerge = newValue
            if let parent = parentContext {
                parent.autoMergingChildren.set(self, on: newValue)
            } else {
                persistentStoreCoordinator.autoMergingContexts.set(self, on: newValue)
            }
        }
    }

    /// Hands a save to the contexts that merge it automatically: the coordinator's other
    /// root contexts after a save to the stores, this context's children after any save.
    func distribute(_ changes: SavedChanges) {
        guard !changes.isEmpty else { return }
        // Set membership says who merges: reading another context's flag would race with it.
        let receivers = (parentContext == nil ? persistentStoreCoordinator.autoMergingContexts.all().compactMap { $0 as? ManagedObjectContext } : []) + autoMergingChildren.all()
        for receiver in receivers where receiver !== self {
            if receiver.parentContext == nil && changes.coordinatorSerial != receiver.persistentStoreCoordinator.serial { continue }
            receiver.deliver(changes)
        }
    }

    /// Runs the merge on this context's own queue or thread.
    private func deliver(_ changes: SavedChanges) {
        inbox.post(changes)
        if let queue {
            queue.queue.async { [self] in self.runOnQueue { try? self.drainInbox() } }
        } else if link.isOwnedByCurrentThread {
            try? drainInbox()
        }
    }

    /// Merges what arrived for this context.
    func drainInbox() throws(ObjectGraphError) {
        guard autoMerge, !inbox.isEmpty else { return }
        for changes in inbox.take() { try applyMerge(changes, remote: false) }
    }
}

/// Contexts held weakly (a parent's auto-merging children).
typealias ContextSet = WeakSet<ManagedObjectContext>
