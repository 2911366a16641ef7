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
        try write(inserts, updates, deletes)
        for o in inserts + updates + deletes { o.didSave() }
        var n = ContextNotification(name: .didSave, context: self)
        n.inserted = inserts
        n.updated = updates
        n.deleted = deletes
        post(n)
    }

    /// The bound on `willSave` rounds: a hook that changes its object every time stops here.
    static let willSavePasses = 16

    private func runWillSave() throws(ObjectGraphError) {
        var calledAt: [ObjectIdentifier: Int] = [:]
        for _ in 0..<Self.willSavePasses {
            let pending = (inserted.objects + updated.objects + deleted.objects).filter { o in
                calledAt[ObjectIdentifier(o)].map { o.lastChange > $0 } ?? true
            }
            if pending.isEmpty { return }
            for o in pending {
                calledAt[ObjectIdentifier(o)] = changeStamp
                o.willSave()
            }
            try propagatePendingDeletes()
        }
    }

    /// Writes the changes in one store transaction and, once it commits, moves the objects
    /// to their new committed state.
    private func write(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject]) throws(ObjectGraphError) {
        guard let anyEntity = (inserts + updates + deletes).first?.entity else { return }
        var newKeys: [ObjectIdentifier: Int64] = [:]
        var written: [(ManagedObject, RowSnapshot)] = []
        var storeIdentifier = ""
        try persistentStoreCoordinator.save(entity: anyEntity) { store, tx throws(ObjectGraphError) in
            storeIdentifier = store.identifier
            // Keys in blocks, one allocation per hierarchy, in insertion order.
            var byRoot: [ObjectIdentifier: [ManagedObject]] = [:]
            var roots: [EntityDescription] = []
            for o in inserts {
                let root = o.entity.rootEntity
                if byRoot[ObjectIdentifier(root)] == nil { roots.append(root) }
                byRoot[ObjectIdentifier(root), default: []].append(o)
            }
            for root in roots {
                // Objects given permanent IDs early keep them.
                let objects = byRoot[ObjectIdentifier(root)]!.filter { $0.objectID.isTemporaryID }
                for o in byRoot[ObjectIdentifier(root)]! where !o.objectID.isTemporaryID {
                    newKeys[ObjectIdentifier(o)] = o.objectID.primaryKey
                }
                guard !objects.isEmpty else { continue }
                var next = try tx.allocatePrimaryKeys(for: root, count: objects.count)
                for o in objects {
                    newKeys[ObjectIdentifier(o)] = next
                    next += 1
                }
            }
            for o in inserts {
                let row = StoreRowWrite(entity: o.entity, primaryKey: newKeys[ObjectIdentifier(o)]!, version: 1, values: try rowValues(o, newKeys))
                try tx.insert(row)
                written.append((o, RowSnapshot(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: row.values)))
            }
            for o in updates {
                let row = StoreRowWrite(entity: o.entity, primaryKey: o.objectID.primaryKey, version: (o.snapshot?.version ?? 0) + 1, values: try rowValues(o, newKeys))
                try tx.update(row)
                written.append((o, RowSnapshot(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: row.values)))
            }
            for o in deletes { try tx.delete(entity: o.entity, primaryKey: o.objectID.primaryKey) }
            try writeMembers(inserts + updates, newKeys, tx)
        }

        // Committed: the objects now match their rows.
        for (o, snapshot) in written {
            if o.isInserted {
                if o.objectID.isTemporaryID {
                    o.objectID = ManagedObjectID(entity: o.entity, primaryKey: snapshot.primaryKey, storeIdentifier: storeIdentifier)
                }
                register(o, Self.key(o.entity, snapshot.primaryKey))
                o.isInserted = false
            }
            o.snapshot = snapshot
            o.current = nil
            o.changedSlots.removeAll()
        }
        for o in deletes {
            unregister(o, Self.key(o.entity, o.objectID.primaryKey))
            o.managedObjectContext = nil
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
    }

    /// Writes the contents of changed to-many relationships the members' rows do not
    /// carry: many-to-many and inverse-less ones (join tables) and the order of ordered ones.
    private func writeMembers(_ objects: [ManagedObject], _ newKeys: [ObjectIdentifier: Int64], _ tx: StoreSaveTransaction) throws(ObjectGraphError) {
        for o in objects {
            for (slot, kind) in o.entity.layout.kinds.enumerated() {
                guard case .toMany(let r) = kind, !r.isTransient, let s = o.state(slot) else { continue }
                guard o.isInserted || o.changedSlots.contains(slot) else { continue }
                let explicit = r.inverseRelationship.map { $0.isToMany } ?? true
                guard explicit || r.isOrdered else { continue }
                let owner = newKeys[ObjectIdentifier(o)] ?? o.objectID.primaryKey
                var members: [Int64] = []
                for m in s.members where !m.isDeleted {
                    if let pk = newKeys[ObjectIdentifier(m)] {
                        members.append(pk)
                    } else if !m.objectID.isTemporaryID {
                        members.append(m.objectID.primaryKey)
                    }
                }
                try tx.setMembers(of: owner, through: r, to: members)
            }
        }
    }

    /// One value per slot, as the store keeps it: attributes as they are, a to-one as the
    /// destination's primary key (a new destination's key comes from `newKeys`).
    private func rowValues(_ o: ManagedObject, _ newKeys: [ObjectIdentifier: Int64]) throws(ObjectGraphError) -> [AttributeValue] {
        var values = o.current ?? o.snapshot?.values ?? o.entity.layout.defaults
        for (slot, kind) in o.entity.layout.kinds.enumerated() {
            guard case .toOne(let r) = kind else { continue }
            guard let s = o.state(slot) else { continue }  // unchanged: the snapshot's key stands
            guard let d = s.target else { values[slot] = .null; continue }
            if let pk = newKeys[ObjectIdentifier(d)] {
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
