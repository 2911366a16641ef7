/// Saving: validate every changed object, then write inserts, updates and deletes in one
/// store transaction; only when it commits do IDs become permanent and snapshots move.
extension ManagedObjectContext {
    /// Saves in Core Data's order (§2.11): process pending changes, post will-save, call
    /// `willSave` (again on objects changed meanwhile, at most `willSavePasses` times),
    /// validate, write everything in one transaction, make IDs permanent, call `didSave`,
    /// post did-save. Nothing is written when validation or the store fails.
    public func save() throws(ObjectGraphError) {
        try checkThread()
        guard !isSendingSaveRequests else {
            throw .invalidArgument("save() was called while this context's save is being written by a store (from a store's save request); the outer save goes on")
        }
        try processPendingChanges()
        guard hasChanges else {
            // A store that takes saves as requests gets one for every save, even an empty one.
            if parentContext == nil { try write([], [], []) }
            return
        }
        post(ContextNotification(name: .willSave, context: self))
        try runWillSave()
        try processPendingChanges()
        try validatePendingChanges()
        var inserts = inserted.objects, updates = updated.objects, deletes = deleted.objects
        if parentContext != nil {
            try pushToParent(inserts, updates, deletes)
        } else {
            // Timed from here: what reaches the stores (a child's save reaches none).
            let start = SQLDebug.summaryStart()
            let (upserts, rows) = try write(inserts, updates, deletes)
            if !upserts.isEmpty {
                // Objects that gave way were never saved; those that took a row over updated it.
                inserts.removeAll { upserts.merged[ObjectIdentifier($0)] != nil || upserts.takeovers[ObjectIdentifier($0)] != nil }
                updates += upserts.takenOver
            }
            if let start {
                SQLDebug.logSave(since: start, rows: rows, inserted: inserts.count, updated: updates.count, deleted: deletes.count)
            }
        }
        for o in inserts + updates + deletes { o.didSave() }
        var n = ContextNotification(name: .didSave, context: self)
        n.inserted = inserts
        n.updated = updates
        n.deleted = deletes
        let changes = SavedChanges(
            inserted: inserts.map(\.objectID), updated: updates.map(\.objectID), deleted: deletes.map(\.objectID),
            coordinatorSerial: persistentStoreCoordinator.serial, source: ObjectIdentifier(self))
        n.changes = changes
        post(n)
        distribute(changes)
    }

    /// An object whose row a save found gone or handed to another object leaves the context
    /// with no changes (as a deleted object when `deleted`).
    func leaveContext(_ o: ManagedObject, deleted: Bool) {
        unregister(o, key(for: o.objectID))
        o.current = nil
        o.clearChanges()
        if deleted { o.isDeleted = true }
        o.managedObjectContext = nil
    }

    /// The bound on `willSave` rounds: a hook that changes its object every time stops here.
    static let willSavePasses = 16

    private func runWillSave() throws(ObjectGraphError) {
        var calledAt: [ObjectIdentifier: Int] = [:]
        for _ in 0..<Self.willSavePasses {
            // Objects without hooks have a willSave that does nothing: they are skipped.
            let pending = (inserted.objects + updated.objects + deleted.objects).filter { o in
                o.hasLifecycleHooks(in: self) && (calledAt[ObjectIdentifier(o)].map { o.lastChange > $0 } ?? true)
            }
            if pending.isEmpty {
                // Delete rules still waiting (propagatesDeletesAtEndOfEvent off) may add objects.
                if deletesToPropagate.isEmpty { return }
                try propagatePendingDeletes()
                continue
            }
            for o in pending {
                calledAt[ObjectIdentifier(o)] = changeStamp
                o.willSave()
                // A hook that throws fails the save here, before any store is touched.
                try hooks(for: o.entity)?.willSave?(o)
            }
            try propagatePendingDeletes()
        }
    }

    /// Writes the changes, each store's share in its own transaction (all open before any
    /// commits). Optimistic locking compares every updated and deleted object's version with
    /// the coordinator's and the store's; the merge policy resolves conflicts (or the save
    /// fails, writing nothing). Stores that check versions in the write itself are written
    /// straight away when the coordinator knows no newer row; should a row's version have
    /// moved, that attempt rolls back and the save runs again checking first, so the merge
    /// policy still sees every conflict at once. Once everything commits the objects move to
    /// their new committed state.
    /// Returns how uniqueness conflicts were resolved and how many rows were written or deleted.
    @discardableResult
    private func write(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject]) throws(ObjectGraphError)
        -> (upserts: ConstraintResolution, rows: Int)
    {
        let requestStores = persistentStoreCoordinator.objectLevelStores()
        guard !(inserts.isEmpty && updates.isEmpty && deletes.isEmpty && requestStores.isEmpty) else { return (ConstraintResolution(), 0) }
        try loadVersions(updates)
        try loadVersions(deletes)
        var plan = try planSave(inserts, updates, deletes)
        if !requestStores.isEmpty {
            try obtainStoreIDs(plan)
            for record in requestStores where !plan.contains(where: { $0.store.slot == record.slot }) { plan.append(StoreShare(store: record)) }
            plan.sort { $0.store.slot < $1.store.slot }
        }
        var attempt = SaveAttempt(inserts: inserts.count, updates: updates.count)
        // Saved inserts are registered after the commit; most saves insert into one hierarchy.
        if let share = plan.first(where: { !$0.inserts.isEmpty }), let o = share.inserts.first {
            registered.reserveCapacity(inserts.count, like: Self.key(o.entity, 0, share.store.ref))
        }
        var checksFirst = false
        while true {
            do throws(ObjectGraphError) {
                try persistentStoreCoordinator.save(plan.map(\.store), afterCommit: { recordSavedRows(attempt.written, attempt.removed) }) { transactions throws(ObjectGraphError) in
                    try writeRows(plan, transactions, checksFirst: checksFirst, &attempt)
                    try recordSaveHistory(plan, transactions, attempt)
                    // Last, once every row is written: a version that moved is found before.
                    if !requestStores.isEmpty { try sendSaveRequests(plan) }
                }
                break
            } catch {
                guard attempt.versionMoved, !checksFirst else { throw error }
                // Rolled back: everything is written again after the check.
                checksFirst = true
                attempt = SaveAttempt(inserts: inserts.count, updates: updates.count)
            }
        }
        let written = attempt.written, resolution = attempt.resolution, upserts = attempt.upserts
        let rows = attempt.written.count + attempt.removed.count
        // Before the objects that took rows over are registered under those rows' keys.
        if !upserts.isEmpty { finishUpserts(upserts) }

        // Committed: the objects now match their rows.
        let keepsFormerIDs = childCount.load(ordering: .relaxed) > 0
        if !keepsFormerIDs && !formerTemporaryIDs.isEmpty { formerTemporaryIDs.removeAll() }
        for (o, snapshot, store) in written {
            if o.isInserted {
                if o.hasTemporaryID {
                    if keepsFormerIDs {
                        let permanent = ManagedObjectID(entity: o.entity, primaryKey: snapshot.primaryKey, storeIdentifier: store.identifier)
                        formerTemporaryIDs[o.objectID] = permanent
                        o.objectID = permanent
                    } else {
                        o.becomePermanent(primaryKey: snapshot.primaryKey, store: store.name)
                    }
                } else if o.objectID.primaryKey != snapshot.primaryKey {
                    // A permanent ID obtained before the save gives way to the row taken over.
                    o.objectID = ManagedObjectID(entity: o.entity, primaryKey: snapshot.primaryKey, storeIdentifier: store.identifier)
                }
                // No sweep while registering: every saved object is still listed as inserted,
                // so a sweep here would visit them all and free none; the next operation's does.
                registerWithoutSweep(o, Self.key(o.entity, snapshot.primaryKey, store))
                o.isInserted = false
                if !storeAssignments.isEmpty { storeAssignments.removeValue(forKey: ObjectIdentifier(o)) }
            }
            o.snapshot = snapshot
            o.current = nil
            o.clearChanges()
        }
        for share in plan {
            for o in share.deletes where o.isDeleted {
                unregister(o, Self.key(o.entity, o.objectID.primaryKey, share.store.ref))
                o.managedObjectContext = nil
                // As on Core Data: once the delete is saved, the object is no longer "deleted"
                // (it is gone, and belongs to no context).
                o.isDeleted = false
            }
        }
        // Rows another writer deleted: their objects leave the context as deleted ones.
        for o in resolution.forgotten { leaveContext(o, deleted: true) }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        for o in resolution.resolved where !o.isDeleted { o.awakeFromSnapshotEvents(.mergePolicy) }
        // Objects that took a row over read its relationships again, as the row has them now.
        for o in upserts.takenOver { o.relations = nil }
        return (upserts, rows)
    }
}
