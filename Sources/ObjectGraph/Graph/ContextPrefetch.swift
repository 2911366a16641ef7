/// Prefetching (`relationshipKeyPathsForPrefetching`, §2.13 rule 10): the destinations
/// along each key path are read for all the fetched objects together — one store read
/// per relationship of the path, not one per object — registered, and set as the
/// sources' loaded relationship contents, so following them later reads nothing.
extension ManagedObjectContext {
    func prefetch(_ keyPaths: [String], of objects: [ManagedObject]) throws(ObjectGraphError) {
        // A child's relationships are read through its parent as they are used.
        if parentContext != nil { return }
        for path in keyPaths {
            var sources = objects
            let names = path.split(separator: ".")
            for (i, name) in names.enumerated() {
                if sources.isEmpty { break }
                sources = try prefetchStep(String(name), of: sources, last: i == names.count - 1)
            }
        }
    }

    /// Loads relationship `name` of `sources`; returns the destinations, for the next step
    /// (none after the `last` step: gathering them would retain every one for nothing).
    private func prefetchStep(_ name: String, of sources: [ManagedObject], last: Bool) throws(ObjectGraphError) -> [ManagedObject] {
        try loadUnloadedRows(of: sources)
        var byRelationship: [ObjectIdentifier: (RelationshipDescription, [ManagedObject])] = [:]
        for o in sources {
            guard let slot = o.entity.slot(forKey: name) else { continue }  // a subentity's key: absent here
            switch o.layout.kinds[slot] {
            case .toOne(let r), .toMany(let r): byRelationship[ObjectIdentifier(r), default: (r, [])].1.append(o)
            case .attribute: throw FetchValidation.notARelationship(name, o.entity)
            }
        }
        var destinations: [ManagedObject] = []
        for (r, owners) in byRelationship.values {
            if r.isToMany { try prefetchToMany(r, owners) } else { try prefetchToOne(r, owners) }
            if last { continue }
            for o in owners {
                if r.isToMany { destinations += try o.toMany(r, self).members } else if let d = try o.toOne(r, self) { destinations.append(d) }
            }
        }
        return destinations
    }

    /// Faults fetched without values get theirs in one read per store and hierarchy.
    private func loadUnloadedRows(of faults: [ManagedObject]) throws(ObjectGraphError) {
        var groups: [String: [ObjectIdentifier: (EntityDescription, [Int64])]] = [:]
        for o in faults where o.isUnloaded {
            let root = o.entity.rootEntity
            groups[o.objectID.storeIdentifier ?? "", default: [:]][ObjectIdentifier(root), default: (root, [])].1.append(o.objectID.primaryKey)
        }
        for (identifier, byRoot) in groups {
            guard let store = persistentStoreCoordinator.storeRef(forIdentifier: identifier) else { continue }
            for (root, keys) in byRoot.values {
                _ = objects(for: try persistentStoreCoordinator.fetchRows(entity: root, primaryKeys: keys, in: store), in: store)
            }
        }
    }

    /// `objects` split by the store they come from, each store resolved once.
    private func byStore(_ objects: [ManagedObject]) -> [(StoreRef, [ManagedObject])] {
        var groups: [String: [ManagedObject]] = [:]
        var order: [String] = []
        for o in objects {
            let identifier = o.objectID.storeIdentifier ?? ""
            if groups[identifier] == nil { order.append(identifier) }
            groups[identifier, default: []].append(o)
        }
        return order.compactMap { id in persistentStoreCoordinator.storeRef(forIdentifier: id).map { ($0, groups[id]!) } }
    }

    private func prefetchToOne(_ r: RelationshipDescription, _ owners: [ManagedObject]) throws(ObjectGraphError) {
        guard let destination = r.destinationEntity else { return }
        // A to-one points into its owner's store (relationships never cross stores).
        for (store, group) in byStore(owners.filter { $0.state(r.slot) == nil && !$0.isInserted }) {
            var wanted: [Int64] = []
            for o in group {
                guard case .integer(let pk)? = o.snapshot?[r.slot] else { continue }
                if let d = registeredObject(Self.key(destination, pk, store)), !d.isUnloaded { continue }
                wanted.append(pk)
            }
            if !wanted.isEmpty {
                _ = objects(for: try persistentStoreCoordinator.fetchRows(entity: destination, primaryKeys: wanted, in: store), in: store)
            }
        }
    }

    private func prefetchToMany(_ r: RelationshipDescription, _ owners: [ManagedObject]) throws(ObjectGraphError) {
        for (store, unloaded) in byStore(owners.filter { $0.state(r.slot) == nil && !$0.isInserted }) {
            var fetched = try persistentStoreCoordinator.fetchMembers(ofAny: unloaded.map(\.primaryKey), through: r, in: store)
            // Taken out, so that `objects(for:)` holds the only reference and moves each row.
            let rows = fetched.rows
            fetched.rows = []
            let members = objects(for: consume rows, in: store)
            let runs = MemberRuns(owners: fetched.owners)
            // Through a to-one inverse, pending changes move members: as `objects(pointingAt:)`.
            let inverse = r.inverseRelationship.flatMap { $0.isToMany ? nil : $0 }
            var pendingByTarget: [ObjectIdentifier: [ManagedObject]] = [:]
            if let inverse, let kind = inverse.entity {
                for list in [inserted, updated] {
                    for o in list.objects where o.entity.isKind(of: kind) {
                        if let t = o.state(inverse.slot)?.target { pendingByTarget[ObjectIdentifier(t), default: []].append(o) }
                    }
                }
            }
            for o in unloaded {
                let s: RelationState
                if let inverse {
                    // Each row holds one owner key, so a run has no member twice: no need to check.
                    var list: [ManagedObject] = []
                    runs.forEach(of: o.primaryKey) { i in
                        let m = members[i]
                        if m.isDeleted { return }
                        if let t = m.state(inverse.slot), t.target !== o { return }
                        list.append(m)
                    }
                    s = RelationState(distinctMembers: list)
                } else {
                    s = RelationState()
                    runs.forEach(of: o.primaryKey) { i in if !members[i].isDeleted { s.add(members[i]) } }
                }
                for m in pendingByTarget[ObjectIdentifier(o)] ?? [] { s.add(m) }
                o.setState(s, r.slot)
            }
        }
    }
}
