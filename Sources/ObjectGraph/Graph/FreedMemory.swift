import CSQLite

/// Giving memory back to the system after a context drops many objects at once. glibc
/// keeps small freed blocks in its arenas, so a process that fetched 200,000 objects and
/// reset its context would otherwise stay about 115 MB larger for good. (The C interface
/// gives back a context's object handles before resetting it, so the reset frees them.)
enum FreedMemory {
    /// Below this many dropped objects, trimming costs more than it returns.
    static let threshold = 10_000

    static func returnToSystem(afterDropping count: Int) {
        guard count >= threshold else { return }
        RowBlockPool.drain()
        og_return_free_memory()
    }
}
