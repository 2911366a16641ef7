/// The rows of a save, written inside its store transactions: keys for new objects, then
/// each store's inserts, updates, deletes and to-many contents.
extension ManagedObjectContext {
    /// What one attempt at writing a save produced; a rolled-back attempt's is thrown away.
    struct SaveAttempt {
        var newKeys: NewPrimaryKeys
        /// Objects and the rows written for them, to become their snapshots after the commit.
        var written: [(ManagedObject, RowSnapshot, StoreRef)] = []
        /// Makes those rows, many to a block.
        var rows = RowBlockWriter(rowsPerBlock: 8)
        var removed: [(ManagedObject, StoreRef)] = []
        var resolution = ConflictResolution()
        var upserts = ConstraintResolution()
        /// Per share of the plan, the keys of its inserts in order (what history records).
        var insertKeys: [[Int64]] = []
        /// Set when a write found its row no longer at the version read: the attempt ends
        /// and the save runs again, checking first.
        var versionMoved = false

        init(inserts: Int, updates: Int) {
            newKeys = NewPrimaryKeys(minimumCapacity: inserts)
            written.reserveCapacity(inserts + updates)
        }
    }

    /// Writes `plan` through `transactions` (one per share). Versions are checked before
    /// writing (`checkVersions`), or, when every store can (and the coordinator knows no
    /// newer row, and `checksFirst` is off), by the writes themselves.
    func writeRows(_ plan: [StoreShare], _ transactions: [StoreSaveTransaction], checksFirst: Bool,
                   _ attempt: inout SaveAttempt) throws(ObjectGraphError)
    {
        let checksWhileWriting = !checksFirst && transactions.allSatisfy(\.checksVersionsWhileWriting) && !coordinatorKnowsNewerRows(plan)
        if !checksWhileWriting { attempt.resolution = try checkVersions(plan, transactions) }
        let skipped = attempt.resolution.skipped
        var keys: [[Int64]] = []
        for (share, tx) in zip(plan, transactions) {
            keys.append(try allocateKeys(share.inserts, tx, &attempt.newKeys))
        }
        attempt.insertKeys = keys
        let upserts = try checkConstraints(plan, transactions, skipped: skipped, attempt.newKeys)
        attempt.upserts = upserts
        if !upserts.isEmpty { takeKeys(upserts, plan, &attempt.newKeys) }
        let newKeys = attempt.newKeys
        for (share, tx) in zip(plan, transactions) {
            let ref = share.store.ref
            // Deletes and updates first: a new row may take values a changed or deleted row gives up.
            for o in share.deletes where o.isDeleted {
                if checksWhileWriting, let version = expectedVersion(o) {
                    try requireWritten(try tx.delete(entity: o.entity, primaryKey: o.objectID.primaryKey, ifVersion: version), o, &attempt)
                } else {
                    try tx.delete(entity: o.entity, primaryKey: o.objectID.primaryKey)
                }
                attempt.removed.append((o, ref))
            }
            for o in share.updates where skipped.isEmpty || !skipped.contains(ObjectIdentifier(o)) {
                let values = try rowValues(o, newKeys)
                let row = StoreRowWrite(entity: o.entity, primaryKey: o.objectID.primaryKey, version: try nextVersion(o, share.store), values: try o.storedForm(values))
                if checksWhileWriting, let version = expectedVersion(o) {
                    try requireWritten(try tx.update(row, ifVersion: version), o, &attempt)
                } else {
                    try tx.update(row)
                }
                attempt.written.append((o, attempt.rows.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values), ref))
            }
        }
        for (shareIndex, (share, tx)) in zip(plan, transactions).enumerated() {
            let ref = share.store.ref
            for (o, key) in zip(share.inserts, keys[shareIndex]) {
                if !upserts.isEmpty {
                    if upserts.merged[ObjectIdentifier(o)] != nil { continue }
                    if let stored = upserts.takeovers[ObjectIdentifier(o)] {
                        try writeUpsert(o, over: stored, upserts.policy, newKeys, tx, ref, &attempt)
                        continue
                    }
                }
                let values = try rowValues(o, newKeys)
                let row = StoreRowWrite(entity: o.entity, primaryKey: key, version: 1, values: try o.storedForm(values))
                try tx.insert(row)
                attempt.written.append((o, attempt.rows.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values), ref))
            }
            // Each list on its own: concatenating them copied (and retained) every new object.
            try writeMembers(share.inserts, newKeys, tx, upserts: upserts)
            try writeMembers(skipped.isEmpty ? share.updates : share.updates.filter { !skipped.contains(ObjectIdentifier($0)) }, newKeys, tx)
        }
    }

    /// New objects take the keys of the rows they take over; those that gave way, the key
    /// of the object they gave way to (so what related to them relates to it).
    private func takeKeys(_ upserts: ConstraintResolution, _ plan: [StoreShare], _ newKeys: inout NewPrimaryKeys) {
        for share in plan {
            for o in share.inserts { if let row = upserts.takeovers[ObjectIdentifier(o)] { newKeys[o] = row.primaryKey } }
        }
        for o in upserts.mergedObjects {
            if let winner = upserts.merged[ObjectIdentifier(o)], let key = newKeys[winner] { newKeys[o] = key }
        }
    }

    /// A new object written over the stored row it takes over, the policy deciding each value.
    private func writeUpsert(_ o: ManagedObject, over stored: RowSnapshot, _ policy: MergePolicyType, _ newKeys: NewPrimaryKeys,
                             _ tx: StoreSaveTransaction, _ ref: StoreRef, _ attempt: inout SaveAttempt) throws(ObjectGraphError)
    {
        let values = upsertValues(o, over: stored, try rowValues(o, newKeys), policy)
        let (version, overflow) = stored.version.addingReportingOverflow(1)
        let row = StoreRowWrite(entity: o.entity, primaryKey: stored.primaryKey, version: overflow ? stored.version : version, values: try o.storedForm(values))
        try tx.update(row)
        attempt.written.append((o, attempt.rows.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values), ref))
    }

    /// A write that checked the version and found the row moved ends the attempt.
    private func requireWritten(_ written: Bool, _ o: ManagedObject, _ attempt: inout SaveAttempt) throws(ObjectGraphError) {
        guard !written else { return }
        attempt.versionMoved = true
        throw Self.versionMoved(o)
    }

    /// Writes the contents of changed to-many relationships the members' rows do not
    /// carry: many-to-many and inverse-less ones (join tables) and the order of ordered ones.
    func writeMembers(_ objects: [ManagedObject], _ newKeys: NewPrimaryKeys, _ tx: StoreSaveTransaction,
                      upserts: ConstraintResolution = ConstraintResolution()) throws(ObjectGraphError)
    {
        for o in objects {
            var takesOver = false
            if !upserts.isEmpty {
                if upserts.merged[ObjectIdentifier(o)] != nil { continue }
                takesOver = upserts.takeovers[ObjectIdentifier(o)] != nil
            }
            let layout = o.layout
            for slot in layout.toManySlots {
                guard case .toMany(let r) = layout.kinds[slot], !r.isTransient, let s = o.state(slot) else { continue }
                guard o.isInserted || o.isChanged(slot) else { continue }
                if takesOver && !upsertWritesMembers(o, slot, upserts.policy) { continue }
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
