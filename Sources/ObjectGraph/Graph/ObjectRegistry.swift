/// A context's registered objects by key (store, hierarchy root, primary key): an
/// open-addressing table with linear probing. A fetch looks each row up once (and inserts
/// it in the same probe); Swift's Dictionary hashes each key with SipHash, while primary
/// keys are dense integers that a multiplicative hash spreads well for a fraction of the
/// cost. Keys and objects sit side by side, so a probe touches one cache line.
struct ObjectRegistry {
    private struct Entry {
        var key: ManagedObjectContext.ObjectKey
        var object: ManagedObject?
    }

    private var entries: [Entry]
    /// log2 of the capacity; the capacity is a power of two, at most half full, and at
    /// least 64 (four blocks of `runBits`).
    private var shift: Int
    private(set) var count = 0

    init() {
        shift = 6
        entries = Array(repeating: Entry(key: .unused, object: nil), count: 1 << shift)
    }

    var isEmpty: Bool { count == 0 }
    private var capacity: Int { 1 << shift }

    /// Keys whose primary keys differ only in their low `runBits` bits share a block.
    private static let runBits = 4

    @inline(__always)
    private func home(_ key: ManagedObjectContext.ObjectKey) -> Int {
        // Rows arrive in primary-key order, so consecutive keys go to consecutive slots:
        // a block of 16 keys is spread by Fibonacci hashing of its number (and of the
        // key's hierarchy and store), and a key's low bits pick its place in the block.
        // A fetch then touches one run of memory per 16 rows instead of one line per row.
        let run = Self.runBits
        let pk = UInt64(bitPattern: key.primaryKey)
        let block = (pk >> UInt64(run)) ^ (UInt64(UInt(bitPattern: key.root)) >> 3) ^ (UInt64(UInt32(bitPattern: key.store)) << 40)
        let blockBits = shift - run
        let spread = Int(truncatingIfNeeded: (block &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - blockBits))
        return (spread << run) | Int(truncatingIfNeeded: pk & ((1 << UInt64(run)) - 1))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: ManagedObjectContext.ObjectKey) -> (index: Int, found: Bool) {
        let mask = capacity - 1
        var i = home(key)
        return entries.withUnsafeBufferPointer { slots in
            while slots[i].object != nil {
                if slots[i].key == key { return (i, true) }
                i = (i + 1) & mask
            }
            return (i, false)
        }
    }

    subscript(key: ManagedObjectContext.ObjectKey) -> ManagedObject? {
        get {
            let (i, found) = find(key)
            return found ? entries[i].object : nil
        }
        set {
            guard let newValue else { removeValue(forKey: key); return }
            _ = object(for: key, replacingWith: newValue)
        }
    }

    /// The object registered for `key`, or `make()`'s, registered now; one probe either way.
    @inline(__always)
    mutating func object(for key: ManagedObjectContext.ObjectKey, orInsert make: () -> ManagedObject) -> (object: ManagedObject, isNew: Bool) {
        if (count + 1) * 2 > capacity { grow(to: shift + 1) }
        let (i, found) = find(key)
        if found, let existing = entries[i].object { return (existing, false) }
        let made = make()
        entries[i] = Entry(key: key, object: made)
        count += 1
        return (made, true)
    }

    private mutating func object(for key: ManagedObjectContext.ObjectKey, replacingWith object: ManagedObject) -> ManagedObject {
        if (count + 1) * 2 > capacity { grow(to: shift + 1) }
        let (i, found) = find(key)
        if !found { count += 1 }
        entries[i] = Entry(key: key, object: object)
        return object
    }

    @discardableResult
    mutating func removeValue(forKey key: ManagedObjectContext.ObjectKey) -> ManagedObject? {
        var (i, found) = find(key)
        guard found else { return nil }
        let removed = entries[i].object
        entries[i].object = nil
        count -= 1
        // Backward shift: move later entries of the run into the hole when their home allows.
        let mask = capacity - 1
        var j = (i + 1) & mask
        while entries[j].object != nil {
            let h = home(entries[j].key)
            // Entry j may move to i when i lies cyclically in [h, j).
            let canMove = i <= j ? (h <= i || h > j) : (h <= i && h > j)
            if canMove {
                entries[i] = entries[j]
                entries[j].object = nil
                i = j
            }
            j = (j + 1) & mask
        }
        return removed
    }

    mutating func reserveCapacity(_ n: Int) {
        var wanted = shift
        while (1 << wanted) < n * 2 { wanted += 1 }
        if wanted > shift { grow(to: wanted) }
    }

    private mutating func grow(to newShift: Int) {
        let old = entries
        shift = newShift
        entries = Array(repeating: Entry(key: .unused, object: nil), count: 1 << shift)
        let mask = capacity - 1
        for entry in old where entry.object != nil {
            var j = home(entry.key)
            while entries[j].object != nil { j = (j + 1) & mask }
            entries[j] = entry
        }
    }

    mutating func removeAll() {
        self = ObjectRegistry()
    }

    var values: [ManagedObject] { entries.compactMap(\.object) }

    /// Removes and returns every object that only this table references (the sweep of
    /// `releaseUnreferencedObjects`). The check happens in place, adding no reference.
    mutating func removeUnreferenced() -> [ManagedObject] {
        var unreferenced: [ManagedObjectContext.ObjectKey] = []
        for i in entries.indices where entries[i].object != nil {
            if isKnownUniquelyReferenced(&entries[i].object) { unreferenced.append(entries[i].key) }
        }
        return unreferenced.compactMap { removeValue(forKey: $0) }
    }
}
