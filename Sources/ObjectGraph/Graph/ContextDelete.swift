/// Deleting objects and applying the delete rules of their relationships.
extension ManagedObjectContext {
    /// Marks `object` deleted and applies its relationships' delete rules now: nullify
    /// clears the inverse, cascade deletes the destinations, deny is checked at save.
    /// Deleting an object inserted since the last save forgets it.
    public func delete(_ object: ManagedObject) throws(ObjectGraphError) {
        try checkThread()
        guard object.managedObjectContext === self else {
            throw .invalidArgument("\(object) does not belong to this context")
        }
        if object.isDeleted { return }
        try object.fireFault(self)
        // Destinations are gathered while the object is still in its old state.
        var effects: [(RelationshipDescription, [ManagedObject])] = []
        for case let r as RelationshipDescription in object.entity.properties {
            effects.append((r, try destinations(of: object, r)))
        }
        let wasInserted = object.isInserted
        if wasInserted {
            inserted.remove(object)
            object.isInserted = false
        } else {
            updated.remove(object)
            deleted.insert(object)
        }
        object.isDeleted = true
        for (r, destinations) in effects {
            switch r.deleteRule {
            case .noAction, .deny:
                continue
            case .nullify:
                if let inverse = r.inverseRelationship {
                    for d in destinations where !d.isDeleted { try unlink(d, inverse, object) }
                }
            case .cascade:
                for d in destinations where !d.isDeleted { try delete(d) }
            }
        }
        // A forgotten insert leaves the context entirely.
        if wasInserted { object.managedObjectContext = nil }
    }

    func destinations(of object: ManagedObject, _ r: RelationshipDescription) throws(ObjectGraphError) -> [ManagedObject] {
        if r.isToMany { return try object.toMany(r, self).members }
        return try object.toOne(r, self).map { [$0] } ?? []
    }
}
