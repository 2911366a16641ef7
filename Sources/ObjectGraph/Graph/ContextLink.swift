#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How a managed object reaches its context without a weak reference: every object of a
/// context holds the same link, and the context clears it when it goes away, so an object
/// that outlives its context sees nil. (A weak reference per object would give each one a
/// side table, which makes all of its reference counting slow.) The link also carries the
/// thread allowed to use the context, so an accessor checks the thread without touching
/// the context itself.
final class ContextLink: @unchecked Sendable {
    /// Valid while set: the context's deinit sets it to nil before anything is freed.
    unowned(unsafe) var context: ManagedObjectContext?
    /// The context's owner thread: the confinement thread, or the one running its current block.
    /// Any thread reads it (to learn whether it may use the context) while the queue's
    /// thread sets it, so it is atomic (0: none); a plain optional could be read torn.
    var owner: pthread_t? {
        get {
            let v = ownerBits.load(ordering: .relaxed)
            return v == 0 ? nil : v
        }
        set { ownerBits.store(newValue ?? 0, ordering: .relaxed) }
    }
    private let ownerBits = Atomic<UInt>(0)
    /// Counts every change to what the context's objects hold (a set value, a rollback, a
    /// refresh, a reset, an awakeFromFetch...). A reader that copied values out (the Python
    /// binding's column cache) knows they still hold while the count is unchanged. Kept at a
    /// fixed address for the link's life, so that it can be read without a call.
    let changeCounter: UnsafeMutablePointer<UInt64> = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    /// Called once, at the next change the counter counts, then forgotten
    /// (`ManagedObjectContext.onNextValueChange`): a reader that copied values out learns
    /// they went stale without reading the counter before each use of them.
    var nextChangeWatcher: (() -> Void)?

    deinit { changeCounter.deallocate() }

    @inline(__always)
    func noteValuesChanged() {
        changeCounter.pointee &+= 1
        if let watcher = nextChangeWatcher {
            nextChangeWatcher = nil
            watcher()
        }
    }

    /// Whether the calling thread may use the context now.
    @inline(__always)
    var isOwnedByCurrentThread: Bool {
        guard let owner else { return false }
        #if canImport(Glibc)
        // glibc's pthread_t is the thread's address and pthread_equal compares it: compared
        // here, every value read saves a call.
        return owner == pthread_self()
        #else
        return pthread_equal(owner, pthread_self()) != 0
        #endif
    }
}
