import CSQLite

/// Giving memory back to the system after a context drops many objects at once. glibc
/// keeps small freed blocks in its arenas, so a process that fetched 200,000 objects and
/// reset its context would otherwise stay about 115 MB larger for good. The C interface
/// calls it again once the handles of a reset context's objects are gone.
public enum FreedMemory {
    /// Below this many dropped objects, trimming costs more than it returns.
    public static let threshold = 10_000

    public static func returnToSystem(afterDropping count: Int) {
        if count >= threshold { og_return_free_memory() }
    }
}
