/// Reading one attribute of many objects in one call, for bindings whose per-call cost
/// dominates (Python through ctypes): what a property read of each would give, for the
/// objects that can be read without a store trip or a hook.
extension ManagedObjectContext {
    /// Calls `body(i, value)` with attribute `slot` of each `objects[i]` that belongs to
    /// this context and is loaded (changed, fetched, or a fault whose row is cached), and
    /// whose class and hooks would not run code when it fires (no `awakeFromFetch` to call).
    /// Objects read this way are fired, as a property read would fire them; the others are
    /// skipped, and the caller reads them one by one.
    public func readLoadedAttribute(atSlot slot: Int, of objects: [ManagedObject], _ body: (Int, AttributeValue) -> Void) throws(ObjectGraphError) {
        try readLoadedAttributes(atSlots: [slot], of: objects) { i, _, value in body(i, value) }
    }

    /// `readLoadedAttribute` for several slots in one pass over the objects: calls
    /// `body(i, k, value)` with attribute `slots[k]` of `objects[i]`. Each object is visited
    /// once, where reading slot by slot would visit (and miss the cache on) every object once
    /// per slot.
    public func readLoadedAttributes(atSlots slots: [Int], of objects: [ManagedObject],
                                     _ body: (_ object: Int, _ column: Int, AttributeValue) -> Void) throws(ObjectGraphError) {
        try checkThread()
        forEachReadable(objects, slots) { i, o, wanted in
            if let current = o.current {
                for j in wanted.indices { body(i, wanted[j].column, current[wanted[j].slot]) }
            } else if let row = o.snapshotAddress {
                // The row read by address: the object holds it, and taking it as a snapshot
                // would retain and release its block once per object.
                let count = RowBlock.cells(ofRowAt: row).count
                var read = false
                for j in wanted.indices where wanted[j].slot < count {
                    body(i, wanted[j].column, RowSnapshot.value(atSlot: wanted[j].slot, ofRowAt: row))
                    read = true
                }
                if read { o.rowCached = false }
            }
        }
    }

    /// How `readLoadedNumbers` reads: numbers stored as integers, or as doubles.
    public enum StoredNumber: Sendable {
        case integer, double
    }

    /// `readLoadedAttributes` for numbers, written straight into a binding's buffers with no
    /// `AttributeValue` made or passed per value: slot `slots[k]` of `objects[i]` goes to
    /// element `k * objects.count + i` of `values` (the bits of an `Int64` or a `Double`, as
    /// `kind` says) and of `states` (1 a number, 0 nil). A value stored otherwise, and every
    /// slot of an object not read, leaves its elements as they were.
    public func readLoadedNumbers(atSlots slots: [Int], of objects: [ManagedObject], storedAs kind: StoredNumber,
                                  values: UnsafeMutablePointer<UInt64>, states: UnsafeMutablePointer<UInt8>) throws(ObjectGraphError) {
        try checkThread()
        let n = objects.count
        let number = kind == .integer ? RowCell.integer : RowCell.double
        forEachReadable(objects, slots) { i, o, wanted in
            if let current = o.current {
                for j in wanted.indices {
                    let cell = wanted[j].column &* n &+ i
                    switch current[wanted[j].slot] {
                    case .null: states[cell] = 0
                    case .integer(let v) where kind == .integer: (values[cell], states[cell]) = (UInt64(bitPattern: v), 1)
                    case .double(let v) where kind == .double: (values[cell], states[cell]) = (v.bitPattern, 1)
                    default: break
                    }
                }
            } else if let row = o.snapshotAddress {
                let cells = RowBlock.cells(ofRowAt: row)
                let rowValues = row + RowBlock.rowHeaderBytes
                var read = false
                for j in wanted.indices where wanted[j].slot < cells.count {
                    let (column, slot) = wanted[j]
                    let cell = column &* n &+ i
                    let stored = RowCellTable.kind(slot, of: rowValues)
                    if stored == RowCell.null {
                        states[cell] = 0
                    } else if stored == number {
                        (values[cell], states[cell]) = ((rowValues + cells.offset(slot)).load(as: UInt64.self), 1)
                    }
                    read = true
                }
                if read { o.rowCached = false }
            }
        }
    }

    /// The walk both reads share: `body(i, object, wanted)` for each `objects[i]` that
    /// belongs to this context, is not detached and runs no hooks when it fires, borrowed,
    /// with the entries of `slots` its layout reads directly (attributes, transformables
    /// excepted: decoded on access), each as its index in `slots` and its slot. The last
    /// quiet entity and the last layout's wanted slots are kept, by identity: holding an
    /// object's parts would retain and release them once per object.
    @inline(__always)
    private func forEachReadable(_ objects: [ManagedObject], _ slots: [Int],
                                 _ body: (Int, ManagedObject, [(column: Int, slot: Int)]) -> Void) {
        var quietEntity: ObjectIdentifier? = nil
        var wantedLayout: ObjectIdentifier? = nil
        var wanted: [(column: Int, slot: Int)] = []
        objects.forEachBorrowed { i, o in
            guard o.link === link, !o.detached else { return }
            if ObjectIdentifier(o.entity) != quietEntity {
                guard !o.hasLifecycleHooks(in: self) else { return }
                quietEntity = ObjectIdentifier(o.entity)
            }
            if ObjectIdentifier(o.layout) != wantedLayout {
                let readable = o.layout.readsDirectly
                wanted = slots.indices.filter { slots[$0] >= 0 && slots[$0] < readable.count && readable[slots[$0]] }.map { ($0, slots[$0]) }
                wantedLayout = ObjectIdentifier(o.layout)
            }
            body(i, o, wanted)
        }
    }

    /// The address of the count of changes to this context's objects' values (see
    /// `ContextLink.changeCounter`): valid while the context or any of its objects lives.
    public var valueChangeCounter: UnsafePointer<UInt64> { UnsafePointer(link.changeCounter) }

    /// Calls `body` once, at the next change `valueChangeCounter` counts, on the thread
    /// that makes it and before the call that makes it returns. One is kept at a time:
    /// setting another (or nil) calls the one it replaces then, so that a reader whose
    /// watch another replaced learns it is no longer told. `body` runs in the middle of
    /// the change, so it must not use the context or its objects: it is for noting that
    /// values copied out no longer hold. It goes away with the context, never called then.
    public func onNextValueChange(_ body: (() -> Void)?) throws(ObjectGraphError) {
        try checkThread()
        let replaced = link.nextChangeWatcher
        link.nextChangeWatcher = body
        replaced?()
    }
}
