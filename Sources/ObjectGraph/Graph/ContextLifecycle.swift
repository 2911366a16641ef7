/// Undoing and forgetting work: rollback, reset, refreshing single objects, and
/// permanent IDs before a save.
extension ManagedObjectContext {
    /// Discards every unsaved change: new objects leave the context, deleted ones come
    /// back, changed ones return to their committed values (`awakeFromSnapshotEvents`
    /// with `.rollback`).
    public func rollback() throws(ObjectGraphError) {
        try processPendingChanges()
        link.noteValuesChanged()
        attachedUndoManager?.removeAllActions()
        for o in inserted.objects {
            if !o.objectID.isTemporaryID { unregister(o, key(for: o.objectID)) }
            o.isInserted = false
            o.managedObjectContext = nil
        }
        let restored = updated.objects + deleted.objects
        for o in restored {
            o.isDeleted = false
            discardChanges(o)
        }
        // Relationship contents cached anywhere may mention the discarded changes.
        registered.forEach { $0.forgetRelations() }
        for o in temporaryObjects.values { o.relations = nil }
        forgetPendingChanges()
        for o in restored { o.awakeFromSnapshotEvents(.rollback) }
    }

    /// Forgets every object: registered and new objects become inaccessible (error
    /// 140010), unsaved changes are lost, and objects-did-change reports
    /// `invalidatedAll`.
    public func reset() throws(ObjectGraphError) {
        try checkThread()
        link.noteValuesChanged()
        let dropped = registered.count + inserted.count
        registered.forEach { $0.managedObjectContext = nil }
        for o in inserted.objects { o.managedObjectContext = nil }
        registered.removeAll()
        for o in temporaryObjects.values { o.managedObjectContext = nil }
        temporaryObjects.removeAll()
        parentTargets.removeAll()
        sweepThreshold = Self.minimumSweepThreshold
        storeAssignments.removeAll()
        forgetPendingChanges()
        attachedUndoManager?.removeAllActions()
        undoImages.removeAll()
        var n = ContextNotification(name: .objectsDidChange, context: self)
        n.invalidatedAll = true
        post(n)
        FreedMemory.returnToSystem(afterDropping: dropped)
    }

    /// Refreshes an object from the store (`refreshObject:mergeChanges:`). Without merging
    /// it turns into a fault: unsaved changes, transient values and loaded relationships are
    /// discarded (`willTurnIntoFault`, `didTurnIntoFault`). With merging its unchanged
    /// properties take the store's current values and its own changes stay.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws(ObjectGraphError) {
        try refresh(object, mergeChanges: mergeChanges, staleness: stalenessInterval)
    }

    /// `staleness` decides whether the coordinator's cached row will do (merges of this
    /// coordinator's own saves use it; merges of remote changes read the store).
    func refresh(_ object: ManagedObject, mergeChanges: Bool, staleness: Double) throws(ObjectGraphError) {
        try checkThread()
        link.noteValuesChanged()
        guard object.managedObjectContext === self, !object.isInserted else { return }
        if !mergeChanges {
            object.willTurnIntoFault()
            if object.isDeleted {
                object.isDeleted = false
                deleted.remove(object)
            }
            discardChanges(object)
            object.snapshot = nil
            object.didTurnIntoFault()
        } else {
            guard let row = try sourceRow(object.objectID, staleness: staleness) else {
                throw ObjectGraphError(code: ErrorCode.referentialIntegrity, message: "\(object) no longer exists in the store")
            }
            merge(row, into: object)
        }
        event.refreshed.insert(object)
    }

    /// The merge of a refresh: unchanged properties take `row`'s values, changes stay.
    func merge(_ row: RowSnapshot, into object: ManagedObject) {
        if var values = object.current {
            for slot in 0..<values.count where !object.isChanged(slot) && !object.entity.properties[slot].isTransient {
                values[slot] = row[slot]
            }
            object.current = values
        }
        object.snapshot = row
        if var relations = object.relations {
            for slot in 0..<relations.count where !object.isChanged(slot) { relations[slot] = nil }
            object.relations = relations
        }
        object.awakeFromSnapshotEvents(.refresh)
    }

    /// Empties the pending sets and the current event.
    private func forgetPendingChanges() {
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        deletesToPropagate.removeAll()
        pendingDestinations.removeAll()
        storeAssignments.removeAll()
        event = EventChanges()
        undoImages.removeAll()
    }

    private func discardChanges(_ o: ManagedObject) {
        o.current = nil
        o.clearChanges()
        o.relations = nil
        updated.remove(o)
        event.updated.remove(o)
    }

    /// Gives new objects their permanent IDs now (`obtainPermanentIDsForObjects:`); they
    /// stay inserted until saved. Objects that have permanent IDs are skipped.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ObjectGraphError) {
        try checkThread()
        let pending = objects.filter { $0.objectID.isTemporaryID }
        for o in pending where o.managedObjectContext !== self || !o.isInserted {
            throw .invalidArgument("\(o) is not a new object of this context")
        }
        guard !pending.isEmpty else { return }
        try assignPermanentIDs(pending)
    }
}
