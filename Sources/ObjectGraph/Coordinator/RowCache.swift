/// The coordinator's cache of rows (§2.10): the newest row it saw for an object, with the
/// time it saw it. Saves record the rows they update and delete, so that a context holding
/// an older version learns of the change (an optimistic-locking conflict with a cached
/// snapshot) without reading the store; fault fires and refreshes record what they read,
/// so that another context's fault can use it within its staleness interval.
///
/// Bulk fetches do not fill it (one insert per row would cost more than the fetch itself),
/// and it is bounded: correctness never depends on it, since every save also checks
/// versions inside the store's transaction. Saves record a row per object they update, so
/// the entries live in a `PrimaryKeyMap` (probed by primary key, no SipHash).
struct RowCache {
    typealias Key = StoredObjectKey

    struct Entry {
        /// The row; nil when a save deleted it.
        let row: RowSnapshot?
        let version: Int64
        /// Monotonic seconds when the coordinator saw it.
        let time: Double
    }

    static let capacity = 65_536
    private var entries = PrimaryKeyMap<Entry>()
    /// Keys in the order they were first recorded, oldest first, for eviction.
    private var order: [Key] = []
    private var orderStart = 0

    static func now() -> Double { MonotonicClock.seconds() }

    static func key(_ entity: EntityDescription, _ primaryKey: Int64, _ store: StoreRef) -> Key {
        Key(root: ObjectIdentifier(entity.rootEntity), primaryKey: primaryKey, store: store.slot)
    }

    func entry(_ key: Key) -> Entry? { entries[key] }

    var isEmpty: Bool { entries.isEmpty }

    /// Records a row read or written now (or its deletion, with `row` nil and its last version).
    mutating func record(_ key: Key, row: RowSnapshot?, version: Int64, time: Double = RowCache.now()) {
        if entries.set(Entry(row: row, version: version, time: time), for: key) {
            order.append(key)
            evictIfFull()
        }
    }

    /// Room for `n` more rows of `key`'s hierarchy and store (at most the capacity), so a save
    /// recording many rows does not grow the table step by step.
    mutating func reserveCapacity(_ n: Int, like key: Key) {
        entries.reserveCapacity(min(n, Self.capacity), like: key)
    }

    mutating func removeAll(store: Int32) {
        entries.removeAll(store: store)
        order.removeAll { $0.store == store }
        orderStart = 0
    }

    private mutating func evictIfFull() {
        while entries.count > Self.capacity, orderStart < order.count {
            entries.removeValue(forKey: order[orderStart])
            orderStart += 1
        }
        if orderStart > Self.capacity {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
