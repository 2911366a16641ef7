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

    private mutating func compact() {
        slots = slots.compactMap { $0 }
        index.removeAll(keepingCapacity: true)
        for (i, o) in slots.enumerated() { index[ObjectIdentifier(o!)] = i }
    }
}
