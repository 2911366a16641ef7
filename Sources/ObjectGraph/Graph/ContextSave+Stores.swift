/// Saving over several stores: which store each change goes to, store assignment of new
/// objects (§2.4), the refusal of relationships across stores (133010), and permanent IDs.
extension ManagedObjectContext {
    /// One store's part of a save.
    struct StoreShare {
        let store: PersistentStoreCoordinator.AttachedStore
        var inserts: [ManagedObject] = []
        var updates: [ManagedObject] = []
        var deletes: [ManagedObject] = []
    }

    /// Assigns a new object to `store` (`assignObject:toPersistentStore:`): it is saved
    /// there instead of the first store that holds its entity. Only a new object of this
    /// context without a permanent ID can be assigned, to an attached store whose
    /// configuration holds its entity; anything else is 140002.
    public func assign(_ object: ManagedObject, to store: PersistentStore) throws(ObjectGraphError) {
        try checkThread()
        guard object.managedObjectContext === self, object.isInserted else {
            throw .invalidArgument("only a new object of this context can be assigned to a store; \(object) is not one")
        }
        guard object.objectID.isTemporaryID else {
            throw .invalidArgument("\(object) already has a permanent ID in its store and cannot move to another")
        }
        try persistentStoreCoordinator.checkAssignable(object.entity, to: store)
        storeAssignments[ObjectIdentifier(object)] = store
    }

    /// The store a new object will be saved to (its assignment, or the default of §2.4);
    /// nil when no attached store can hold it.
    public func assignedStore(of object: ManagedObject) -> PersistentStore? {
        guard object.managedObjectContext === self else { return nil }
        if !object.objectID.isTemporaryID { return persistentStoreCoordinator.persistentStore(withIdentifier: object.objectID.storeIdentifier ?? "") }
        return try? persistentStoreCoordinator.storeForNewObject(object.entity, assigned: storeAssignments[ObjectIdentifier(object)]).store
    }

    /// The store a changed object belongs to.
    private func storeRecord(of o: ManagedObject) throws(ObjectGraphError) -> PersistentStoreCoordinator.AttachedStore {
        if o.objectID.isTemporaryID {
            return try persistentStoreCoordinator.storeForNewObject(o.entity, assigned: storeAssignments[ObjectIdentifier(o)])
        }
        let coordinator = persistentStoreCoordinator
        return try coordinator.lock.withLock { () throws(ObjectGraphError) in try coordinator.record(for: o.objectID) }
    }

    /// Splits a save by store (in the order the stores were added) and refuses
    /// relationships between objects of different stores.
    func planSave(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject], checkingRelationships: Bool = true)
        throws(ObjectGraphError) -> [StoreShare]
    {
        var shares: [StoreShare] = []
        var shareOfSlot: [Int32: Int] = [:]
        var slotOf: [ObjectIdentifier: Int32] = [:]
        // Resolved once per entity (unassigned new objects) or per store (saved objects),
        // not once per object: a save of many objects stays as fast as with one store.
        var defaultStore: [ObjectIdentifier: PersistentStoreCoordinator.AttachedStore] = [:]
        var lastSaved: PersistentStoreCoordinator.AttachedStore?
        func resolve(_ o: ManagedObject) throws(ObjectGraphError) -> PersistentStoreCoordinator.AttachedStore {
            if o.hasTemporaryID {
                if !storeAssignments.isEmpty, storeAssignments[ObjectIdentifier(o)] != nil { return try storeRecord(of: o) }
                if let known = defaultStore[ObjectIdentifier(o.entity)] { return known }
                let found = try storeRecord(of: o)
                defaultStore[ObjectIdentifier(o.entity)] = found
                return found
            }
            if let last = lastSaved, last.store.identifier == o.objectID.storeIdentifier { return last }
            let found = try storeRecord(of: o)
            lastSaved = found
            return found
        }
        // With one store attached no relationship can cross stores: no per-object bookkeeping.
        let severalStores = persistentStoreCoordinator.lock.withLock { persistentStoreCoordinator.attached.count > 1 }
        var last: (slot: Int32, share: Int)? = nil
        // The entity of the previous new object placed by its entity alone, and its share:
        // new objects of one entity come in runs and go to the same store.
        var lastNew: (entity: ObjectIdentifier, share: Int)? = nil
        let byEntityAlone = storeAssignments.isEmpty && !severalStores
        func place(_ o: ManagedObject, _ kind: Int) throws(ObjectGraphError) {
            if kind == 0, byEntityAlone, let lastNew, lastNew.entity == ObjectIdentifier(o.entity), o.hasTemporaryID {
                shares[lastNew.share].inserts.append(o)
                return
            }
            let record = try resolve(o)
            let i: Int
            if let last, last.slot == record.slot { i = last.share } else if let found = shareOfSlot[record.slot] { i = found } else {
                i = shares.count
                shareOfSlot[record.slot] = i
                shares.append(StoreShare(store: record))
            }
            last = (record.slot, i)
            if kind == 0, byEntityAlone, o.hasTemporaryID { lastNew = (ObjectIdentifier(o.entity), i) }
            if severalStores { slotOf[ObjectIdentifier(o)] = record.slot }
            switch kind {
            case 0: shares[i].inserts.append(o)
            case 1: shares[i].updates.append(o)
            default: shares[i].deletes.append(o)
            }
        }
        for o in inserts { try place(o, 0) }
        for o in updates { try place(o, 1) }
        for o in deletes { try place(o, 2) }
        if checkingRelationships, severalStores {
            try refuseCrossStoreRelationships(inserts + updates, slotOf)
        }
        return shares.sorted { $0.store.slot < $1.store.slot }
    }

    /// A relationship may only join objects of one store (133010,
    /// `NSManagedObjectExternalRelationshipError`): the error names both objects.
    private func refuseCrossStoreRelationships(_ objects: [ManagedObject], _ slotOf: [ObjectIdentifier: Int32]) throws(ObjectGraphError) {
        func slot(_ o: ManagedObject) -> Int32? {
            if let s = slotOf[ObjectIdentifier(o)] { return s }
            if o.objectID.isTemporaryID { return try? persistentStoreCoordinator.storeForNewObject(o.entity, assigned: storeAssignments[ObjectIdentifier(o)]).slot }
            return persistentStoreCoordinator.storeRef(forIdentifier: o.objectID.storeIdentifier)?.slot
        }
        for o in objects {
            guard let own = slotOf[ObjectIdentifier(o)] else { continue }
            for (index, kind) in o.entity.layout.kinds.enumerated() {
                let r: RelationshipDescription
                switch kind {
                case .toOne(let x), .toMany(let x): r = x
                default: continue
                }
                guard !r.isTransient, let state = o.state(index) else { continue }
                for other in (state.target.map { [$0] } ?? []) + state.members where !other.isDeleted {
                    guard let theirs = slot(other), theirs != own else { continue }
                    throw ObjectGraphError(
                        code: ErrorCode.externalRelationship,
                        message: "\(o) and \(other) are related through '\(r.qualifiedName)' but belong to different stores; a relationship cannot cross stores (use the object ID URI as a reference instead)",
                        userInfo: [(ErrorUserInfoKey.validationObject, o.objectID.uriRepresentation), (ErrorUserInfoKey.validationKey, r.name),
                                   (ErrorUserInfoKey.validationValue, other.objectID.uriRepresentation)])
                }
            }
        }
    }

    /// Hands out keys in blocks, one allocation per hierarchy in insertion order; objects
    /// that obtained permanent IDs early keep them.
    /// Gives every object of `inserts` its primary key in `newKeys` (new keys from `tx` for
    /// those with temporary IDs); returns the keys in the order of `inserts` too, so that
    /// writing the rows in that order needs no lookup per object.
    @discardableResult
    func allocateKeys(_ inserts: [ManagedObject], _ tx: StoreSaveTransaction, _ newKeys: inout NewPrimaryKeys) throws(ObjectGraphError) -> [Int64] {
        // Grouped by hierarchy in order of first appearance. New objects of one entity come in
        // runs, so the hierarchy is looked up once per run, not once per object.
        var groups: [(root: EntityDescription, fresh: [ManagedObject], at: [Int])] = []
        var groupOfRoot: [ObjectIdentifier: Int] = [:]
        var lastEntity: EntityDescription? = nil
        var group = 0
        var keys = [Int64](repeating: 0, count: inserts.count)
        for (position, o) in inserts.enumerated() {
            if o.entity !== lastEntity {
                lastEntity = o.entity
                let root = o.entity.rootEntity
                if let known = groupOfRoot[ObjectIdentifier(root)] {
                    group = known
                } else {
                    group = groups.count
                    groupOfRoot[ObjectIdentifier(root)] = group
                    groups.append((root, [], []))
                }
            }
            if o.hasTemporaryID {
                groups[group].fresh.append(o)
                groups[group].at.append(position)
            } else {
                keys[position] = o.objectID.primaryKey
                newKeys[o] = keys[position]
            }
        }
        for (root, fresh, at) in groups where !fresh.isEmpty {
            // The store checked that first ... first + count - 1 are all keys.
            let first = try tx.allocatePrimaryKeys(for: root, count: fresh.count)
            for (i, o) in fresh.enumerated() {
                keys[at[i]] = first &+ Int64(i)
                newKeys[o] = first &+ Int64(i)
            }
        }
        return keys
    }

    /// Gives `pending` (new objects with temporary IDs) permanent IDs from the stores they
    /// will be saved to, one transaction per store.
    func assignPermanentIDs(_ pending: [ManagedObject]) throws(ObjectGraphError) {
        let shares = try planSave(pending, [], [], checkingRelationships: false)
        try obtainStoreIDs(shares)
        var newKeys = NewPrimaryKeys()
        try persistentStoreCoordinator.save(shares.map(\.store)) { transactions throws(ObjectGraphError) in
            for (share, tx) in zip(shares, transactions) { try allocateKeys(share.inserts, tx, &newKeys) }
        }
        for share in shares {
            let ref = share.store.ref
            for o in share.inserts {
                guard let pk = newKeys[o] else { continue }
                o.objectID = ManagedObjectID(entity: o.entity, primaryKey: pk, storeIdentifier: ref.identifier)
                register(o, Self.key(o.entity, pk, ref))
            }
        }
    }

    // MARK: Stores that take saves as requests

    /// New objects bound for a store that names its own objects (`ObjectSavingStore`) get
    /// their permanent IDs from it, before anything is written.
    func obtainStoreIDs(_ shares: [StoreShare]) throws(ObjectGraphError) {
        guard persistentStoreCoordinator.hasObjectLevelStores else { return }
        for share in shares {
            guard let store = share.store.store as? ObjectSavingStore else { continue }
            let fresh = share.inserts.filter(\.hasTemporaryID)
            guard !fresh.isEmpty else { continue }
            let ids = try RequestingContext.with(self) { () throws(ObjectGraphError) in try store.obtainPermanentIDs(for: fresh, context: self) }
            let ref = share.store.ref
            for (o, id) in zip(fresh, ids) {
                let key = Self.key(o.entity, id.primaryKey, ref)
                if let other = registeredObject(key), other !== o {
                    throw .invalidArgument("the store '\(store.type)' gave \(o) the ID \(id.uriRepresentation), which names \(other) already")
                }
                o.objectID = id
                register(o, key)
            }
        }
    }

    /// One save request per store that takes them, with its share of the save (empty when
    /// the save changes nothing there). The context may not save again meanwhile.
    func sendSaveRequests(_ plan: [StoreShare]) throws(ObjectGraphError) {
        isSendingSaveRequests = true
        defer { isSendingSaveRequests = false }
        for share in plan {
            guard let store = share.store.store as? ObjectSavingStore else { continue }
            let request = SaveChangesRequest(inserted: share.inserts, updated: share.updates, deleted: share.deletes, locked: [])
            try RequestingContext.with(self) { () throws(ObjectGraphError) in try store.executeSave(request, context: self) }
        }
    }
}
