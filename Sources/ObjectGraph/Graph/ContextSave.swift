/// Saving: validate every changed object, then write inserts, updates and deletes in one
/// store transaction; only when it commits do IDs become permanent and snapshots move.
extension ManagedObjectContext {
    /// Saves in Core Data's order (§2.11): process pending changes, post will-save, call
    /// `willSave` (again on objects changed meanwhile, at most `willSavePasses` times),
    /// validate, write everything in one transaction, make IDs permanent, call `didSave`,
    /// post did-save. Nothing is written when validation or the store fails.
    public func save() throws(ObjectGraphError) {
        try checkThread()
        try processPendingChanges()
        guard hasChanges else { return }
        post(ContextNotification(name: .willSave, context: self))
        try runWillSave()
        try processPendingChanges()
        try validatePendingChanges()
        let inserts = inserted.objects, updates = updated.objects, deletes = deleted.objects
        if parentContext != nil {
            try pushToParent(inserts, updates, deletes)
        } else {
            try write(inserts, updates, deletes)
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
    private func write(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject]) throws(ObjectGraphError) {
        guard !(inserts.isEmpty && updates.isEmpty && deletes.isEmpty) else { return }
        try loadVersions(updates)
        try loadVersions(deletes)
        let plan = try planSave(inserts, updates, deletes)
        var newKeys = NewPrimaryKeys(minimumCapacity: inserts.count)
        var written: [(ManagedObject, RowSnapshot, StoreRef)] = []
        written.reserveCapacity(inserts.count + updates.count)
        var removed: [(ManagedObject, StoreRef)] = []
        var resolution = ConflictResolution()
        // Saved inserts are registered after the commit; most saves insert into one hierarchy.
        if let share = plan.first(where: { !$0.inserts.isEmpty }), let o = share.inserts.first {
            registered.reserveCapacity(inserts.count, like: Self.key(o.entity, 0, share.store.ref))
        }
        var checksFirst = false
        while true {
            var versionMoved = false
            do throws(ObjectGraphError) {
                try persistentStoreCoordinator.save(plan.map(\.store), afterCommit: { recordSavedRows(written, removed) }) { transactions throws(ObjectGraphError) in
                    let checksWhileWriting = !checksFirst && transactions.allSatisfy(\.checksVersionsWhileWriting) && !coordinatorKnowsNewerRows(plan)
                    if !checksWhileWriting { resolution = try checkVersions(plan, transactions) }
                    let skipped = resolution.skipped
                    var keys: [[Int64]] = []
                    for (share, tx) in zip(plan, transactions) {
                        keys.append(try allocateKeys(share.inserts, tx, &newKeys))
                    }
                    for (shareIndex, (share, tx)) in zip(plan, transactions).enumerated() {
                        let ref = share.store.ref
                        for (o, key) in zip(share.inserts, keys[shareIndex]) {
                            let values = try rowValues(o, newKeys)
                            let row = StoreRowWrite(entity: o.entity, primaryKey: key, version: 1, values: try o.storedForm(values))
                            try tx.insert(row)
                            written.append((o, RowSnapshot.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values), ref))
                        }
                        for o in share.updates where skipped.isEmpty || !skipped.contains(ObjectIdentifier(o)) {
                            let values = try rowValues(o, newKeys)
                            let row = StoreRowWrite(entity: o.entity, primaryKey: o.objectID.primaryKey, version: try nextVersion(o, share.store), values: try o.storedForm(values))
                            if checksWhileWriting, let version = expectedVersion(o) {
                                guard try tx.update(row, ifVersion: version) else {
                                    versionMoved = true
                                    throw Self.versionMoved(o)
                                }
                            } else {
                                try tx.update(row)
                            }
                            written.append((o, RowSnapshot.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values), ref))
                        }
                        for o in share.deletes where o.isDeleted {
                            if checksWhileWriting, let version = expectedVersion(o) {
                                guard try tx.delete(entity: o.entity, primaryKey: o.objectID.primaryKey, ifVersion: version) else {
                                    versionMoved = true
                                    throw Self.versionMoved(o)
                                }
                            } else {
                                try tx.delete(entity: o.entity, primaryKey: o.objectID.primaryKey)
                            }
                            removed.append((o, ref))
                        }
                        // Each list on its own: concatenating them copied (and retained) every new object.
                        try writeMembers(share.inserts, newKeys, tx)
                        try writeMembers(skipped.isEmpty ? share.updates : share.updates.filter { !skipped.contains(ObjectIdentifier($0)) }, newKeys, tx)
                    }
                }
                break
            } catch {
                guard versionMoved, !checksFirst else { throw error }
                // Rolled back: everything is written again after the check.
                checksFirst = true
                newKeys = NewPrimaryKeys(minimumCapacity: inserts.count)
                written.removeAll(keepingCapacity: true)
                removed.removeAll()
                resolution = ConflictResolution()
            }
        }

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
                }
                // No sweep while registering: every saved object is still listed as inserted,
                // so a sweep here would visit them all and free none; the next operation's does.
                registerWithoutSweep(o, Self.key(o.entity, snapshot.primaryKey, store))
                o.isInserted = false
                if !storeAssignments.isEmpty { storeAssignments.removeValue(forKey: ObjectIdentifier(o)) }
            }
            o.snapshot = snapshot
            o.current = nil
            o.changedSlots.removeAll()
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
        for o in resolution.forgotten {
            unregister(o, key(for: o.objectID))
            o.current = nil
            o.changedSlots.removeAll()
            o.isDeleted = true
            o.managedObjectContext = nil
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        for o in resolution.resolved where !o.isDeleted { o.awakeFromSnapshotEvents(.mergePolicy) }
    }

    /// Writes the contents of changed to-many relationships the members' rows do not
    /// carry: many-to-many and inverse-less ones (join tables) and the order of ordered ones.
    func writeMembers(_ objects: [ManagedObject], _ newKeys: NewPrimaryKeys, _ tx: StoreSaveTransaction) throws(ObjectGraphError) {
        for o in objects {
            let layout = o.layout
            for slot in layout.toManySlots {
                guard case .toMany(let r) = layout.kinds[slot], !r.isTransient, let s = o.state(slot) else { continue }
                guard o.isInserted || o.changedSlots.contains(slot) else { continue }
                let explicit = r.inverseRelationship.map { $0.isToMany } ?? true
                guard explicit || r.isOrdered else { continue }
                let owner = newKeys[o] ?? o.objectID.primaryKey
                var members: [Int64] = []
                for m in s.members where !m.isDeleted {
                    if let pk = newKeys[m] {
                        members.append(pk)
                    } else if !m.objectID.isTemporaryID {
                        members.append(m.objectID.primaryKey)
                    }
                }
                try tx.setMembers(of: owner, through: r, to: members)
            }
        }
    }

    /// The row version an update writes: one more than the version the object was read
    /// at. Versions come from files (`Z_OPT`), so one at `Int64.max` fails the save
    /// (134030) instead of wrapping to a version other writers would take for older.
    func nextVersion(_ o: ManagedObject, _ store: PersistentStoreCoordinator.AttachedStore) throws(ObjectGraphError) -> Int64 {
        let current = o.snapshot?.version ?? 0
        let (next, overflow) = current.addingReportingOverflow(1)
        guard !overflow else {
            throw ObjectGraphError(
                code: ErrorCode.storeSave,
                message: "cannot update \(o.objectID.uriRepresentation): its row version (Z_OPT) in the store '\(store.store.path)' is \(current), the largest there is",
                userInfo: [(ErrorUserInfoKey.entity, o.entity.name), (ErrorUserInfoKey.filePath, store.store.path)])
        }
        return next
    }

    /// One value per slot, as the store keeps it: attributes as they are, a to-one as the
    /// destination's primary key (a new destination's key comes from `newKeys`).
    func rowValues(_ o: ManagedObject, _ newKeys: NewPrimaryKeys) throws(ObjectGraphError) -> [AttributeValue] {
        var values = o.current ?? o.snapshot?.values ?? o.layout.defaults
        let layout = o.layout
        for slot in layout.toOneSlots {
            guard case .toOne(let r) = layout.kinds[slot] else { continue }
            guard let s = o.state(slot) else { continue }  // unchanged: the snapshot's key stands
            guard let d = s.target else { values[slot] = .null; continue }
            if let pk = newKeys[d] {
                values[slot] = .integer(pk)
            } else if !d.objectID.isTemporaryID, !d.isDeleted || d.managedObjectContext != nil {
                values[slot] = .integer(d.objectID.primaryKey)
            } else {
                throw ObjectGraphError(
                    code: ErrorCode.validation,
                    message: "\(o) relates through '\(r.name)' to \(d), which is not saved with it",
                    userInfo: [(ErrorUserInfoKey.validationObject, o.objectID.uriRepresentation), (ErrorUserInfoKey.validationKey, r.name)])
            }
        }
        return values
    }
}
