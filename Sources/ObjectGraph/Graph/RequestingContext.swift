#if canImport(Glibc)
import Glibc
#endif

/// The context on whose behalf this thread is calling into the stores: an incremental
/// store hands it to its hooks (Core Data passes the requesting context to
/// `executeRequest:withContext:`). A context sets it around what may reach a store
/// (fetching, counting, firing faults, saving); it is held unretained and only while
/// that call runs.
enum RequestingContext {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: ManagedObjectContext? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<ManagedObjectContext>.fromOpaque(p).takeUnretainedValue()
    }

    /// Runs `body` with `context` as the requesting context of this thread.
    @inline(__always)
    static func with<T, E: Error>(_ context: ManagedObjectContext, _ body: () throws(E) -> T) throws(E) -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(context).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
