/// A context's registered objects by key (store, hierarchy root, primary key): an
/// open-addressing table with linear probing. A fetch does one lookup and one insert per
/// row; Swift's Dictionary hashes each key with SipHash, while primary keys are dense
/// integers that a multiplicative hash spreads well for a fraction of the cost.
struct ObjectRegistry {
    private var keys: [ManagedObjectContext.ObjectKey]
    private var objects: [ManagedObject?]
    /// log2 of the capacity; the capacity is a power of two, at most half full.
    private var shift: Int
    private(set) var count = 0

    init() {
        shift = 4
        keys = Array(repeating: ManagedObjectContext.ObjectKey.unused, count: 1 << shift)
        objects = Array(repeating: nil, count: 1 << shift)
    }

    var isEmpty: Bool { count == 0 }
    private var capacity: Int { 1 << shift }

    @inline(__always)
    private func home(_ key: ManagedObjectContext.ObjectKey) -> Int {
        // Fibonacci hashing of the key's parts: the top `shift` bits of the product.
        let mixed = UInt64(bitPattern: key.primaryKey) ^ (UInt64(UInt(bitPattern: key.root)) >> 3) ^ (UInt64(UInt32(bitPattern: key.store)) << 40)
        return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - shift))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: ManagedObjectContext.ObjectKey) -> (index: Int, found: Bool) {
        let mask = capacity - 1
        var i = home(key)
        while objects[i] != nil {
            if keys[i] == key { return (i, true) }
            i = (i + 1) & mask
        }
        return (i, false)
    }

    subscript(key: ManagedObjectContext.ObjectKey) -> ManagedObject? {
        get {
            let (i, found) = find(key)
            return found ? objects[i] : nil
        }
        set {
            guard let newValue else { removeValue(forKey: key); return }
            var (i, found) = find(key)
            if !found && (count + 1) * 2 > capacity {
                grow(to: shift + 1)
                i = find(key).index
            }
            if !found {
                keys[i] = key
                count += 1
            }
            objects[i] = newValue
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: ManagedObjectContext.ObjectKey) -> ManagedObject? {
        var (i, found) = find(key)
        guard found else { return nil }
        let removed = objects[i]
        objects[i] = nil
        count -= 1
        // Backward shift: move later entries of the run into the hole when their home allows.
        let mask = capacity - 1
        var j = (i + 1) & mask
        while objects[j] != nil {
            let h = home(keys[j])
            // Entry j may move to i when i lies cyclically in [h, j).
            let canMove = i <= j ? (h <= i || h > j) : (h <= i && h > j)
            if canMove {
                keys[i] = keys[j]
                objects[i] = objects[j]
                objects[j] = nil
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
        let oldKeys = keys, oldObjects = objects
        shift = newShift
        keys = Array(repeating: ManagedObjectContext.ObjectKey.unused, count: 1 << shift)
        objects = Array(repeating: nil, count: 1 << shift)
        let mask = capacity - 1
        for (i, o) in oldObjects.enumerated() where o != nil {
            var j = home(oldKeys[i])
            while objects[j] != nil { j = (j + 1) & mask }
            keys[j] = oldKeys[i]
            objects[j] = o
        }
    }

    mutating func removeAll() {
        self = ObjectRegistry()
    }

    var values: [ManagedObject] { objects.compactMap { $0 } }

    /// Removes and returns every object that only this table references (the sweep of
    /// `releaseUnreferencedObjects`). The check happens in place, adding no reference.
    mutating func removeUnreferenced() -> [ManagedObject] {
        var unreferenced: [ManagedObjectContext.ObjectKey] = []
        for i in objects.indices where objects[i] != nil {
            if isKnownUniquelyReferenced(&objects[i]) { unreferenced.append(keys[i]) }
        }
        return unreferenced.compactMap { removeValue(forKey: $0) }
    }
}
