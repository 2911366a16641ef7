/// Values by object key (store, hierarchy root, primary key): a context's registered
/// objects (`ObjectRegistry`) and the coordinator's cached rows (`RowCache`). One table per
/// hierarchy and store (there are a handful), each an open-addressing table of primary keys
/// with linear probing: a fetch or a save, whose rows share a hierarchy and a store, finds
/// its table once and then probes by primary key alone. Swift's Dictionary would hash each
/// key with SipHash, while primary keys are dense integers that a multiplicative hash
/// spreads well for a fraction of the cost.
struct PrimaryKeyMap<Value> {
    private var tables: [PrimaryKeyTable<Value>] = []
    /// The table used last: consecutive calls are nearly always about one hierarchy.
    private var last = 0
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The index of the table of `key`'s hierarchy and store, if there is one.
    @inline(__always)
    private func tableIndex(_ key: StoredObjectKey) -> Int? {
        if last < tables.count, tables[last].root == key.root, tables[last].store == key.store { return last }
        return tables.firstIndex { $0.root == key.root && $0.store == key.store }
    }

    /// The index of the table of `key`'s hierarchy and store, made now when `create`.
    @inline(__always)
    private mutating func table(for key: StoredObjectKey, create: Bool) -> Int? {
        if let i = tableIndex(key) {
            last = i
            return i
        }
        guard create else { return nil }
        tables.append(PrimaryKeyTable(root: key.root, store: key.store))
        last = tables.count - 1
        return last
    }

    subscript(key: StoredObjectKey) -> Value? {
        get {
            guard let t = tableIndex(key) else { return nil }
            return tables[t].value(for: key.primaryKey)
        }
        set {
            guard let newValue else { removeValue(forKey: key); return }
            _ = set(newValue, for: key)
        }
    }

    /// Sets the value of `key`; true when `key` had none before.
    @discardableResult
    mutating func set(_ value: Value, for key: StoredObjectKey) -> Bool {
        let t = table(for: key, create: true).unsafelyUnwrapped
        let isNew = tables[t].set(value, for: key.primaryKey)
        if isNew { count += 1 }
        return isNew
    }

    /// Where `key`'s value is, or would go: `existing` is its value when it has one; otherwise
    /// `fill(_:at:)` puts one there. One probe either way. Nothing may change the map between
    /// the two calls. Two steps rather than a closure that makes the value: a closure's
    /// captures cost a retain and a release each, per call.
    @inline(__always)
    mutating func place(for key: StoredObjectKey) -> (existing: Value?, place: Place) {
        let t = table(for: key, create: true).unsafelyUnwrapped
        let (existing, index) = tables[t].place(for: key.primaryKey)
        return (existing, Place(table: t, index: index, primaryKey: key.primaryKey))
    }

    /// Where a key's value goes (`place(for:)`).
    struct Place {
        fileprivate let table: Int
        fileprivate let index: Int
        fileprivate let primaryKey: Int64
    }

    /// Sets the value at `place`, which `place(for:)` found empty.
    @inline(__always)
    mutating func fill(_ value: __owned Value, at place: Place) {
        tables[place.table].fill(value, at: place.index, primaryKey: place.primaryKey)
        count += 1
    }

    @discardableResult
    mutating func removeValue(forKey key: StoredObjectKey) -> Value? {
        guard let t = table(for: key, create: false), let removed = tables[t].remove(key.primaryKey) else { return nil }
        count -= 1
        return removed
    }

    /// Room for `n` more values of `key`'s hierarchy and store without growing.
    mutating func reserveCapacity(_ n: Int, like key: StoredObjectKey) {
        let t = table(for: key, create: true)!
        tables[t].reserveCapacity(tables[t].count + n)
    }

    mutating func removeAll() {
        self = PrimaryKeyMap()
    }

    /// Forgets every value of the store `store`.
    mutating func removeAll(store: Int32) {
        count -= tables.filter { $0.store == store }.reduce(0) { $0 + $1.count }
        tables.removeAll { $0.store == store }
        last = 0
    }

    var values: [Value] {
        var all: [Value] = []
        all.reserveCapacity(count)
        forEach { all.append($0) }
        return all
    }

    /// Calls `body` with every value, in place: no array of them, and no retain of each
    /// (what `values` costs a context of 200,000 objects).
    func forEach(_ body: (Value) -> Void) {
        for table in tables { table.forEach(body) }
    }

    /// Removes and returns every value for which `shouldRemove`, given it in place, is true.
    mutating func removeAll(where shouldRemove: (inout Value) -> Bool) -> [Value] {
        var removed: [Value] = []
        for t in tables.indices { removed += tables[t].removeAll(where: shouldRemove) }
        count -= removed.count
        return removed
    }
}

/// The values of one hierarchy in one store, by primary key: an open-addressing table
/// with linear probing, a power of two in size, at most four fifths full. With objects for
/// values, an entry is 16 bytes, so a table costs 20 to 40 bytes a value.
///
/// Four fifths rather than half: keys come in runs (`home`), and Fibonacci hashing spreads
/// consecutive runs nearly evenly, so dense keys probe about twice on average at 0.76 full
/// (200,000 keys in 262,144 slots), where random keys would probe about nine times on a
/// miss. Half full cost 32 to 64 bytes a value, a seventh of a fetched object.
private struct PrimaryKeyTable<Value> {
    private struct Entry {
        var primaryKey: Int64
        var value: Value?
    }

    let root: ObjectIdentifier
    let store: Int32
    private var entries: [Entry]
    /// log2 of the capacity; at least 6 (four blocks of `runBits`).
    private var shift: Int
    private(set) var count = 0

    init(root: ObjectIdentifier, store: Int32) {
        self.root = root
        self.store = store
        shift = 6
        entries = Array(repeating: Entry(primaryKey: 0, value: nil), count: 1 << shift)
    }

    private var capacity: Int { 1 << shift }

    /// Whether `n` values fit without growing (at most four fifths full).
    @inline(__always)
    private static func fits(_ n: Int, shift: Int) -> Bool { n * 5 <= (1 << shift) * 4 }

    /// Keys that differ only in their low `runBits` bits share a block.
    private static var runBits: Int { 4 }

    @inline(__always)
    private func home(_ pk: Int64) -> Int {
        // Rows arrive in primary-key order, so consecutive keys go to consecutive slots:
        // a block of 16 keys is spread by Fibonacci hashing of its number, and a key's low
        // bits pick its place in the block. A fetch then touches one run of memory per 16
        // rows instead of one line per row.
        let run = Self.runBits
        let key = UInt64(bitPattern: pk)
        let blockBits = shift - run
        let spread = Int(truncatingIfNeeded: ((key >> UInt64(run)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - blockBits))
        return (spread << run) | Int(truncatingIfNeeded: key & ((1 << UInt64(run)) - 1))
    }

    /// The slot holding `pk`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ pk: Int64) -> (index: Int, found: Bool) {
        let mask = capacity - 1
        var i = home(pk)
        return entries.withUnsafeBufferPointer { slots in
            while slots[i].value != nil {
                if slots[i].primaryKey == pk { return (i, true) }
                i = (i + 1) & mask
            }
            return (i, false)
        }
    }

    func value(for pk: Int64) -> Value? {
        let (i, found) = find(pk)
        return found ? entries[i].value : nil
    }

    /// `pk`'s value and slot, or nil and the empty slot where it goes (room is made first).
    @inline(__always)
    mutating func place(for pk: Int64) -> (existing: Value?, index: Int) {
        if !Self.fits(count + 1, shift: shift) { grow(to: shift + 1) }
        let (i, found) = find(pk)
        return (found ? entries[i].value : nil, i)
    }

    @inline(__always)
    mutating func fill(_ value: __owned Value, at index: Int, primaryKey pk: Int64) {
        entries[index] = Entry(primaryKey: pk, value: value)
        count += 1
    }

    /// Sets `value` for `pk`; true when `pk` had none before.
    mutating func set(_ value: Value, for pk: Int64) -> Bool {
        if !Self.fits(count + 1, shift: shift) { grow(to: shift + 1) }
        let (i, found) = find(pk)
        if !found { count += 1 }
        entries[i] = Entry(primaryKey: pk, value: value)
        return !found
    }

    mutating func remove(_ pk: Int64) -> Value? {
        var (i, found) = find(pk)
        guard found else { return nil }
        let removed = entries[i].value
        entries[i].value = nil
        count -= 1
        // Backward shift: move later entries of the run into the hole when their home allows.
        let mask = capacity - 1
        var j = (i + 1) & mask
        while entries[j].value != nil {
            let h = home(entries[j].primaryKey)
            // Entry j may move to i when i lies cyclically in [h, j).
            let canMove = i <= j ? (h <= i || h > j) : (h <= i && h > j)
            if canMove {
                entries[i] = entries[j]
                entries[j].value = nil
                i = j
            }
            j = (j + 1) & mask
        }
        return removed
    }

    mutating func reserveCapacity(_ n: Int) {
        var wanted = shift
        while !Self.fits(n, shift: wanted) { wanted += 1 }
        if wanted > shift { grow(to: wanted) }
    }

    private mutating func grow(to newShift: Int) {
        let old = entries
        shift = newShift
        entries = Array(repeating: Entry(primaryKey: 0, value: nil), count: 1 << shift)
        let mask = capacity - 1
        for entry in old where entry.value != nil {
            var j = home(entry.primaryKey)
            while entries[j].value != nil { j = (j + 1) & mask }
            entries[j] = entry
        }
    }

    func forEach(_ body: (Value) -> Void) {
        entries.withUnsafeBufferPointer { slots in
            for slot in slots { if let v = slot.value { body(v) } }
        }
    }

    mutating func removeAll(where shouldRemove: (inout Value) -> Bool) -> [Value] {
        var chosen: [Int64] = []
        for i in entries.indices where entries[i].value != nil {
            if shouldRemove(&entries[i].value!) { chosen.append(entries[i].primaryKey) }
        }
        return chosen.compactMap { remove($0) }
    }
}
