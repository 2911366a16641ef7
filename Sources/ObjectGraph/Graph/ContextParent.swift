#if canImport(Glibc)
import Glibc
#endif

/// Nested contexts (§1.12 `parentContext`): a child's store is its parent context. Its
/// faults fire through the parent (the parent's current values, unsaved changes included),
/// its fetches run in the parent with its own pending changes laid over them, and its save
/// pushes its changes into the parent only. New objects keep temporary IDs until the root
/// context saves; conflicts are raised there.
extension ManagedObjectContext {
    /// A row as a child sees it: the parent's current values, and the to-one destinations
    /// the values cannot name by primary key (new objects, or an owner with a temporary ID).
    struct ParentRow {
        let id: ManagedObjectID
        let row: RowSnapshot
        let targets: [Int: ManagedObjectID?]
    }

    /// Runs `body` on this (parent) context for one of its children: on its queue, waiting,
    /// for a queue context; on the calling thread, which must own it, for a confinement one.
    /// Pending changes are not processed (this is not an event of the parent).
    func withAccessFromChild<T>(_ body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        if queue == nil {
            guard link.isOwnedByCurrentThread else {
                throw .wrongThread("the confinement parent of a child context, used from another thread than its own")
            }
            return try body()
        }
        var result: Result<T, ObjectGraphError>!
        performAndWaitWithoutEvent {
            do throws(ObjectGraphError) { result = .success(try body()) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// The parent's object for an ID a child names: registered, new, or a fault.
    func objectForChild(_ id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject? {
        if id.isTemporaryID {
            if let o = temporaryObject(id) { return o }
            if let saved = formerTemporaryIDs[id] { return try object(with: saved) }
            if let parent = parentContext, try parent.withAccessFromChild({ () throws(ObjectGraphError) in try parent.objectForChild(id) != nil }) {
                return adoptTemporary(id)
            }
            return nil
        }
        return try object(with: id)
    }

    /// A new object of this context with a temporary ID, or one known here under it.
    func temporaryObject(_ id: ManagedObjectID) -> ManagedObject? {
        if let o = temporaryObjects[id] { return o }
        return inserted.objects.first { $0.objectID == id }
    }

    /// A fault for an object that exists in the parent under a temporary ID.
    func adoptTemporary(_ id: ManagedObjectID) -> ManagedObject {
        if let o = temporaryObjects[id] { return o }
        let o = ManagedObject.make(entity: id.entity, id: id, context: self, snapshot: nil)
        temporaryObjects[id] = o
        return o
    }

    /// This context's object for `object` of the parent: the same ID, registered here.
    func childObject(forParent id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        if id.isTemporaryID {
            return temporaryObject(id) ?? adoptTemporary(id)
        }
        return try object(with: id)
    }

    /// The row of `id` as `child` sees it; nil when it is gone or deleted here.
    func rowForChild(_ id: ManagedObjectID, of child: ManagedObjectContext) throws(ObjectGraphError) -> RowSnapshot? {
        let found = try withAccessFromChild { () throws(ObjectGraphError) -> ParentRow? in
            guard let o = try objectForChild(id), !o.isDeleted else { return nil }
            try o.fireFault(self)
            if o.isDeleted { return nil }
            return try parentRow(o)
        }
        guard let found else { return nil }
        child.noteTargets(found)
        return found.row
    }

    /// An object's current state as a row for a child.
    func parentRow(_ o: ManagedObject) throws(ObjectGraphError) -> ParentRow {
        var values = o.current ?? o.snapshot?.values ?? o.layout.defaults
        var targets: [Int: ManagedObjectID?] = [:]
        let ownerIsTemporary = o.objectID.isTemporaryID
        for slot in o.layout.toOneSlots {
            // Unchanged to-ones of saved objects keep the destination's key.
            if o.state(slot) == nil && !ownerIsTemporary && parentTargets[o.objectID] == nil { continue }
            guard case .toOne(let r) = o.layout.kinds[slot] else { continue }
            let t = try o.toOne(r, self)
            if let t, !t.isDeleted {
                if ownerIsTemporary || t.objectID.isTemporaryID {
                    values[slot] = .null
                    targets[slot] = t.objectID
                } else {
                    values[slot] = .integer(t.primaryKey)
                }
            } else {
                values[slot] = .null
                if ownerIsTemporary { targets[slot] = .some(nil) }
            }
        }
        let row = RowSnapshot.make(entity: o.entity, primaryKey: o.primaryKey, version: o.snapshot?.version ?? 0, values: values)
        return ParentRow(id: o.objectID, row: row, targets: targets)
    }

    /// Remembers the destinations a child's row names by ID.
    func noteTargets(_ found: ParentRow) {
        if found.targets.isEmpty { parentTargets.removeValue(forKey: found.id) } else { parentTargets[found.id] = found.targets }
    }

    /// The to-one destination of a child's object that its row names by ID, if any.
    func parentTarget(of o: ManagedObject, slot: Int) throws(ObjectGraphError) -> ManagedObject?? {
        guard let entry = parentTargets[o.objectID]?[slot] else { return nil }
        guard let id = entry else { return .some(nil) }
        return .some(try childObject(forParent: id))
    }

    /// The members of `owner`'s to-many `r` as `child` sees them (the parent's, with its changes).
    func membersForChild(_ owner: ManagedObjectID, _ r: RelationshipDescription) throws(ObjectGraphError) -> [ManagedObjectID] {
        try withAccessFromChild { () throws(ObjectGraphError) -> [ManagedObjectID] in
            guard let o = try objectForChild(owner), !o.isDeleted, o.entity.isKind(of: r.entity!) else { return [] }
            return try o.toMany(r, self).members.filter { !$0.isDeleted }.map(\.objectID)
        }
    }

    /// The objects a fetch in the parent returns, as rows for a child.
    func fetchForChild(_ request: FetchRequest, rows storeRows: inout Int) throws(ObjectGraphError) -> [ParentRow] {
        try withAccessFromChild { () throws(ObjectGraphError) -> [ParentRow] in
            let r = request.withoutWindow()
            r.includesPendingChanges = true
            r.returnsObjectsAsFaults = true
            r.relationshipKeyPathsForPrefetching = []
            var rows: [ParentRow] = []
            for o in try fetch(r, rows: &storeRows) {
                try o.fireFault(self)
                if !o.isDeleted { rows.append(try parentRow(o)) }
            }
            return rows
        }
    }

    /// A child's objects for the rows its parent fetched: known ones as they are, new ones
    /// as faults with their rows.
    func childObjects(_ rows: [ParentRow]) throws(ObjectGraphError) -> [ManagedObject] {
        var out: [ManagedObject] = []
        out.reserveCapacity(rows.count)
        for p in rows {
            let o = try childObject(forParent: p.id)
            if o.isUnloaded {
                o.snapshot = p.row
                o.rowCached = true
                noteTargets(p)
            }
            out.append(o)
        }
        return out
    }

    // MARK: Saving into the parent

    /// A child's save: its changes become the parent's pending changes.
    func pushToParent(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject]) throws(ObjectGraphError) {
        guard let parent = parentContext else { return }
        try parent.withAccessFromChild { () throws(ObjectGraphError) in
            try parent.applyChildSave(inserts, updates, deletes)
        }
        // The parent holds the values now: the child's objects read them again from there.
        for o in inserts {
            o.isInserted = false
            if o.objectID.isTemporaryID {
                temporaryObjects[o.objectID] = o
            } else if let key = key(for: o.objectID) {
                register(o, key)
            }
            if !storeAssignments.isEmpty { storeAssignments.removeValue(forKey: ObjectIdentifier(o)) }
        }
        for o in inserts + updates {
            o.current = nil
            o.snapshot = nil
            o.rowCached = false
            o.clearChanges()
            o.relations = nil
            parentTargets.removeValue(forKey: o.objectID)
        }
        for o in deletes {
            if o.objectID.isTemporaryID { temporaryObjects.removeValue(forKey: o.objectID) } else { unregister(o, key(for: o.objectID)) }
            o.managedObjectContext = nil
        }
        // Relationship contents loaded anywhere may mention what moved up.
        registered.forEach { $0.forgetRelations() }
        for o in temporaryObjects.values { o.relations = nil }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
    }

    /// In the parent: applies a child's inserts, changed values and relationships, and deletes.
    private func applyChildSave(_ inserts: [ManagedObject], _ updates: [ManagedObject], _ deletes: [ManagedObject]) throws(ObjectGraphError) {
        link.noteValuesChanged()
        var mine: [ObjectIdentifier: ManagedObject] = [:]
        for o in inserts {
            let p = ManagedObject.make(entity: o.entity, id: o.objectID, context: self, snapshot: nil)
            p.isInserted = true
            p.current = o.layout.defaults
            inserted.insert(p)
            event.inserted.insert(p)
            if !o.objectID.isTemporaryID, let key = key(for: o.objectID) { register(p, key) }
            mine[ObjectIdentifier(o)] = p
        }
        func counterpart(_ o: ManagedObject) throws(ObjectGraphError) -> ManagedObject {
            if let p = mine[ObjectIdentifier(o)] { return p }
            guard let p = try objectForChild(o.objectID) else {
                throw ObjectGraphError(code: ErrorCode.referentialIntegrity, message: "\(o) no longer exists in the parent context")
            }
            mine[ObjectIdentifier(o)] = p
            return p
        }
        for o in inserts + updates {
            let p = try counterpart(o)
            guard let values = o.current else { continue }
            for (slot, kind) in o.layout.kinds.enumerated() where o.isInserted || o.isChanged(slot) {
                guard case .attribute = kind else { continue }
                try p.setAttribute(values[slot], at: slot, self)
            }
        }
        for o in inserts + updates {
            let p = try counterpart(o)
            for (slot, kind) in o.layout.kinds.enumerated() where o.isInserted || o.isChanged(slot) {
                guard let state = o.state(slot) else { continue }
                switch kind {
                case .attribute: continue
                case .toOne(let r):
                    let target = try state.target.flatMap { t throws(ObjectGraphError) in t.isDeleted ? nil : try counterpart(t) }
                    try setToOne(p, r, target)
                case .toMany(let r):
                    var wanted: [ManagedObject] = []
                    for m in state.members where !m.isDeleted { wanted.append(try counterpart(m)) }
                    try setMembers(p, r, wanted)
                }
            }
        }
        for o in deletes {
            let p = try counterpart(o)
            if !p.isDeleted, p.managedObjectContext === self { try delete(p) }
        }
    }

    /// Makes `members` the whole contents of `owner.r`, in order, with inverses.
    func setMembers(_ owner: ManagedObject, _ r: RelationshipDescription, _ members: [ManagedObject]) throws(ObjectGraphError) {
        let wanted = Set(members.map(ObjectIdentifier.init))
        for old in try owner.toMany(r, self).members where !wanted.contains(ObjectIdentifier(old)) {
            try removeFromMany(owner, r, old)
        }
        for (i, m) in members.enumerated() {
            try addToMany(owner, r, m)
            if r.isOrdered { try owner.toMany(r, self).move(m, to: i) }
        }
        if r.isOrdered { mark(owner, r.slot) }
    }
}
