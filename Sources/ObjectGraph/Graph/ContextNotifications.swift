/// Context notifications (§2.14): objects-did-change at `processPendingChanges`, will-save
/// and did-save around a save. Observers are closures called synchronously on the thread
/// that runs the context; an observer that is removed is never called again.
public enum ContextNotificationName: Int, Sendable, CaseIterable {
    /// `NSManagedObjectContextObjectsDidChangeNotification`.
    case objectsDidChange = 0
    /// `NSManagedObjectContextWillSaveNotification` (no objects).
    case willSave = 1
    /// `NSManagedObjectContextDidSaveNotification`.
    case didSave = 2
}

/// What a notification carries: Core Data's userInfo keys as properties.
public struct ContextNotification {
    public let name: ContextNotificationName
    /// The context that posted it (kept alive by the notification, as Foundation's
    /// notifications keep their object).
    public let context: ManagedObjectContext
    /// `NSInsertedObjectsKey`.
    public var inserted: [ManagedObject] = []
    /// `NSUpdatedObjectsKey`.
    public var updated: [ManagedObject] = []
    /// `NSDeletedObjectsKey`.
    public var deleted: [ManagedObject] = []
    /// `NSRefreshedObjectsKey`.
    public var refreshed: [ManagedObject] = []
    /// `NSInvalidatedObjectsKey`.
    public var invalidated: [ManagedObject] = []
    /// `NSInvalidatedAllObjectsKey`: the context was reset.
    public var invalidatedAll = false
    /// A did-save's object IDs, to merge into another context on any thread (`mergeChanges(from:)`).
    public internal(set) var changes: SavedChanges?

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }
}

/// A registered observer, for removing it.
public struct ContextObserverToken: Hashable, Sendable {
    let id: Int
}

/// The changes of the current event, reported by the next objects-did-change.
struct EventChanges {
    var inserted = ObjectList()
    var updated = ObjectList()
    var deleted = ObjectList()
    var refreshed = ObjectList()
    var invalidated = ObjectList()
    var invalidatedAll = false

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }
}

struct ContextObservers {
    var next = 1
    var entries: [(token: ContextObserverToken, name: ContextNotificationName, body: (ContextNotification) -> Void)] = []
}

extension ManagedObjectContext {
    /// Calls `body` for every notification named `name` this context posts, until removed.
    @discardableResult
    public func addObserver(for name: ContextNotificationName, _ body: @escaping (ContextNotification) -> Void) -> ContextObserverToken {
        let token = ContextObserverToken(id: observers.next)
        observers.next += 1
        observers.entries.append((token, name, body))
        return token
    }

    public func removeObserver(_ token: ContextObserverToken) {
        observers.entries.removeAll { $0.token == token }
    }

    func post(_ notification: ContextNotification) {
        // A snapshot of the observers: one removed by an earlier observer is skipped.
        for entry in observers.entries where entry.name == notification.name {
            guard observers.entries.contains(where: { $0.token == entry.token }) else { continue }
            entry.body(notification)
        }
    }

    /// Coalesces the changes since the last call into one event: applies delete rules
    /// still pending and posts objects-did-change. Runs before save, fetch, count and
    /// rollback, at the end of every `perform` block, and when called. A call (and a save)
    /// also releases the unchanged objects nobody else holds.
    public func processPendingChanges() throws(ObjectGraphError) {
        try processPendingChanges(releasingUnreferencedObjects: true)
    }

    /// The end of a `perform` block skips the sweep, whose cost grows with the registry.
    func processPendingChanges(releasingUnreferencedObjects sweep: Bool) throws(ObjectGraphError) {
        try checkThread()
        try drainInbox()
        // With propagatesDeletesAtEndOfEvent off, delete rules wait for the save (§2.7).
        if propagatesDeletesAtEndOfEvent { try propagatePendingDeletes() }
        if sweep { releaseUnreferencedObjects() }
        // The end of the event: its changes become one undo action.
        registerUndo()
        guard !event.isEmpty else { return }
        var e = event  // var: asking a list about an object may index it first
        event = EventChanges()
        var n = ContextNotification(name: .objectsDidChange, context: self)
        n.inserted = e.inserted.objects
        let updated = e.updated.objects
        n.updated = updated.filter { !e.inserted.contains($0) && !e.deleted.contains($0) }
        n.deleted = e.deleted.objects
        n.refreshed = e.refreshed.objects
        n.invalidated = e.invalidated.objects
        n.invalidatedAll = e.invalidatedAll
        if !n.isEmpty { post(n) }
    }

    func propagatePendingDeletes() throws(ObjectGraphError) {
        // In rounds: the rules of one round may delete more objects for the next.
        while !deletesToPropagate.isEmpty {
            for o in deletesToPropagate.objects where deletesToPropagate.contains(o) {
                deletesToPropagate.remove(o)
                try applyDeleteRules(o)
            }
        }
    }
}
