import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The serial queue of a private-queue or main-queue context.
final class ContextQueue: @unchecked Sendable {
    let queue: DispatchQueue
    /// The thread running a block right now, so that a nested `performAndWait` runs inline.
    /// Other threads read it (to learn they are not that thread) while the queue's thread
    /// sets it, so it is atomic (0: none); a plain optional could be read torn.
    var runningThread: pthread_t? {
        get {
            let v = running.load(ordering: .relaxed)
            return v == 0 ? nil : v
        }
        set { running.store(newValue ?? 0, ordering: .relaxed) }
    }
    private let running = Atomic<UInt>(0)

    init(label: String) { queue = DispatchQueue(label: label) }

    /// The queue every main-queue context shares: the library's designated main queue.
    static let main = ContextQueue(label: "objectgraph.main")
}

extension ManagedObjectContext {
    /// Runs `block` on the context's queue and returns at once (`performBlock:`). The block
    /// is one user event: when it returns the context processes pending changes (posting
    /// objects-did-change and closing the undo group). A confinement context has no queue:
    /// 140002, and the block does not run (Core Data raises).
    public func perform(_ block: @escaping @Sendable () -> Void) throws(ObjectGraphError) {
        guard let queue else { throw Self.noQueue("perform") }
        queue.queue.async { [self] in self.runOnQueue(block) }
    }

    /// Runs `body` on the context's queue and waits for it (`performBlockAndWait:`),
    /// returning its result. Re-entrant: called from inside a block of the same context, it
    /// runs inline. Not an event: pending changes are processed at the end of the next
    /// `perform` block, at `processPendingChanges()` or at `save()`. A confinement context:
    /// 140002, and the body does not run.
    public func performAndWait<T>(_ body: () throws -> T) throws -> T {
        guard queue != nil else { throw Self.noQueue("performAndWait") }
        var result: Result<T, any Error>!
        performAndWaitWithoutEvent { result = Result { try body() } }
        return try result.get()
    }

    /// `perform(schedule:_:)`, the Swift-concurrency form: runs `block` on the context's
    /// queue as one event and returns its value or rethrows its error.
    public func perform<T>(_ block: @escaping () throws -> T) async throws -> T {
        guard let queue else { throw Self.noQueue("perform") }
        let job = UncheckedBox(block)
        let result: UncheckedBox<Result<T, any Error>> = await withCheckedContinuation { continuation in
            queue.queue.async { [self] in
                var outcome: Result<T, any Error>!
                self.runOnQueue { outcome = Result { try job.value() } }
                continuation.resume(returning: UncheckedBox(outcome))
            }
        }
        return try result.value.get()
    }

    static func noQueue(_ call: String) -> ObjectGraphError {
        .invalidArgument("\(call) needs a queue: a confinement context is used directly from its own thread (make a private-queue or main-queue context to use \(call))")
    }

    /// Runs `body` with the context's queue and thread ownership, waiting for it, without
    /// ending an event (a parent serving its child, a merge of remote changes). A
    /// confinement context runs it at once when the calling thread owns it.
    func performAndWaitWithoutEvent(_ body: () -> Void) {
        guard let queue else { return body() }
        if let running = queue.runningThread, pthread_equal(running, pthread_self()) != 0 { return body() }
        queue.queue.sync {
            let previousOwner = ownerThread
            queue.runningThread = pthread_self()
            ownerThread = pthread_self()
            defer {
                ownerThread = previousOwner
                queue.runningThread = nil
            }
            body()
        }
    }

    func runOnQueue(_ block: () -> Void) {
        guard let queue else { return }
        queue.runningThread = pthread_self()
        ownerThread = pthread_self()
        runBlock(block)
        ownerThread = nil
        queue.runningThread = nil
    }

    private func runBlock(_ block: () -> Void) {
        block()
        try? processPendingChanges(releasingUnreferencedObjects: false)
    }
}

/// Carries a value that is only ever used on one queue at a time across an isolation boundary.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
