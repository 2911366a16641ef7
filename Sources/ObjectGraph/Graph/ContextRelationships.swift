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
        if let inverse = r.inverseRelationship, !inverse.isToMany {
            try setToOne(destination, inverse, object)
            return
        }
        let s = try object.toMany(r, self)
        if s.contains(destination) { return }
        willChange(object)
        s.add(destination)
        mark(object, r.slot)
        if let inverse = r.inverseRelationship {
            let back = try destination.toMany(inverse, self)
            willChange(destination)
            back.add(object)
            mark(destination, inverse.slot)
        }
    }

    func removeFromMany(_ object: ManagedObject, _ r: RelationshipDescription, _ destination: ManagedObject) throws(ObjectGraphError) {
        if let inverse = r.inverseRelationship, !inverse.isToMany {
            if try destination.toOne(inverse, self) === object { try setToOne(destination, inverse, nil) }
            return
        }
        let s = try object.toMany(r, self)
        guard s.contains(destination) else { return }
        willChange(object)
        s.remove(destination)
        mark(object, r.slot)
        if let inverse = r.inverseRelationship {
            let back = try destination.toMany(inverse, self)
            willChange(destination)
            back.remove(object)
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
        object.changedSlots.insert(slot)
        didChange(object)
    }
}
