/// Deleting objects and applying the delete rules of their relationships (§2.7).
extension ManagedObjectContext {
    /// Marks `object` deleted. Its relationships' delete rules apply at once when
    /// `propagatesDeletesAtEndOfEvent` is on (without an event loop, the delete call is the
    /// end of the event), otherwise at save: nullify clears the inverse, cascade deletes
    /// the destinations, deny is checked at save (1600). Deleting an object inserted since
    /// the last save forgets it.
    public func delete(_ object: ManagedObject) throws(ObjectGraphError) {
        try checkThread()
        guard object.managedObjectContext === self else {
            throw .invalidArgument("\(object) does not belong to this context")
        }
        // Deleting again changes nothing but runs prepareForDeletion again, as Core Data does.
        if object.isDeleted {
            object.prepareForDeletion()
            return
        }
        try object.fireFault(self)
        willChange(object)
        object.prepareForDeletion()
        // Destinations are gathered while the object is still in its old state.
        pendingDestinations[ObjectIdentifier(object)] = try relationshipDestinations(object)
        if object.isInserted {
            inserted.remove(object)
            event.updated.remove(object)
            // Inserted in this event: the two cancel out. Inserted in an earlier event:
            // observers saw the insert, so they are told of the delete.
            if event.inserted.contains(object) {
                event.inserted.remove(object)
            } else {
                event.deleted.insert(object)
            }
            object.isInserted = false
            object.forgottenInsert = true
        } else {
            updated.remove(object)
            event.updated.remove(object)
            deleted.insert(object)
            event.deleted.insert(object)
        }
        object.isDeleted = true
        if propagatesDeletesAtEndOfEvent {
            try applyDeleteRules(object)
        } else {
            deletesToPropagate.insert(object)
        }
    }

    private func relationshipDestinations(_ object: ManagedObject) throws(ObjectGraphError) -> [(RelationshipDescription, [ManagedObject])] {
        var effects: [(RelationshipDescription, [ManagedObject])] = []
        for case let r as RelationshipDescription in object.entity.properties {
            effects.append((r, try destinations(of: object, r)))
        }
        return effects
    }

    func applyDeleteRules(_ object: ManagedObject) throws(ObjectGraphError) {
        let effects = pendingDestinations.removeValue(forKey: ObjectIdentifier(object)) ?? []
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
        if object.forgottenInsert { object.managedObjectContext = nil }
    }

    func destinations(of object: ManagedObject, _ r: RelationshipDescription) throws(ObjectGraphError) -> [ManagedObject] {
        if r.isToMany { return try object.toMany(r, self).members }
        return try object.toOne(r, self).map { [$0] } ?? []
    }
}
