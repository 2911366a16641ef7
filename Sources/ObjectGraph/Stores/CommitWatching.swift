/// Learning of commits made to a store by any connection of any process: what remote
/// change notifications (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`) are
/// built on.

/// A store whose file other processes may write, and which can say when they did.
public protocol CommitWatchingStore: PersistentStore {
    /// Starts watching the store's file: `onCommit` runs on a library thread after each
    /// commit by any connection (this process's included), at most a few hundred
    /// milliseconds later, with the number of the newest history transaction (nil when the
    /// store keeps no history). Commits close together may be reported once.
    func watchCommits(_ onCommit: @escaping @Sendable (_ historyTransaction: Int64?) -> Void) throws(ObjectGraphError) -> CommitWatch
}

/// A running watch. After `stop` returns, its closure is not running and never runs again
/// (unless `stop` is called from inside that closure, which returns at once).
public protocol CommitWatch: AnyObject, Sendable {
    func stop()
}
