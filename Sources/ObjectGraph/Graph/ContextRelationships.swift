/// Relationship changes with inverse maintenance: whichever side changes, the other side
/// follows, on the old destination as well as the new one.
extension ManagedObjectContext {
    /// Checks that `destination` can be stored in `r`: same context, right entity.
    func check(_ destination: ManagedObject?, for r: RelationshipDescription) throws(ObjectGraphError) {
        guard let destination else { return }
        guard destination.managedObjectContext === self else {
            throw .invalidArgument("\(destination) belongs to another context than the object it is related to through '\(r.qualifiedName)'")
        }
        guard let want = r.destinationEntity, destination.entity.isKind(of: want) else {
            throw .wrongKind(key: r.name, entity: r.entity?.name ?? "?", expected: "a relationship to '\(destination.entity.name)' objects")
        }
    }

    /// Sets `object.r` to `destination` and keeps the inverse in step.
    func setToOne(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject?) throws(ObjectGraphError) {
        let old = try object.toOne(r, self)
        if old === destination { return }
        setRaw(object, r, destination)
        guard let inverse = r.inverseRelationship else { return }
        if let old { try unlink(old, inverse, object) }
        guard let destination else { return }
        if inverse.isToMany {
            willChange(destination)
            if let s = destination.state(inverse.slot) { s.add(object) }
            mark(destination, inverse.slot)
        } else {
            // One-to-one: the destination's previous partner loses it.
            if let previous = try destination.toOne(inverse, self), previous !== object {
                setRaw(previous, r, nil)
            }
            setRaw(destination, inverse, object)
        }
    }

    func addToMany(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject) throws(ObjectGraphError) {
        try changeMany(object, r, destination, adding: true)
    }

    func removeFromMany(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject) throws(ObjectGraphError) {
        try changeMany(object, r, destination, adding: false)
    }

    /// Adds `destination` to `object.r` or removes it, and keeps the inverse in step: a
    /// to-one inverse is set (or cleared when it pointed at `object`), a to-many one gains
    /// or loses `object`. Nothing changes, and nothing is marked, when there is nothing to do.
    private func changeMany(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject, adding: Bool) throws(ObjectGraphError) {
        if let inverse = r.inverseRelationship, !inverse.isToMany {
            if adding {
                try setToOne(destination, inverse, object)
            } else if try destination.toOne(inverse, self) === object {
                try setToOne(destination, inverse, nil)
            }
            return
        }
        let s = try object.toMany(r, self)
        guard s.contains(destination) != adding else { return }
        willChange(object)
        if adding { s.add(destination) } else { s.remove(destination) }
        mark(object, r.slot)
        if let inverse = r.inverseRelationship {
            let back = try destination.toMany(inverse, self)
            willChange(destination)
            if adding { back.add(object) } else { back.remove(object) }
            mark(destination, inverse.slot)
        }
    }

    /// Removes `object` from `owner.inverse` (a to-one is cleared, a to-many loses it).
    func unlink(_ owner: ManagedObject, _ inverse: RelationshipDescription, _ object: ManagedObject) throws(ObjectGraphError) {
        if inverse.isToMany {
            willChange(owner)
            if let s = owner.state(inverse.slot) { s.remove(object) }
            mark(owner, inverse.slot)
        } else if try owner.toOne(inverse, self) === object {
            setRaw(owner, inverse, nil)
        }
    }

    /// Stores a to-one value without touching the inverse, and records the change.
    func setRaw(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject?) {
        willChange(object)
        if let s = object.state(r.slot) {
            s.target = destination
        } else {
            let s = RelationState()
            s.target = destination
            object.setState(s, r.slot)
        }
        mark(object, r.slot)
    }

    func mark(_ object: ManagedObject, _ slot: Int) {
        object.markChanged(slot)
        didChange(object)
    }
}
