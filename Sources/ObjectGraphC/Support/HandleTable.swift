import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every handle the C interface gives out is an index and a generation in this table,
/// not a raw pointer: a NULL, released or wrong-kind handle is found out by lookup and
/// reported as an error instead of being dereferenced.
///
/// A handle is either owned (released by the caller) or lent by an owner handle; releasing
/// an owner invalidates everything it lent. The same Swift object lent twice by the same
/// owner gets the same handle, so C sees object identity as pointer equality.
final class HandleTable: @unchecked Sendable {
    static let shared = HandleTable()

    /// 24 bytes: a table of a large result's objects stays small and in the cache. What an
    /// owner lent is kept beside the table (`lendings`): few entries lend anything.
    private struct Entry {
        var box: AnyObject?
        var generation: UInt32 = 0
        /// The index of the entry that lent this one; -1 for an owned handle.
        var owner: Int32 = -1
        /// For a lent handle, the identity (address) of the Swift object it was lent for:
        /// its key in the owner's `byIdentity`. 0 for an owned handle.
        var identity: UInt = 0
    }

    /// The handles an owner lent.
    private final class Lending {
        /// By the identity of the lent Swift object.
        var byIdentity: [UInt: UInt64] = [:]
        /// Handles of managed objects that the objects remember themselves (`lendObject`),
        /// kept to be dropped with the owner; values given back since are stale and skipped
        /// (`isLive`).
        var objects: [UInt64] = []
    }

    /// Counts every handle dropped (released, given back, or lent by an owner released), so
    /// that a thread's cached lookup (`ObjectLookupCache`) knows whether it still holds.
    private let drops = Atomic<UInt64>(0)

    private var entries: [Entry] = []
    /// What each owner lent, by the owner's index, once it lends anything.
    private var lendings: [Int: Lending] = [:]
    private var free: [Int] = []
    private var mutex = pthread_mutex_t()

    private init() { pthread_mutex_init(&mutex, nil) }

    private static func value(index: Int, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index + 1)
    }

    private func decode(_ handle: OpaquePointer?) -> (index: Int, generation: UInt32)? {
        guard let handle else { return nil }
        let v = UInt64(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle))))
        let index = Int(v & 0xFFFF_FFFF) - 1
        guard index >= 0 else { return nil }
        return (index, UInt32(truncatingIfNeeded: v >> 32))
    }

    private func pointer(_ v: UInt64) -> OpaquePointer {
        OpaquePointer(bitPattern: UInt(v))!
    }

    /// Must be called with the mutex held. The entry is written whole, once: field by field,
    /// each write checked the table's uniqueness and bounds again (lending a large result
    /// writes 200,000 of them).
    private func allocate(_ box: AnyObject, owner: Int, identity: UInt = 0) -> UInt64 {
        guard let index = free.popLast() else {
            entries.append(Entry(box: box, generation: 1, owner: Int32(owner), identity: identity))
            return Self.value(index: entries.count - 1, generation: 1)
        }
        var generation = entries[index].generation &+ 1
        if generation == 0 { generation = 1 }
        entries[index] = Entry(box: box, generation: generation, owner: Int32(owner), identity: identity)
        return Self.value(index: index, generation: generation)
    }

    /// Whether `v` is a handle still lent by the entry at `ownerIndex`. Must be called with the mutex held.
    @inline(__always)
    private func isLive(_ v: UInt64, lentBy ownerIndex: Int) -> Bool {
        let i = Int(v & 0xFFFF_FFFF) - 1
        return i >= 0 && i < entries.count && entries[i].generation == UInt32(truncatingIfNeeded: v >> 32)
            && entries[i].box != nil && Int(entries[i].owner) == ownerIndex
    }

    /// A new owned handle for `box`.
    func make(_ box: AnyObject) -> OpaquePointer {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return pointer(allocate(box, owner: -1))
    }

    /// A handle for `box` lent by `owner`: the same one each time for the same `identity`.
    /// Fails when the owner is no longer valid.
    func lend(_ identity: AnyObject, from owner: OpaquePointer?, make: () -> AnyObject) throws(ObjectGraphError) -> OpaquePointer {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let ownerIndex = try validOwner(owner)
        return pointer(lendLocked(identity, ownerIndex, make))
    }

    /// The handle `owner` lends for a managed object: `lend`'s rules, but the object
    /// remembers its handle (`bindingHandle`), so lending it again is a check rather than
    /// a dictionary lookup, and a whole result is lent without hashing.
    func lendObject(_ object: ManagedObject, from owner: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let ownerIndex = try validOwner(owner)
        return pointer(lendObjectLocked(object, ownerIndex, lending(of: ownerIndex)))
    }

    /// `lendObject` for every object of a result, in order, in one pass under the lock.
    func lendObjects(_ objects: [ManagedObject], from owner: OpaquePointer?) throws(ObjectGraphError) -> [OpaquePointer] {
        var lent: [OpaquePointer] = []
        lent.reserveCapacity(objects.count)
        try lendObjects(objects, from: owner) { lent.append($1) }
        return lent
    }

    /// `lendObjects`, handing each handle to `each` with its index instead of making an array
    /// of them (a result's objects remember theirs). `each` runs with the mutex held.
    func lendObjects(_ objects: [ManagedObject], from owner: OpaquePointer?,
                     each: (Int, OpaquePointer) -> Void) throws(ObjectGraphError) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let ownerIndex = try validOwner(owner)
        // Room for them all at once, growing geometrically: reserving the exact count would
        // copy the whole table each time a small result (a to-many's members) is lent.
        reserveGeometrically(&entries, adding: objects.count)
        let lending = lending(of: ownerIndex)
        reserveGeometrically(&lending.objects, adding: objects.count)
        objects.forEachBorrowed { i, object in each(i, pointer(lendObjectLocked(object, ownerIndex, lending))) }
    }

    /// The handle `owner` lent for `object` through the object's own slot (`lendObject`),
    /// while it is still lent; nil otherwise. Must be called with the mutex held (`withBox`).
    @inline(__always)
    func lentHandleLocked(of object: ManagedObject, by owner: OpaquePointer) -> OpaquePointer? {
        guard let (ownerIndex, generation) = decode(owner), ownerIndex < entries.count,
            entries[ownerIndex].generation == generation, rememberedOwner(of: object) == ownerIndex
        else { return nil }
        return pointer(object.bindingHandle)
    }

    /// The index of the owner that lent `object` its remembered handle (`bindingHandle`),
    /// while that handle is still lent for it; nil otherwise. Must be called with the mutex held.
    @inline(__always)
    private func rememberedOwner(of object: ManagedObject) -> Int? {
        let v = object.bindingHandle
        guard v != 0 else { return nil }
        let i = Int(v & 0xFFFF_FFFF) - 1  // in range: the table never shrinks
        let owner = Int(entries[i].owner)
        return isLive(v, lentBy: owner) && entries[i].identity == UInt(bitPattern: ObjectIdentifier(object)) ? owner : nil
    }

    private func reserveGeometrically<E>(_ array: inout [E], adding n: Int) {
        let needed = array.count + n
        if needed > array.capacity { array.reserveCapacity(Swift.max(needed, array.capacity * 2)) }
    }

    /// Must be called with the mutex held; `lending` is the owner's (`lending(of:)`), passed in
    /// so that lending a result's objects does not retain and release it once per object.
    private func lendObjectLocked(_ object: ManagedObject, _ ownerIndex: Int, _ lending: Lending) -> UInt64 {
        let id = UInt(bitPattern: ObjectIdentifier(object))
        if let owner = rememberedOwner(of: object) {
            if owner == ownerIndex { return object.bindingHandle }
            // Another owner lent it first and keeps the object's own slot: this one
            // lends it through its dictionary, as any other kind of handle.
            return lendLocked(object, ownerIndex) { object }
        }
        if !lending.byIdentity.isEmpty, let existing = lending.byIdentity[id] { return existing }
        let v = allocate(object, owner: ownerIndex, identity: id)
        appendLentObject(v, to: lending, of: ownerIndex)
        object.bindingHandle = v
        return v
    }

    /// Must be called with the mutex held.
    private func appendLentObject(_ v: UInt64, to lending: Lending, of ownerIndex: Int) {
        // Before the list grows, drop the handles given back since: an owner that lends and
        // gives back in a loop keeps a list as long as what it holds, not as what it lent.
        if lending.objects.count >= 1024 && lending.objects.count == lending.objects.capacity {
            lending.objects = lending.objects.filter { isLive($0, lentBy: ownerIndex) }
            lending.objects.reserveCapacity(max(1024, lending.objects.count * 2))
        }
        lending.objects.append(v)
    }

    /// The record of what the entry at `ownerIndex` lent, made on first use. Must be called with the mutex held.
    private func lending(of ownerIndex: Int) -> Lending {
        if let existing = lendings[ownerIndex] { return existing }
        let made = Lending()
        lendings[ownerIndex] = made
        return made
    }

    /// The index of a live owner handle. Must be called with the mutex held.
    private func validOwner(_ owner: OpaquePointer?) throws(ObjectGraphError) -> Int {
        guard let (ownerIndex, generation) = decode(owner), ownerIndex < entries.count,
            entries[ownerIndex].generation == generation, entries[ownerIndex].box != nil
        else { throw HandleTable.invalid("owner handle") }
        return ownerIndex
    }

    /// The handle `ownerIndex` lends for `identity`, made on first use. Must be called with the mutex held.
    private func lendLocked(_ identity: AnyObject, _ ownerIndex: Int, _ make: () -> AnyObject) -> UInt64 {
        let id = UInt(bitPattern: ObjectIdentifier(identity))
        if let existing = lendings[ownerIndex]?.byIdentity[id] { return existing }
        let v = allocate(make(), owner: ownerIndex, identity: id)
        lending(of: ownerIndex).byIdentity[id] = v
        return v
    }

    /// Runs `body` under the table's lock (for state kept beside the table, such as the
    /// handles a results object has lent).
    func withLock<T>(_ body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// `body`'s answer for the box behind a valid handle of exactly the final class `T`, run
    /// under the table's lock: a lookup and the state kept beside the table in one lock.
    /// nil when the handle is not such a handle (the caller's full path reports why).
    func withBox<T: AnyObject, R>(_ handle: OpaquePointer?, _ type: T.Type, _ body: (T) -> R?) -> R? {
        guard let (index, generation) = decode(handle) else { return nil }
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard index < entries.count, entries[index].generation == generation, let box = entries[index].box,
            ObjectIdentifier(Swift.type(of: box)) == ObjectIdentifier(T.self)
        else { return nil }
        return body(unsafeDowncast(box, to: T.self))
    }

    /// The managed object behind a valid og_object handle: `get`, answered from the calling
    /// thread's last lookup when no handle was dropped since (`ObjectLookupCache`).
    @inline(__always)
    func object(_ handle: OpaquePointer?) throws(ObjectGraphError) -> ManagedObject {
        if let cached = withCachedObject(handle, { $0 }) { return cached }
        let seen = drops.load(ordering: .acquiring)
        let object = try get(handle, ManagedObject.self)
        // Remembered with the count read before the lookup: a drop in between makes the next
        // read look up again.
        let cache = ObjectLookupCache.current
        cache.handle = UInt(bitPattern: handle)
        cache.object = object
        cache.drops = seen
        return object
    }

    /// `body` applied to the object behind `handle` when the calling thread's last lookup
    /// was of it and still holds (as in `object`), borrowed for the call with no retain;
    /// nil otherwise, for the caller to take the full path (`object`), which fills the cache.
    @inline(__always)
    func withCachedObject<R>(_ handle: OpaquePointer?, _ body: (ManagedObject) -> R) -> R? {
        let bits = UInt(bitPattern: handle)
        guard bits != 0 else { return nil }
        let dropped = drops.load(ordering: .acquiring)
        return ObjectLookupCache.withCurrent { cache in
            guard cache.handle == bits, cache.drops == dropped else { return nil }
            return cache.withObject(body)
        }
    }

    /// `body` applied to the managed object behind a valid og_object handle, borrowed from
    /// the calling thread's last lookup when it holds (as `withCachedObject`), else looked up
    /// (`object`): a setter called ten times on one object retains it for none of them.
    @inline(__always)
    func withObject<R>(_ handle: OpaquePointer?, _ body: (ManagedObject) throws(ObjectGraphError) -> R) throws(ObjectGraphError) -> R {
        if let done = withCachedObject(handle, { x in Result { () throws(ObjectGraphError) in try body(x) } }) { return try done.get() }
        return try body(try object(handle))
    }

    /// The box behind a valid handle of kind `T`.
    @inline(__always)
    func get<T: AnyObject>(_ handle: OpaquePointer?, _ type: T.Type) throws(ObjectGraphError) -> T {
        var box: AnyObject? = nil
        if let (index, generation) = decode(handle) {
            pthread_mutex_lock(&mutex)
            // Fields read in place: copying an entry out would retain and release its box.
            entries.withUnsafeBufferPointer { buffer in
                if index < buffer.count, buffer[index].generation == generation { box = buffer[index].box }
            }
            pthread_mutex_unlock(&mutex)
        }
        guard let box else {
            throw HandleTable.invalid(handle == nil ? "NULL where \(kindName(T.self)) was expected" : "\(kindName(T.self)) handle that was released or never valid")
        }
        // Boxes are final classes: an exact type match needs no dynamic cast.
        if ObjectIdentifier(Swift.type(of: box)) == ObjectIdentifier(T.self) { return unsafeDowncast(box, to: T.self) }
        guard let typed = box as? T else {
            throw HandleTable.invalid("handle of the wrong kind: expected \(kindName(T.self)), got \(kindName(Swift.type(of: box)))")
        }
        return typed
    }

    /// The owner handle that lent `handle` (or `handle` itself when it is owned).
    func owner(of handle: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard let (index, generation) = decode(handle), index < entries.count, entries[index].generation == generation,
            entries[index].box != nil
        else { throw HandleTable.invalid("handle that was released or never valid") }
        let o = Int(entries[index].owner)
        return o < 0 ? handle! : pointer(Self.value(index: o, generation: entries[o].generation))
    }

    /// Releases an owned handle of kind `T` and everything it lent. Unknown, released and
    /// lent handles are ignored, so a double release is harmless.
    func release<T: AnyObject>(_ handle: OpaquePointer?, _ type: T.Type) {
        var dropped: [AnyObject] = []
        pthread_mutex_lock(&mutex)
        if let (index, generation) = decode(handle), index < entries.count, entries[index].generation == generation,
            entries[index].owner < 0, entries[index].box is T
        {
            drop(index, into: &dropped)
            // Reused lowest first: handles lent together then sit together in the table,
            // so reading them one after another stays in the cache.
            if dropped.count > 64 { free.sort(by: >) }
        }
        pthread_mutex_unlock(&mutex)
        // Swift objects are freed after the lock is released: their deinit may call back in.
        dropped.removeAll()
        ObjectLookupCache.forgetOnThisThread()
    }

    /// Releases every handle `owner` lent (a context that forgot its objects), keeping the
    /// owner itself: their slots and the Swift objects behind them are freed, and the old
    /// handles are invalid from then on.
    func releaseLent(by owner: OpaquePointer?) {
        var dropped: [AnyObject] = []
        pthread_mutex_lock(&mutex)
        if let (index, generation) = decode(owner), index < entries.count, entries[index].generation == generation,
            lendings[index] != nil
        {
            dropLent(by: index, into: &dropped)
            if dropped.count > 64 { free.sort(by: >) }
        }
        pthread_mutex_unlock(&mutex)
        dropped.removeAll()
        ObjectLookupCache.forgetOnThisThread()
    }

    /// Gives back one handle `owner` lent: it becomes invalid, and lending the same object
    /// again makes a new handle. Returns false when `handle` is not a live handle `owner` lent.
    func unlend(_ handle: OpaquePointer?, from owner: OpaquePointer?) -> Bool {
        withUnsafePointer(to: handle) { unlend(UnsafeBufferPointer(start: $0, count: 1), from: owner) } == 0
    }

    /// Gives back every handle of `handles` that is a live handle `owner` lent, under one
    /// lock; returns how many were not.
    func unlend(_ handles: UnsafeBufferPointer<OpaquePointer?>, from owner: OpaquePointer?) -> Int {
        var dropped: [AnyObject] = []
        var refused = 0
        pthread_mutex_lock(&mutex)
        let ownerIndex = try? validOwner(owner)
        for handle in handles {
            guard let ownerIndex, let (index, generation) = decode(handle), index < entries.count,
                entries[index].generation == generation, entries[index].box != nil, Int(entries[index].owner) == ownerIndex
            else {
                refused += 1
                continue
            }
            lendings[ownerIndex]?.byIdentity.removeValue(forKey: entries[index].identity)
            drop(index, into: &dropped)
        }
        pthread_mutex_unlock(&mutex)
        dropped.removeAll()
        ObjectLookupCache.forgetOnThisThread()
        return refused
    }

    private func drop(_ index: Int, into dropped: inout [AnyObject]) {
        drops.add(1, ordering: .releasing)
        dropLent(by: index, into: &dropped)
        if let box = entries[index].box { dropped.append(box) }
        entries[index].box = nil
        entries[index].identity = 0
        entries[index].owner = -1
        free.append(index)
    }

    /// Drops every handle the entry at `index` lent, keeping the entry.
    private func dropLent(by index: Int, into dropped: inout [AnyObject]) {
        guard let lending = lendings.removeValue(forKey: index) else { return }
        for v in lending.byIdentity.values where isLive(v, lentBy: index) { drop(Int(v & 0xFFFF_FFFF) - 1, into: &dropped) }
        for v in lending.objects where isLive(v, lentBy: index) { drop(Int(v & 0xFFFF_FFFF) - 1, into: &dropped) }
    }

    static func invalid(_ what: String) -> ObjectGraphError {
        ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.invalidHandle, message: "invalid handle: \(what)")
    }

    private func kindName(_ type: Any.Type) -> String {
        (type as? HandleBox.Type)?.kindName ?? String(describing: type)
    }
}

/// What every box behind a handle can say about its kind, for error messages.
protocol HandleBox: AnyObject {
    static var kindName: String { get }
}
