#if canImport(Glibc)
import Glibc
#endif

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
    var owner: pthread_t?
    /// Counts every change to what the context's objects hold (a set value, a rollback, a
    /// refresh, a reset, an awakeFromFetch...). A reader that copied values out (the Python
    /// binding's column cache) knows they still hold while the count is unchanged. Kept at a
    /// fixed address for the link's life, so that it can be read without a call.
    let changeCounter: UnsafeMutablePointer<UInt64> = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    deinit { changeCounter.deallocate() }

    @inline(__always)
    func noteValuesChanged() { changeCounter.pointee &+= 1 }

    /// Whether the calling thread may use the context now.
    @inline(__always)
    var isOwnedByCurrentThread: Bool {
        guard let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }
}
