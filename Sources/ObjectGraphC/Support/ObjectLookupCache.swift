import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Each thread's last object handle and the managed object behind it: a C program reading
/// ten values of one object looks its handle up once, not ten times under the table's lock.
///
/// The answer holds while no handle has been dropped since it was looked up (the table's
/// `drops` count, read atomically): a released or given-back handle is then looked up
/// again and found invalid. The cache holds the object strongly, so it can never answer
/// with freed memory. A thread that releases handles lets go of its cached object at once
/// (`forgetOnThisThread`); another thread's lets go at its next lookup or its exit, and an
/// object does not keep its context alive.
final class ObjectLookupCache {
    var handle: UInt = 0
    var drops: UInt64 = 0
    /// The object, retained by hand: a hit lends it to the caller without a retain and
    /// release of its own (`withObject`), which would cost as much as reading a value.
    private var retained: Unmanaged<ManagedObject>?
    /// Lends in progress, and objects let go of during them: a read can run C code (a
    /// fault's `awakeFromFetch` hook) that releases the very handle being read, and the
    /// object must outlive the read.
    private var lends = 0
    private var released: [Unmanaged<ManagedObject>] = []

    var object: ManagedObject? {
        get { retained?.takeUnretainedValue() }
        set {
            let old = retained
            retained = newValue.map { Unmanaged.passRetained($0) }
            guard let old else { return }
            if lends > 0 { released.append(old) } else { old.release() }
        }
    }

    deinit { retained?.release() }

    /// `body` applied to the cached object, borrowed: the cache holds it for the call.
    @inline(__always)
    func withObject<R>(_ body: (ManagedObject) -> R) -> R? {
        guard let retained else { return nil }
        lends += 1
        let result = retained._withUnsafeGuaranteedRef(body)
        lends -= 1
        if lends == 0 && !released.isEmpty { releaseLetGo() }
        return result
    }

    private func releaseLetGo() {
        let letGo = released
        released = []
        for o in letGo { o.release() }
    }

    /// `body` applied to the calling thread's cache, borrowed: the thread holds it.
    @inline(__always)
    static func withCurrent<R>(_ body: (ObjectLookupCache) -> R) -> R {
        if let raw = pthread_getspecific(threadKey) { return Unmanaged<ObjectLookupCache>.fromOpaque(raw)._withUnsafeGuaranteedRef(body) }
        return body(current)
    }

    /// The calling thread's cache, made on first use and freed with the thread.
    static var current: ObjectLookupCache {
        let key = threadKey
        if let raw = pthread_getspecific(key) { return Unmanaged<ObjectLookupCache>.fromOpaque(raw).takeUnretainedValue() }
        let made = ObjectLookupCache()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    /// Lets go of the calling thread's cached object, if it has a cache: a thread that
    /// releases handles frees what they held now, not at its next lookup.
    static func forgetOnThisThread() {
        guard let raw = pthread_getspecific(threadKey) else { return }
        let cache = Unmanaged<ObjectLookupCache>.fromOpaque(raw).takeUnretainedValue()
        cache.handle = 0
        cache.object = nil
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            if let raw { Unmanaged<ObjectLookupCache>.fromOpaque(raw).release() }
        }
        return key
    }()
}
