import Dispatch
import Synchronization

/// `NSPersistentStoreRemoteChangeNotification`: posted after any coordinator of any process
/// (this one included) writes to a store added with
/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
public struct RemoteChangeNotification: Sendable {
    /// `NSStoreUUIDKey`.
    public let storeIdentifier: String
    /// The store's path when the change was seen.
    public let storePath: String
    /// `NSPersistentHistoryTokenKey`: where the store's history stands after the change;
    /// nil when it keeps none.
    public let historyToken: PersistentHistoryToken?
}

/// A registered remote-change observer, for removing it.
public struct RemoteChangeObserverToken: Hashable, Sendable {
    /// The registration's number (what the C interface hands out).
    public let id: Int
    public init(id: Int) { self.id = id }
}

/// The observers of one coordinator and the watches of its stores. Observers are called
/// one at a time on a queue of the coordinator's, never under the coordinator's lock.
final class RemoteChangeCenter: @unchecked Sendable {
    let delivery = DispatchQueue(label: "objectgraph.remote-change")
    private let deliveryKey = DispatchSpecificKey<Bool>()
    private let observers = Mutex<(next: Int, list: [(RemoteChangeObserverToken, @Sendable (RemoteChangeNotification) -> Void)])>((1, []))
    /// Per watched store instance: its watch. Changed under the coordinator's lock.
    var watches: [ObjectIdentifier: CommitWatch] = [:]

    init() { delivery.setSpecific(key: deliveryKey, value: true) }

    func add(_ body: @escaping @Sendable (RemoteChangeNotification) -> Void) -> RemoteChangeObserverToken {
        observers.withLock { state in
            let token = RemoteChangeObserverToken(id: state.next)
            state.next += 1
            state.list.append((token, body))
            return token
        }
    }

    /// Removes an observer; once this returns it is not running and never runs again
    /// (from inside an observer, the current call finishes first).
    func remove(_ token: RemoteChangeObserverToken) -> Bool {
        let found = observers.withLock { state in
            guard let i = state.list.firstIndex(where: { $0.0 == token }) else { return false }
            state.list.remove(at: i)
            return true
        }
        if DispatchQueue.getSpecific(key: deliveryKey) != true { delivery.sync {} }
        return found
    }

    func post(_ notification: RemoteChangeNotification) {
        delivery.async { [self] in
            let current = observers.withLock { $0.list.map(\.1) }
            for body in current { body(notification) }
        }
    }

    func stopAll() {
        for watch in watches.values { watch.stop() }
        watches.removeAll()
    }
}

extension PersistentStoreCoordinator {
    /// Calls `body` on a library thread after each write to a store added with
    /// `StoreOptionKey.remoteChangeNotifications`, by any coordinator of any process.
    @discardableResult
    public func addRemoteChangeObserver(_ body: @escaping @Sendable (RemoteChangeNotification) -> Void) -> RemoteChangeObserverToken {
        remoteChanges.add(body)
    }

    /// Removes an observer: it is not running when this returns, and never runs again.
    /// 140002 for an unknown token.
    public func removeRemoteChangeObserver(_ token: RemoteChangeObserverToken) throws(ObjectGraphError) {
        guard remoteChanges.remove(token) else { throw .invalidArgument("no remote-change observer has the token \(token.id)") }
    }

    /// Starts a watch for each attached store that asked for remote-change notifications
    /// and stops those of stores gone; runs under the coordinator's lock whenever the
    /// attached stores change.
    func syncCommitWatches() {
        var wanted: [ObjectIdentifier: AttachedStore] = [:]
        for record in attached where (try? StoreOptions(record.options))?.remoteChangeNotifications == true {
            wanted[ObjectIdentifier(record.store)] = record
        }
        for (key, watch) in remoteChanges.watches where wanted[key] == nil {
            watch.stop()
            remoteChanges.watches.removeValue(forKey: key)
        }
        for (key, record) in wanted where remoteChanges.watches[key] == nil {
            guard let store = record.store as? CommitWatchingStore else { continue }
            let center = remoteChanges
            let identifier = store.identifier, path = store.path
            // A store that cannot be watched (its folder unreadable) posts nothing; adding it still succeeds.
            remoteChanges.watches[key] = try? store.watchCommits { newest in
                let token = newest.map { PersistentHistoryToken(transactionNumbers: [identifier: $0]) }
                center.post(RemoteChangeNotification(storeIdentifier: identifier, storePath: path, historyToken: token))
            }
        }
    }
}
