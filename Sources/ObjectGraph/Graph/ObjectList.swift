/// An insertion-ordered set of managed objects with O(1) membership, for a context's
/// inserted, updated and deleted objects (insertion order gives saves a stable order).
struct ObjectList {
    private var slots: [ManagedObject?] = []
    private var index: [ObjectIdentifier: Int] = [:]

    var count: Int { index.count }
    var isEmpty: Bool { index.isEmpty }

    func contains(_ object: ManagedObject) -> Bool { index[ObjectIdentifier(object)] != nil }

    mutating func insert(_ object: ManagedObject) {
        let id = ObjectIdentifier(object)
        guard index[id] == nil else { return }
        index[id] = slots.count
        slots.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard let i = index.removeValue(forKey: ObjectIdentifier(object)) else { return }
        slots[i] = nil
        if slots.count > 32 && index.count < slots.count / 2 { compact() }
    }

    mutating func removeAll() {
        slots.removeAll()
        index.removeAll()
    }

    var objects: [ManagedObject] { slots.compactMap { $0 } }

    /// Drops the holes removals left. (`slots.compactMap { $0 }` assigned back to
    /// `[ManagedObject?]` would infer an optional result and keep the holes.)
    private mutating func compact() {
        let live: [ManagedObject] = slots.compactMap { $0 }
        slots = live
        index.removeAll(keepingCapacity: true)
        for (i, o) in live.enumerated() { index[ObjectIdentifier(o)] = i }
    }
}
