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
    /// Runs `block` on the context's queue and returns at once (`performBlock:`); the
    /// context processes pending changes after the block. A confinement context runs the
    /// block at once on the calling thread, which must own it.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        guard let queue else {
            if (try? checkThread()) != nil { runBlock(block) }
            return
        }
        queue.queue.async { [self] in self.runOnQueue(block) }
    }

    /// Runs `body` on the context's queue and waits for it (`performBlockAndWait:`),
    /// returning its result. Called from inside a block of the same context, it runs inline.
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        guard let queue else { return try body() }
        if let running = queue.runningThread, pthread_equal(running, pthread_self()) != 0 {
            return try body()
        }
        return try queue.queue.sync { () throws -> T in
            let previousOwner = ownerThread
            queue.runningThread = pthread_self()
            ownerThread = pthread_self()
            defer {
                try? processPendingChanges(releasingUnreferencedObjects: false)
                ownerThread = previousOwner
                queue.runningThread = nil
            }
            return try body()
        }
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
