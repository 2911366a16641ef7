/// Optimistic locking (§2.9): inside a save's store transactions, before anything is
/// written, each updated and deleted object's row version is compared with the
/// coordinator's newest row and with the store's row; the merge policy resolves what
/// differs, or the save fails with 133020 and writes nothing.
extension ManagedObjectContext {
    /// What optimistic locking decided for a save.
    struct ConflictResolution {
        /// Objects not to write: changes that gave way to the store, deletes of rows already gone.
        var skipped = Set<ObjectIdentifier>()
        /// Updated objects whose rows are gone: they leave the context.
        var forgotten: [ManagedObject] = []
        /// Objects a policy resolved and that stay: told with `awakeFromSnapshotEvents(.mergePolicy)`.
        var resolved: [ManagedObject] = []
    }

    /// Loads the row (and so the version) of changed objects that were never read: a
    /// relationship edit can change a fault without firing it.
    func loadVersions(_ objects: [ManagedObject]) throws(ObjectGraphError) {
        for o in objects where !o.isInserted && o.snapshot == nil { try o.fireFault(self) }
    }

    /// Finds the conflicts of every store's share and lets the merge policy resolve them.
    func checkVersions(_ plan: [StoreShare], _ transactions: [StoreSaveTransaction]) throws(ObjectGraphError) -> ConflictResolution {
        var resolution = ConflictResolution()
        var conflicts: [MergeConflict] = []
        for (share, tx) in zip(plan, transactions) {
            try findConflicts(share, tx, &conflicts, &resolution)
        }
        guard !conflicts.isEmpty else { return resolution }
        try mergePolicy.resolve(optimisticLockingConflicts: conflicts)
        for c in conflicts {
            switch c.outcome {
            case .write: resolution.resolved.append(c.sourceObject)
            case .skip:
                resolution.skipped.insert(ObjectIdentifier(c.sourceObject))
                resolution.resolved.append(c.sourceObject)
            case .forget:
                resolution.skipped.insert(ObjectIdentifier(c.sourceObject))
                if !c.sourceObject.isDeleted { resolution.forgotten.append(c.sourceObject) }
            }
        }
        return resolution
    }

    private func findConflicts(_ share: StoreShare, _ tx: StoreSaveTransaction, _ conflicts: inout [MergeConflict],
                               _ resolution: inout ConflictResolution) throws(ObjectGraphError)
    {
        let candidates = (share.updates + share.deletes).filter { expectedVersion($0) != nil }
        guard !candidates.isEmpty else { return }
        let ref = share.store.ref
        var byRoot: [ObjectIdentifier: (root: EntityDescription, keys: [Int64])] = [:]
        for o in candidates { byRoot[ObjectIdentifier(o.entity.rootEntity), default: (o.entity.rootEntity, [])].keys.append(o.primaryKey) }
        var versions: [ObjectIdentifier: [Int64: Int64]] = [:]
        for (id, group) in byRoot {
            if let v = try tx.currentVersions(of: group.root, primaryKeys: group.keys) { versions[id] = v }
        }
        let coordinator = persistentStoreCoordinator
        for o in candidates {
            let old = o.snapshot?.version ?? 0
            let cached = coordinator.rowCache.entry(RowCache.key(o.entity, o.primaryKey, ref))
            let cacheNewer = cached.map { $0.version > old } ?? false
            let storeVersion: Int64? = versions[ObjectIdentifier(o.entity.rootEntity)].map { $0[o.primaryKey] ?? 0 }
            let storeDiffers = storeVersion.map { $0 != old } ?? false
            guard cacheNewer || storeDiffers else { continue }
            let gone = storeVersion == 0 || (storeVersion == nil && cacheNewer && cached?.row == nil)
            if o.isDeleted && gone {
                // Deleted on both sides: what the delete wanted holds already.
                resolution.skipped.insert(ObjectIdentifier(o))
                continue
            }
            let coordinatorVersion = cacheNewer ? cached!.version : old
            let persistedDiffers = storeVersion.map { $0 != coordinatorVersion && $0 != 0 } ?? false
            let persisted = persistedDiffers ? try tx.currentRow(of: o.entity, primaryKey: o.primaryKey) : nil
            let newVersion = gone ? 0 : (storeVersion ?? cached?.version ?? 0)
            // What another writer committed is now the newest row this coordinator knows,
            // so a refresh after the conflict catches up whatever the staleness interval.
            let key = RowCache.key(o.entity, o.primaryKey, ref)
            if let persisted {
                coordinator.rowCache.record(key, row: persisted, version: persisted.version)
            } else if storeVersion == 0 {
                let newest = max(old, cached?.version ?? 0)
                coordinator.rowCache.record(key, row: nil, version: newest == .max ? newest : newest + 1)
            }
            conflicts.append(MergeConflict(
                object: o, old: o.snapshot, cached: cached?.row, cachedIsNewer: cacheNewer && cached?.row != nil,
                persisted: persisted, persistedDiffers: persisted != nil, oldVersion: old, newVersion: newVersion,
                storeKnowsRow: storeVersion != nil))
        }
    }

    /// The version an object's row must still have when written: the one it was read at.
    /// nil for rows this save creates.
    func expectedVersion(_ o: ManagedObject) -> Int64? {
        o.isInserted || o.objectID.isTemporaryID ? nil : o.snapshot?.version ?? 0
    }

    /// Whether the coordinator holds a newer row than some updated or deleted object was
    /// read at (another context's save): a conflict found without asking the store.
    func coordinatorKnowsNewerRows(_ plan: [StoreShare]) -> Bool {
        let rowCache = persistentStoreCoordinator.rowCache
        if rowCache.isEmpty { return false }
        for share in plan {
            let ref = share.store.ref
            for list in [share.updates, share.deletes] {
                for o in list {
                    guard let version = expectedVersion(o), let cached = rowCache.entry(RowCache.key(o.entity, o.primaryKey, ref)) else { continue }
                    if cached.version > version { return true }
                }
            }
        }
        return false
    }

    /// Ends a save's first attempt, whose write found a row no longer at the version read:
    /// the attempt rolls back and the save checks every version before writing again.
    static func versionMoved(_ o: ManagedObject) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.merge,
            message: "the row of \(o.objectID.uriRepresentation) is no longer at the version it was read at")
    }

    /// After the commit, under the coordinator's lock: the coordinator learns the rows this
    /// save updated and deleted, so other contexts holding older versions conflict. Not
    /// while this context is the coordinator's only one and the cache holds nothing: no
    /// context can hold an older version, and a context made later reads the store.
    func recordSavedRows(_ written: [(ManagedObject, RowSnapshot, StoreRef)], _ deletes: [(ManagedObject, StoreRef)]) {
        let coordinator = persistentStoreCoordinator
        if coordinator.rowCache.isEmpty && coordinator.rootContexts.load(ordering: .relaxed) <= 1 { return }
        let now = RowCache.now()
        if let (_, row, ref) = written.first(where: { !$0.0.isInserted }) {
            coordinator.rowCache.reserveCapacity(written.count, like: RowCache.key(row.entity, row.primaryKey, ref))
        }
        for (o, row, ref) in written where !o.isInserted {
            coordinator.rowCache.record(RowCache.key(row.entity, row.primaryKey, ref), row: row, version: row.version, time: now)
        }
        for (o, ref) in deletes {
            // The tombstone is newer than the row deleted (a row at the largest version stays there).
            let version = o.snapshot?.version ?? 0
            coordinator.rowCache.record(RowCache.key(o.entity, o.primaryKey, ref), row: nil, version: version == .max ? version : version + 1, time: now)
        }
    }
}
