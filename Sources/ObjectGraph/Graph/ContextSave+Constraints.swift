/// Uniqueness constraints (an entity's `uniquenessConstraints`, its superentities' too):
/// inside a save's store transactions, before anything is written, the values each new or
/// changed object holds in a constraint's properties are compared with the save's other
/// objects and with the store's rows. The merge policy then fails the save with 133021,
/// writing nothing, or lets it upsert: a new object takes over the stored row and its ID.
extension ManagedObjectContext {
    /// What the merge policy decided for a save's constraint conflicts.
    struct ConstraintResolution {
        /// New objects that take over a stored row, with that row.
        var takeovers: [ObjectIdentifier: RowSnapshot] = [:]
        var takenOver: [ManagedObject] = []
        /// New objects that gave way to another new object holding the same values, with
        /// that object: they are never written, and what related to them relates to it.
        var merged: [ObjectIdentifier: ManagedObject] = [:]
        var mergedObjects: [ManagedObject] = []
        /// This context's objects for rows a new object took over: they leave the context.
        var replaced: [ManagedObject] = []
        /// The policy the upserts follow.
        var policy = MergePolicyType.error

        var isEmpty: Bool { takeovers.isEmpty && merged.isEmpty }
    }

    /// One constraint of a concrete entity: its names and the slots they have there.
    struct CheckedConstraint {
        let names: [String]
        let slots: [Int]
        /// Which declaration this is (declaring entity, position): constraints inherited
        /// by several subentities compare across them.
        let identity: ConstraintIdentity
    }

    struct ConstraintIdentity: Hashable {
        let declaring: ObjectIdentifier
        let position: Int
    }

    private struct GroupKey: Hashable {
        let root: ObjectIdentifier
        let constraint: ConstraintIdentity
        let values: [AttributeValue]
    }

    /// Every constraint `entity` must keep, with the slots of its properties; constraints
    /// naming a to-many or transient property cannot be kept by a row and are left out.
    static func keptConstraints(of entity: EntityDescription) -> [CheckedConstraint] {
        var out: [CheckedConstraint] = []
        var declaring: EntityDescription? = entity
        while let d = declaring {
            for (position, names) in d.uniquenessConstraints.enumerated() {
                var slots: [Int] = []
                for name in names {
                    guard let slot = entity.slot(forKey: name), !entity.layout.properties[slot].isTransient else { break }
                    switch entity.layout.kinds[slot] {
                    case .attribute, .toOne: slots.append(slot)
                    case .toMany: break
                    }
                }
                guard slots.count == names.count, !slots.isEmpty else { continue }
                out.append(CheckedConstraint(names: names, slots: slots, identity: ConstraintIdentity(declaring: ObjectIdentifier(d), position: position)))
            }
            declaring = d.superentity
        }
        return out
    }

    /// The values of a constraint by property name, as a conflict reports them: a to-one's
    /// as its destination's ID.
    static func constraintValues(_ c: CheckedConstraint, _ held: [AttributeValue], _ entity: EntityDescription, _ store: StoreRef) -> [String: SnapshotValue] {
        var values: [String: SnapshotValue] = [:]
        for (name, (slot, value)) in zip(c.names, zip(c.slots, held)) {
            if case .toOne(let r) = entity.layout.kinds[slot], case .integer(let pk) = value, let destination = r.destinationEntity {
                values[name] = .object(ManagedObjectID(entity: destination, primaryKey: pk, storeIdentifier: store.identifier))
            } else {
                values[name] = .attribute(value)
            }
        }
        return values
    }

    /// Finds the conflicts of every store's share, lets the merge policy see them, and
    /// returns what the save does about them (throwing 133021 when it cannot upsert).
    func checkConstraints(_ plan: [StoreShare], _ transactions: [StoreSaveTransaction], skipped: Set<ObjectIdentifier>,
                          _ newKeys: NewPrimaryKeys) throws(ObjectGraphError) -> ConstraintResolution
    {
        var conflicts: [ConstraintConflict] = []
        var known: [ObjectIdentifier: [CheckedConstraint]] = [:]
        func constraints(_ e: EntityDescription) -> [CheckedConstraint] {
            if let c = known[ObjectIdentifier(e)] { return c }
            let c = Self.keptConstraints(of: e)
            known[ObjectIdentifier(e)] = c
            return c
        }
        for (share, tx) in zip(plan, transactions) {
            // Objects of one entity come in runs: one look per run, and no copy of the lists.
            var lastEntity: EntityDescription?
            func constrained(_ o: ManagedObject) -> Bool {
                if o.entity === lastEntity { return false }
                lastEntity = o.entity
                return !constraints(o.entity).isEmpty
            }
            guard share.inserts.contains(where: constrained) || share.updates.contains(where: constrained) else { continue }
            // Rows this save updates or deletes are compared by their new values (or not at all).
            var pendingKeys: [ObjectIdentifier: Set<Int64>] = [:]
            for o in share.updates + share.deletes { pendingKeys[ObjectIdentifier(o.entity.rootEntity), default: []].insert(o.objectID.primaryKey) }
            var groups: [GroupKey: [ManagedObject]] = [:]
            var order: [(GroupKey, CheckedConstraint)] = []
            let candidates = share.inserts + share.updates.filter { !skipped.contains(ObjectIdentifier($0)) && !$0.isDeleted }
            for o in candidates {
                let checked = constraints(o.entity)
                if checked.isEmpty { continue }
                var values: [AttributeValue]?
                for c in checked {
                    if !o.isInserted && !c.slots.contains(where: o.isChanged) { continue }
                    if values == nil { values = try o.storedForm(try rowValues(o, newKeys)) }
                    let held = c.slots.map { values![$0] }
                    // NULL never equals NULL in a unique index.
                    if held.contains(.null) { continue }
                    let key = GroupKey(root: ObjectIdentifier(o.entity.rootEntity), constraint: c.identity, values: held)
                    if groups[key] == nil { order.append((key, c)) }
                    groups[key, default: []].append(o)
                }
            }
            for (key, c) in order {
                let objects = groups[key]!
                let first = objects[0]
                let stored = try tx.rows(of: first.entity, slots: c.slots, holding: key.values) ?? []
                let others = stored.filter { !(pendingKeys[key.root]?.contains($0.primaryKey) ?? false) }
                guard objects.count > 1 || !others.isEmpty else { continue }
                let row = others.first
                let database = try row.map { r throws(ObjectGraphError) in try object(entity: r.entity, primaryKey: r.primaryKey, in: share.store.ref) }
                conflicts.append(ConstraintConflict(
                    constraint: c.names, values: Self.constraintValues(c, key.values, first.entity, share.store.ref), objects: objects,
                    databaseObject: database, databaseRow: row))
            }
        }
        guard !conflicts.isEmpty else { return ConstraintResolution() }
        try mergePolicy.resolve(constraintConflicts: conflicts)
        guard mergePolicy.mergeType != .error else {
            throw ConstraintConflict.error(conflicts, why: "and the merge policy resolved none of them")
        }
        return try upserts(conflicts)
    }

    /// The upserts that resolve `conflicts` under the context's merge policy: of new objects
    /// holding the same values the one changed last stays, and it takes over the stored row.
    private func upserts(_ conflicts: [ConstraintConflict]) throws(ObjectGraphError) -> ConstraintResolution {
        var resolution = ConstraintResolution()
        resolution.policy = mergePolicy.mergeType
        var unresolvable: [ConstraintConflict] = []
        for c in conflicts {
            // Two saved rows cannot become one: an object already saved that now holds
            // another row's values is for the application to settle.
            guard c.conflictingObjects.allSatisfy(\.isInserted) else { unresolvable.append(c); continue }
            var winner = c.conflictingObjects[0]
            for o in c.conflictingObjects.dropFirst() where o.lastChange >= winner.lastChange { winner = o }
            if let next = resolution.merged[ObjectIdentifier(winner)] { winner = next }
            for o in c.conflictingObjects where o !== winner && resolution.merged[ObjectIdentifier(o)] == nil {
                resolution.merged[ObjectIdentifier(o)] = winner
                resolution.mergedObjects.append(o)
            }
            guard let row = c.databaseRow else { continue }
            if let taken = resolution.takeovers[ObjectIdentifier(winner)], taken.primaryKey != row.primaryKey {
                unresolvable.append(c)  // one object, two stored rows
                continue
            }
            // A row of another entity of the hierarchy keeps its entity.
            guard row.entity === winner.entity else { unresolvable.append(c); continue }
            if resolution.takeovers.updateValue(row, forKey: ObjectIdentifier(winner)) == nil { resolution.takenOver.append(winner) }
            if let old = c.databaseObject, old !== winner, !resolution.replaced.contains(where: { $0 === old }) { resolution.replaced.append(old) }
        }
        guard unresolvable.isEmpty else {
            throw ConstraintConflict.error(unresolvable, why: "that no merge policy resolves (an object already saved holds another row's values, or one object meets rows of two entities or two rows)")
        }
        return resolution
    }

    /// The values a new object writes over the row it takes over, by policy: overwrite
    /// writes the object's; object trump its changed properties over the row's; store trump
    /// the row's where it holds a value, the object's elsewhere; rollback the row's.
    func upsertValues(_ o: ManagedObject, over row: RowSnapshot, _ values: [AttributeValue], _ policy: MergePolicyType) -> [AttributeValue] {
        var out = values
        let layout = o.layout
        for slot in 0..<out.count where !layout.properties[slot].isTransient {
            if case .toMany = layout.kinds[slot] { continue }
            switch policy {
            case .error, .overwrite: break
            case .mergeByPropertyObjectTrump: if !o.isChanged(slot) { out[slot] = row[slot] }
            case .mergeByPropertyStoreTrump: if row[slot] != .null { out[slot] = row[slot] }
            case .rollback: out[slot] = row[slot]
            }
        }
        return out
    }

    /// Whether an upserting object writes its to-many `slot` over the row's members.
    func upsertWritesMembers(_ o: ManagedObject, _ slot: Int, _ policy: MergePolicyType) -> Bool {
        switch policy {
        case .error, .overwrite: true
        case .mergeByPropertyObjectTrump: o.isChanged(slot)
        case .mergeByPropertyStoreTrump, .rollback: false
        }
    }

    /// After the commit: objects that gave way leave the context, as do the objects of rows
    /// taken over; the objects that took rows over read their relationships again.
    func finishUpserts(_ resolution: ConstraintResolution) {
        for o in resolution.replaced { leaveContext(o, deleted: false) }
        for o in resolution.mergedObjects {
            // Never saved: it has a temporary ID, under which nothing registered it.
            o.isInserted = false
            leaveContext(o, deleted: false)
            if !storeAssignments.isEmpty { storeAssignments.removeValue(forKey: ObjectIdentifier(o)) }
        }
    }
}
