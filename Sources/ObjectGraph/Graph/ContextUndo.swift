/// Undo and redo (§2.17): while a context has an undo manager, the first change to an
/// object in an event records the object's state before it (an image); at the end of the
/// event (`processPendingChanges`) the images become one undo action. Running the action
/// puts the objects back as the images say, recording their states first, so the undo
/// registers its own redo.
extension ManagedObjectContext {
    /// An object's in-memory state at one moment: whether it was in the context (and how),
    /// its attribute values and changed slots, and its loaded relationships.
    struct ObjectImage {
        enum Presence {
            /// Not in the context: before its insertion.
            case absent
            case inserted
            case registered
            case deleted
        }

        let presence: Presence
        let values: [AttributeValue]
        let changed: SlotSet
        /// The committed row the values were changes against.
        let snapshot: RowSnapshot?
        /// Loaded relationships: a to-one's target or a to-many's members, by slot.
        let relations: [Int: [ManagedObject]]
    }

    /// The context's undo manager (`undoManager`); nil (the default) records nothing.
    public var undoManager: ObjectUndoManager? {
        get { attachedUndoManager }
        set {
            attachedUndoManager = newValue
            undoImages.removeAll()
        }
    }

    /// `undo`: processes pending changes (closing the event's group), then undoes the
    /// newest group. Nothing happens without an undo manager.
    public func undo() throws(ObjectGraphError) {
        try checkThread()
        guard let manager = attachedUndoManager else { return }
        try processPendingChanges()
        try manager.undo()
    }

    /// `redo`: redoes the newest undone group.
    public func redo() throws(ObjectGraphError) {
        try checkThread()
        guard let manager = attachedUndoManager else { return }
        try processPendingChanges()
        try manager.redo()
    }

    /// Whether changes are recorded right now (a manager, registration on, not inside
    /// `awakeFromFetch` or while a fault fires).
    @inline(__always)
    var recordsUndo: Bool { attachedUndoManager != nil && changeProcessingSuspended == 0 }

    /// Records `object`'s state before its first change in this event.
    @inline(__always)
    func willChange(_ object: ManagedObject) {
        guard recordsUndo, undoImages[ObjectIdentifier(object)] == nil else { return }
        recordImage(of: object)
    }

    /// Records that `object` was not in the context before this event (its insertion).
    func willInsert(_ object: ManagedObject) {
        guard recordsUndo else { return }
        undoImages[ObjectIdentifier(object)] = (object, ObjectImage(presence: .absent, values: [], changed: SlotSet(), snapshot: nil, relations: [:]))
    }

    private func recordImage(of object: ManagedObject) {
        undoImages[ObjectIdentifier(object)] = (object, image(of: object))
    }

    func image(of o: ManagedObject) -> ObjectImage {
        let presence: ObjectImage.Presence
        if o.detached || o.managedObjectContext !== self { presence = o.isDeleted ? .deleted : .absent }
        else if o.isInserted { presence = .inserted }
        else if o.isDeleted { presence = .deleted }
        else { presence = .registered }
        var relations: [Int: [ManagedObject]] = [:]
        if let states = o.relations {
            for (slot, state) in states.enumerated() {
                guard let state else { continue }
                switch o.layout.kinds[slot] {
                case .toOne: relations[slot] = state.target.map { [$0] } ?? []
                case .toMany: relations[slot] = state.members
                case .attribute: continue
                }
            }
        }
        return ObjectImage(
            presence: presence, values: o.current ?? o.snapshot?.values ?? o.layout.defaults, changed: o.changedSlots,
            snapshot: o.snapshot, relations: relations)
    }

    /// The end of an event: the recorded images become one undo action, and the manager
    /// closes the event's group.
    func registerUndo() {
        guard let manager = attachedUndoManager else { return }
        if !undoImages.isEmpty {
            let images = Array(undoImages.values)
            undoImages.removeAll()
            let link = self.link
            manager.register(ObjectUndoManager.Action(
                context: ObjectIdentifier(self),
                isOwnedByCurrentThread: { link.isOwnedByCurrentThread },
                run: { [weak self] () throws(ObjectGraphError) in
                    guard let self else { throw .objectInaccessible("the context of this undo action is gone") }
                    try self.restore(images)
                }))
        }
        manager.endEvent()
    }

    /// Puts objects back as their images say, then ends the event so that what this
    /// changed is registered in turn (as redo while undoing, as undo while redoing).
    func restore(_ images: [(ManagedObject, ObjectImage)]) throws(ObjectGraphError) {
        try checkThread()
        link.noteValuesChanged()
        for (o, _) in images where undoImages[ObjectIdentifier(o)] == nil {
            undoImages[ObjectIdentifier(o)] = (o, image(of: o))
        }
        var events: [(ManagedObject, SnapshotEvents)] = []
        for (o, image) in images {
            let event = try restorePresence(o, image.presence)
            if image.presence != .absent { restoreValues(o, image) }
            if let event { events.append((o, event)) } else if image.presence != .absent { events.append((o, .undoUpdate)) }
        }
        for (o, e) in events where !o.detached { o.awakeFromSnapshotEvents(e) }
        try processPendingChanges()
    }

    /// Moves `o` into or out of the context as `presence` says; the snapshot event to report.
    private func restorePresence(_ o: ManagedObject, _ presence: ObjectImage.Presence) throws(ObjectGraphError) -> SnapshotEvents? {
        let gone = o.detached || o.managedObjectContext !== self
        switch presence {
        case .absent:
            if gone { return nil }
            if o.isInserted {
                // An unsaved insert leaves the context; redo brings the same object back.
                inserted.remove(o)
                event.inserted.remove(o)
                // Reported as deleted: it leaves the context.
                event.deleted.insert(o)
                o.isInserted = false
                if !o.objectID.isTemporaryID { unregister(o, key(for: o.objectID)) }
                storeAssignments.removeValue(forKey: ObjectIdentifier(o))
                o.detached = true
            } else if !o.isDeleted {
                // A saved insert: its row goes at the next save (the other objects' images
                // restore their own relationships, so no delete rule runs).
                markDeleted(o)
            }
            return .undoInsertion
        case .inserted, .registered:
            if gone {
                // Back from an undone insert, or from a delete that was saved: it is new again.
                o.detached = false
                o.isDeleted = false
                o.rowGone = false
                o.forgottenInsert = false
                o.isInserted = true
                inserted.insert(o)
                event.inserted.insert(o)
                if !o.objectID.isTemporaryID, let key = key(for: o.objectID) { register(o, key) }
                return presence == .inserted ? .undoInsertion : .undoDeletion
            }
            if o.isDeleted {
                o.isDeleted = false
                deleted.remove(o)
                event.deleted.remove(o)
                deletesToPropagate.remove(o)
                pendingDestinations.removeValue(forKey: ObjectIdentifier(o))
                return .undoDeletion
            }
            return nil
        case .deleted:
            if gone || o.isDeleted { return nil }
            if o.isInserted {
                inserted.remove(o)
                event.inserted.remove(o)
                o.isInserted = false
                o.detached = true
                return .undoDeletion
            }
            markDeleted(o)
            return .undoDeletion
        }
    }

    /// A saved object becomes a pending delete, without delete rules.
    private func markDeleted(_ o: ManagedObject) {
        updated.remove(o)
        event.updated.remove(o)
        o.isDeleted = true
        deleted.insert(o)
        event.deleted.insert(o)
    }

    /// Restores values and relationships. Against the same committed row the changed slots
    /// come back as they were; after a save the restored values are changes against the
    /// new row (undoing a saved edit leaves the object updated, to be saved again).
    private func restoreValues(_ o: ManagedObject, _ image: ObjectImage) {
        var changed = image.changed
        if let committed = o.snapshot, !committed.isSame(as: image.snapshot) {
            for (slot, kind) in o.layout.kinds.enumerated() {
                if case .attribute = kind, image.values[slot] != committed[slot] { changed.insert(slot) }
            }
            for slot in image.relations.keys { changed.insert(slot) }
        }
        o.current = changed.isEmpty && !o.isInserted ? nil : image.values
        if o.isInserted && o.current == nil { o.current = image.values }
        for (slot, targets) in image.relations {
            let state = RelationState()
            switch o.layout.kinds[slot] {
            case .toOne: state.target = targets.first
            default: for m in targets { state.add(m) }
            }
            o.setState(state, slot)
        }
        // Relationships not loaded when the image was taken are read again: their contents
        // follow from the rows and the other objects' restored states.
        if let states = o.relations {
            for slot in states.indices where states[slot] != nil && image.relations[slot] == nil {
                o.relations![slot] = nil
            }
        }
        o.changedSlots = changed
        if !o.isInserted && !o.isDeleted {
            if changed.isEmpty { updated.remove(o) } else { updated.insert(o) }
        }
        // Objects-did-change reports every object the undo touched.
        if !o.isDeleted { event.updated.insert(o) }
    }
}
