/// An insertion-ordered set of managed objects with O(1) membership, for a context's
/// inserted, updated and deleted objects (insertion order gives saves a stable order).
///
/// Membership is an open-addressing table of positions in `slots`, hashed on the object's
/// address: every `setValue` asks whether its object is already listed, and a Dictionary
/// would hash each address with SipHash. The object listed last is answered without a
/// probe, since a caller setting several values of one object asks about it repeatedly.
///
/// A new object, which cannot be listed yet, is appended without touching the table
/// (`appendNew`); the table catches up on the first question about another object. A
/// context inserting 50,000 objects and saving them never builds it.
struct ObjectList {
    private var slots: [ManagedObject?] = []
    /// Position in `slots` plus one, or 0 for an empty entry; a power-of-two count, at most half full.
    private var table: [Int32] = []
    /// How many of the first slots the table holds; those after were appended by `appendNew`.
    private var indexed = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func contains(_ object: ManagedObject) -> Bool {
        if let last = slots.last, last === object { return true }
        catchUp()
        return find(object).found
    }

    mutating func insert(_ object: ManagedObject) {
        if let last = slots.last, last === object { return }
        catchUp()
        if (count + 1) * 2 > table.count { rebuild(capacity: max(16, table.count * 2)) }
        let (entry, found) = find(object)
        guard !found else { return }
        slots.append(object)
        table[entry] = Int32(slots.count)
        indexed = slots.count
        count += 1
    }

    /// Lists an object the caller knows is not listed (one just made).
    mutating func appendNew(_ object: ManagedObject) {
        slots.append(object)
        count += 1
    }

    /// Enters the slots `appendNew` added in the table.
    private mutating func catchUp() {
        guard indexed < slots.count else { return }
        if count * 2 > table.count { return rebuild(capacity: count * 2) }
        let mask = table.count - 1
        for i in indexed..<slots.count {
            guard let o = slots[i] else { continue }
            var j = home(o)
            while table[j] != 0 { j = (j + 1) & mask }
            table[j] = Int32(i + 1)
        }
        indexed = slots.count
    }

    mutating func remove(_ object: ManagedObject) {
        catchUp()
        let (entry, found) = find(object)
        guard found else { return }
        slots[Int(table[entry]) - 1] = nil
        deleteEntry(entry)
        count -= 1
        if slots.count > 32 && count < slots.count / 2 { compact() }
    }

    mutating func removeAll() {
        slots.removeAll()
        table.removeAll()
        indexed = 0
        count = 0
    }

    var objects: [ManagedObject] { slots.compactMap { $0 } }

    @inline(__always)
    private func home(_ object: ManagedObject) -> Int {
        addressHome(UInt(bitPattern: ObjectIdentifier(object)), capacity: table.count)
    }

    /// The table entry holding `object`, or the empty entry where it would go.
    private func find(_ object: ManagedObject) -> (entry: Int, found: Bool) {
        guard !table.isEmpty else { return (0, false) }
        let mask = table.count - 1
        var i = home(object)
        return table.withUnsafeBufferPointer { entries in
            slots.withUnsafeBufferPointer { listed in
                while entries[i] != 0 {
                    if listed[Int(entries[i]) - 1] === object { return (i, true) }
                    i = (i + 1) & mask
                }
                return (i, false)
            }
        }
    }

    /// Empties `entry`, moving later entries of its run back where their home allows.
    private mutating func deleteEntry(_ entry: Int) {
        let mask = table.count - 1
        var hole = entry
        table[hole] = 0
        var j = (hole + 1) & mask
        while table[j] != 0 {
            // A removed object's slot is nil: its entry is already gone, so every entry met has an object.
            let h = home(slots[Int(table[j]) - 1]!)
            let canMove = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j)
            if canMove {
                table[hole] = table[j]
                table[j] = 0
                hole = j
            }
            j = (j + 1) & mask
        }
    }

    private mutating func rebuild(capacity: Int) {
        var size = 16
        while size < capacity { size <<= 1 }
        table = [Int32](repeating: 0, count: size)
        let mask = size - 1
        for (i, o) in slots.enumerated() {
            guard let o else { continue }
            var j = home(o)
            while table[j] != 0 { j = (j + 1) & mask }
            table[j] = Int32(i + 1)
        }
        indexed = slots.count
    }

    /// Drops the holes removals left. (`slots.compactMap { $0 }` assigned back to
    /// `[ManagedObject?]` would infer an optional result and keep the holes.)
    private mutating func compact() {
        let live: [ManagedObject] = slots.compactMap { $0 }
        slots = live
        rebuild(capacity: max(16, count * 2))
    }
}
