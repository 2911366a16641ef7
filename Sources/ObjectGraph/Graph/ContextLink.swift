/// How a managed object reaches its context without a weak reference: every object of a
/// context holds the same link, and the context clears it when it goes away, so an object
/// that outlives its context sees nil. (A weak reference per object would give each one a
/// side table, which makes all of its reference counting slow.)
final class ContextLink: @unchecked Sendable {
    /// Valid while set: the context's deinit sets it to nil before anything is freed.
    unowned(unsafe) var context: ManagedObjectContext?
}
