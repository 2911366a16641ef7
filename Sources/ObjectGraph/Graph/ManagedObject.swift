import FoundationEssentials

/// An object of the graph. Its committed values live in a shared row snapshot; a change
/// copies the values once and records the changed slots in a bit set. Every accessor
/// checks that it runs on the thread of the object's context.
///
/// Subclass it to give an entity life-cycle hooks and validation (see
/// `ManagedObject+Lifecycle.swift`), and register the subclass under the entity's class
/// name with `ManagedObjectClasses.register`. Accessors are final; only the hooks are open.
open class ManagedObject: CustomStringConvertible {
    /// The object's concrete entity (a fault is made with it known, so it never changes).
    public final let entity: EntityDescription
    /// The entity's slot layout, kept here so accessors reach it in one load instead of
    /// going through the entity. Held strongly: read through an unretained reference, its
    /// arrays would be retained and released around every value read.
    final let layout: EntityDescription.Layout
    /// The object's ID. A fetched object is made without one and gets it on first use,
    /// from its primary key and store: most fetched objects never need theirs, and one
    /// allocation per row less makes fetching faster.
    public final internal(set) var objectID: ManagedObjectID {
        get {
            switch identity {
            case .made(let id): return id
            case .pending(let store): return makeID(storeIdentifier: store.identifier)
            case .pendingWithoutStore: return makeID(storeIdentifier: "")
            }
        }
        set { identity = .made(newValue) }
    }

    private final func makeID(storeIdentifier: String) -> ManagedObjectID {
        let id = ManagedObjectID(entity: entity, primaryKey: pendingPrimaryKey, storeIdentifier: storeIdentifier)
        identity = .made(id)
        return id
    }

    /// The ID once made, or the store of the ID still to be made from `pendingPrimaryKey`:
    /// one word for both (two optional references took two).
    private enum Identity {
        case made(ManagedObjectID)
        /// A shared store name, one word (a `String` takes two).
        case pending(StoreName)
        case pendingWithoutStore
    }
    private final var identity: Identity

    /// The primary key of the ID still to be made (`identity` pending): the snapshot's row
    /// holds it while there is one, `rowOrKey` otherwise.
    private final var pendingPrimaryKey: Int64 {
        snapshotBlock != nil ? RowSnapshot.primaryKey(ofRowAt: UnsafeRawPointer(bitPattern: rowOrKey).unsafelyUnwrapped)
            : Int64(bitPattern: UInt64(rowOrKey))
    }

    private static func identity(_ id: ManagedObjectID?, _ store: StoreName?) -> Identity {
        if let id { return .made(id) }
        if let store { return .pending(store) }
        return .pendingWithoutStore
    }

    private final var madeID: ManagedObjectID? {
        if case .made(let id) = identity { return id }
        return nil
    }

    /// Whether the object's ID is temporary (a new object not saved yet), without making
    /// the ID of an object that has none yet (those are all permanent).
    final var hasTemporaryID: Bool { madeID?.isTemporaryID ?? false }

    /// Makes a saved new object's ID permanent without making the ID now: it is made on
    /// first use, as a fetched object's is, and most saved objects never need theirs.
    final func becomePermanent(primaryKey: Int64, store: StoreName) {
        if snapshotBlock == nil {
            rowOrKey = UInt(bitPattern: Int(primaryKey))
        } else if pendingPrimaryKey != primaryKey {
            // The row names another key (a row made while the ID was temporary): made now.
            identity = .made(ManagedObjectID(entity: entity, primaryKey: primaryKey, storeIdentifier: store.identifier))
            return
        }
        identity = .pending(store)
    }

    /// Whether the ID is still to be made, from `pendingPrimaryKey`.
    private final var isPending: Bool {
        if case .made = identity { return false }
        return true
    }

    /// The primary key of a permanent ID without making the ID (0 while temporary).
    final var primaryKey: Int64 { madeID?.primaryKey ?? pendingPrimaryKey }
    /// The link of the context the object was made in, for its whole life (immutable, so
    /// reading it costs no retain); `detached` says when the object has left that context.
    final let link: ContextLink
    /// The context the object lives in; nil once it is detached or the context is gone.
    /// Only nil can be assigned (an object never moves to another context).
    public final internal(set) var managedObjectContext: ManagedObjectContext? {
        get { detached ? nil : link.context }
        set { detached = newValue == nil }
    }

    /// Committed state; nil for a new object or a fault not yet fired.
    final var snapshot: RowSnapshot? {
        get { snapshotBlock.map { RowSnapshot(block: $0, address: UnsafeRawPointer(bitPattern: rowOrKey).unsafelyUnwrapped) } }
        set {
            guard let newValue else {
                // A pending ID's key leaves the row with it.
                if snapshotBlock != nil {
                    if isPending { rowOrKey = UInt(bitPattern: Int(pendingPrimaryKey)) }
                    snapshotBlock = nil
                }
                return
            }
            // A row of another key would change a pending ID's: the ID is made first.
            if isPending, newValue.primaryKey != pendingPrimaryKey { _ = objectID }
            rowOrKey = UInt(bitPattern: newValue.address)
            snapshotBlock = newValue.block
        }
    }
    /// The snapshot as its two parts, so that a read finds the row without taking the
    /// snapshot out of the object (which retains and releases its block around the read).
    private final var snapshotBlock: RowBlock?
    /// With `snapshotBlock`, the address of its row; without one, the primary key of the ID
    /// still to be made. One word for both: a fetched object's key is its row's, and a
    /// fetched object is then 104 bytes, a smaller malloc chunk than with one word more.
    private final var rowOrKey: UInt
    /// The address of the snapshot's row (nil without one): valid while `snapshotBlock` holds it.
    @inline(__always)
    final var snapshotAddress: UnsafeRawPointer? {
        snapshotBlock == nil ? nil : UnsafeRawPointer(bitPattern: rowOrKey)
    }

    /// Working attribute values, present once the object is inserted or changed.
    var current: [AttributeValue]?
    /// Which slots changed since the last save: slots below 64 here, any others in `extras`
    /// (an entity rarely has 64 properties, and a word less keeps the object small).
    var changedSlots: SlotSet {
        get { SlotSet(low: changedLow, high: extras?.changedHigh ?? []) }
        set {
            changedLow = newValue.low
            if !newValue.high.isEmpty {
                if extras == nil { extras = ObjectExtras() }
                extras.unsafelyUnwrapped.changedHigh = newValue.high
            } else if let extras, !extras.changedHigh.isEmpty {
                extras.changedHigh = []
            }
        }
    }
    private final var changedLow: UInt64 = 0

    /// Marks `slot` changed (`changedSlots.insert`, without making a set for a low slot).
    @inline(__always)
    final func markChanged(_ slot: Int) {
        if slot < 64 { changedLow |= 1 << UInt64(slot) } else { changedSlots.insert(slot) }
    }

    /// Forgets which slots changed (`changedSlots.removeAll`).
    @inline(__always)
    final func clearChanges() {
        changedLow = 0
        if let extras, !extras.changedHigh.isEmpty { extras.changedHigh = [] }
    }

    /// Whether `slot` changed since the last save (`changedSlots.contains`, without making a set).
    @inline(__always)
    final func isChanged(_ slot: Int) -> Bool {
        slot < 64 ? changedLow & (1 << UInt64(slot)) != 0 : changedSlots.contains(slot)
    }

    /// Whether any slot changed since the last save.
    @inline(__always)
    final var hasChangedSlots: Bool { changedLow != 0 || (extras?.changedHigh.contains { $0 != 0 } ?? false) }
    /// Loaded relationship contents by slot (kept in `extras`).
    final var relations: [RelationState?]? {
        get { extras?.relations }
        _modify {
            if extras == nil { extras = ObjectExtras() }
            yield &extras.unsafelyUnwrapped.relations
        }
    }
    /// What few objects need, made on first need: a fetched object without relationships
    /// read or a fault batch is one word smaller for it (and in a smaller malloc chunk).
    private final var extras: ObjectExtras?

    /// Drops loaded relationship contents; writes nothing when there are none (most
    /// fetched objects), so a pass over every object stays a pass of reads.
    @inline(__always)
    final func forgetRelations() { if extras?.relations != nil { extras.unsafelyUnwrapped.relations = nil } }
    /// The flags below, one bit each, and above them the context's change stamp at this
    /// object's last change: one word for all (a word less puts a fetched object in a
    /// smaller allocation).
    private final var flagsAndStamp: UInt64 = 0

    @inline(__always) private final func flag(_ bit: UInt64) -> Bool { flagsAndStamp & bit != 0 }
    @inline(__always) private final func setFlag(_ bit: UInt64, _ on: Bool) {
        flagsAndStamp = on ? flagsAndStamp | bit : flagsAndStamp & ~bit
    }
    private static let flagBits: UInt64 = 8

    public final internal(set) var isInserted: Bool {
        get { flag(1 << 0) }
        set { setFlag(1 << 0, newValue) }
    }
    public final internal(set) var isDeleted: Bool {
        get { flag(1 << 1) }
        set { setFlag(1 << 1, newValue) }
    }
    /// An insert deleted before any save: it leaves the context once its rules apply.
    final var forgottenInsert: Bool {
        get { flag(1 << 2) }
        set { setFlag(1 << 2, newValue) }
    }
    /// A fault whose row was gone when it fired (`shouldDeleteInaccessibleFaults`).
    final var rowGone: Bool {
        get { flag(1 << 3) }
        set { setFlag(1 << 3, newValue) }
    }
    /// A fetched fault whose row is already here: it fires without a store trip
    /// (`returnsObjectsAsFaults`, the default).
    final var rowCached: Bool {
        get { flag(1 << 4) }
        set { setFlag(1 << 4, newValue) }
    }
    /// Whether the object has left the context of its `link`.
    final var detached: Bool {
        get { flag(1 << 5) }
        set { setFlag(1 << 5, newValue) }
    }
    /// The context's change stamp at this object's last change (56 bits: a context would
    /// need thousands of years of changes to run out).
    final var lastChange: Int {
        get { Int(flagsAndStamp >> Self.flagBits) }
        set { flagsAndStamp = UInt64(newValue) << Self.flagBits | flagsAndStamp & ((1 << Self.flagBits) - 1) }
    }
    /// The batch this fault loads with when it fires (`fetchBatchSize`), kept in `extras`.
    final var faultBatch: FaultBatch? {
        get { extras?.faultBatch }
        set {
            if newValue == nil && extras == nil { return }
            if extras == nil { extras = ObjectExtras() }
            extras.unsafelyUnwrapped.faultBatch = newValue
        }
    }
    /// The C interface's handle for this object (0: none yet), written and read under its
    /// handle table's lock: lending an object again finds it here without a lookup.
    package final var bindingHandle: UInt64 = 0

    /// What the context hands a new instance; subclasses pass it on unchanged.
    public struct Construction {
        let entity: EntityDescription
        /// The ID, or nil for a fetched object whose ID is made from these when first used.
        let id: ManagedObjectID?
        let context: ManagedObjectContext
        let snapshot: RowSnapshot?
        var primaryKey: Int64 = 0
        var store: StoreName? = nil
    }

    public required init(_ construction: Construction) {
        self.entity = construction.entity
        self.layout = construction.entity.layout
        (self.identity, self.rowOrKey) = Self.start(construction.entity, construction.id, construction.store,
                                                    construction.snapshot, construction.primaryKey)
        self.link = construction.context.link
        self.snapshotBlock = construction.snapshot?.block
    }

    /// The base class's own initialiser, called directly when no subclass is registered:
    /// going through the metatype passes a `Construction` indirectly and copies it field by
    /// field with value witnesses, which cost more per fetched row than the allocation.
    private init(entity: EntityDescription, layout: EntityDescription.Layout, link: ContextLink, id: ManagedObjectID?,
                 snapshot: RowSnapshot?, primaryKey: Int64, store: StoreName?) {
        self.entity = entity
        self.layout = layout
        (self.identity, self.rowOrKey) = Self.start(entity, id, store, snapshot, primaryKey)
        self.link = link
        self.snapshotBlock = snapshot?.block
    }

    /// A new instance's identity and `rowOrKey`. A pending ID's key is its row's, so a row
    /// of another key (a store's read never makes one) has the ID made at once.
    @inline(__always)
    private static func start(_ entity: EntityDescription, _ id: ManagedObjectID?, _ store: StoreName?,
                              _ snapshot: RowSnapshot?, _ primaryKey: Int64) -> (Identity, UInt) {
        guard let address = snapshot?.address else { return (identity(id, store), UInt(bitPattern: Int(primaryKey))) }
        if id == nil, RowSnapshot.primaryKey(ofRowAt: address) != primaryKey {
            let made = ManagedObjectID(entity: entity, primaryKey: primaryKey, storeIdentifier: store?.identifier ?? "")
            return (.made(made), UInt(bitPattern: address))
        }
        return (identity(id, store), UInt(bitPattern: address))
    }

    /// A new instance of `type` (a class registered for the entity, or this one).
    @inline(__always)
    static func instantiate(_ type: ManagedObject.Type, entity: EntityDescription, layout: EntityDescription.Layout, context: ManagedObjectContext,
                            id: ManagedObjectID?, snapshot: RowSnapshot?, primaryKey: Int64 = 0, store: StoreName? = nil) -> ManagedObject {
        if type == ManagedObject.self {
            return ManagedObject(entity: entity, layout: layout, link: context.link, id: id, snapshot: snapshot,
                                 primaryKey: primaryKey, store: store)
        }
        return type.init(Construction(entity: entity, id: id, context: context, snapshot: snapshot,
                                      primaryKey: primaryKey, store: store))
    }

    /// An instance of the class registered for `entity` (this class when none is).
    static func make(entity: EntityDescription, id: ManagedObjectID, context: ManagedObjectContext, snapshot: RowSnapshot?) -> ManagedObject {
        instantiate(context.objectClass(for: entity), entity: entity, layout: entity.layout, context: context, id: id, snapshot: snapshot)
    }

    open var description: String { "<\(entity.name) \(objectID.uriRepresentation)>" }

    /// Whether the object's values have not been loaded yet.
    public final var isFault: Bool { rowCached || isUnloaded }

    /// A fault with no row at all (firing it reads the store).
    final var isUnloaded: Bool { snapshotBlock == nil && current == nil && !isInserted }

    /// Whether the object has unsaved changes (inserted, deleted or updated).
    public final var isUpdated: Bool { !isInserted && !isDeleted && hasChangedSlots }

    public final var hasChanges: Bool { isInserted || isDeleted || hasChangedSlots }

    // MARK: Life-cycle hooks and validation
    // Core Data's hooks. Subclasses override them; the base implementations run the
    // closures registered for the entity (ObjectHooks), which is how C and Python take part.

    /// After insertion; values set here are the object's starting values.
    open func awakeFromInsert() { hooks?.awakeFromInsert?(self) }
    /// After the object's values are loaded from the store, with change processing off:
    /// changes made here do not dirty the object.
    open func awakeFromFetch() { hooks?.awakeFromFetch?(self) }
    /// After a rollback or refresh restored the object's values.
    open func awakeFromSnapshotEvents(_ events: SnapshotEvents) { hooks?.awakeFromSnapshotEvents?(self, events) }
    /// Before the object is saved (inserted, updated or deleted). Changes made here are
    /// saved too; the hook runs again on objects changed since, a bounded number of times.
    /// Called before the object is saved; its entity's `willSave` hook runs after it
    /// (the context calls both, so a hook can fail the save).
    open func willSave() {}
    /// After the save that wrote the object.
    open func didSave() { hooks?.didSave?(self) }
    /// When the object is deleted, before its relationships are torn down.
    open func prepareForDeletion() { hooks?.prepareForDeletion?(self) }
    open func willTurnIntoFault() { hooks?.willTurnIntoFault?(self) }
    open func didTurnIntoFault() { hooks?.didTurnIntoFault?(self) }

    /// Validates one property's value, returning the value to use (possibly coerced).
    /// The model's rules have already passed when this runs.
    open func validateValue(_ value: PredicateValue, forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        try hooks?.validateValue?(self, key, value) ?? value
    }
    /// Validates the whole object before it is first saved: every property by default.
    open func validateForInsert() throws(ObjectGraphError) {
        try validateProperties()
        try hooks?.validateForInsert?(self)
    }
    open func validateForUpdate() throws(ObjectGraphError) {
        try validateProperties()
        try hooks?.validateForUpdate?(self)
    }
    /// Validates a deletion: deny rules by default.
    open func validateForDelete() throws(ObjectGraphError) {
        try validateDenyRules()
        try hooks?.validateForDelete?(self)
    }


    // MARK: Access checks

    /// The context, checked: present and owned by the calling thread.
    @inline(__always)
    func context() throws(ObjectGraphError) -> ManagedObjectContext {
        guard !detached, let context = link.context else {
            throw .objectInaccessible("\(description) is no longer registered with a context (it was deleted and saved, or its context is gone)")
        }
        try context.checkThread()
        return context
    }

    func slot(_ key: String) throws(ObjectGraphError) -> Int {
        guard let slot = entity.slot(forKey: key) else { throw .unknownKey(key, entity: entity.name) }
        return slot
    }

    @inline(__always)
    func checkSlot(_ slot: Int) throws(ObjectGraphError) {
        guard slot >= 0, slot < layout.kinds.count else { throw slotOutOfRange(slot) }
    }

    @inline(never)
    func slotOutOfRange(_ slot: Int) -> ObjectGraphError {
        .invalidArgument("slot \(slot) is out of range for entity '\(entity.name)' (\(layout.kinds.count) slots)")
    }

    @inline(never)
    func notAnAttribute(_ slot: Int, key: String?) -> ObjectGraphError {
        .wrongKind(key: key ?? layout.properties[slot].name, entity: entity.name, expected: "an attribute; use the relationship accessors")
    }

    /// Loads the committed values of a fault; a row that is gone is error 133000.
    /// With `strict`, a row that is gone is 133000 even when the context would otherwise
    /// turn the fault into a deleted object (`existingObject(with:)`).
    func fireFault(_ context: ManagedObjectContext, strict: Bool = false) throws(ObjectGraphError) {
        guard isFault else { return }
        if let batch = faultBatch {
            faultBatch = nil
            try batch.load(context)
        }
        if rowCached {
            rowCached = false
            if snapshotBlock != nil {
                awakeFromFetchIgnoringErrors(context)
                return
            }
        }
        guard let row = try context.sourceRow(objectID) else {
            if context.shouldDeleteInaccessibleFaults && !strict {
                // shouldDeleteInaccessibleFaults: a deleted object with empty values.
                snapshot = RowSnapshot.make(entity: entity, primaryKey: primaryKey, version: 0,
                                       values: [AttributeValue](repeating: .null, count: layout.kinds.count))
                isDeleted = true
                rowGone = true
                return
            }
            throw ObjectGraphError(
                code: ErrorCode.referentialIntegrity,
                message: "the object \(objectID.uriRepresentation) no longer exists in the store; its fault cannot be fulfilled",
                userInfo: [(ErrorUserInfoKey.validationObject, objectID.uriRepresentation)])
        }
        snapshot = row
        awakeFromFetchIgnoringErrors(context)
    }

    // MARK: Attributes

    public final func value(forKey key: String) throws(ObjectGraphError) -> AttributeValue {
        // A known key reads as its slot does, through value(atSlot:)'s common cases, which
        // need not load the context (a weak reference) and check its thread.
        if let slot = entity.slot(forKey: key) { return try value(atSlot: slot) }
        let context = try context()
        return try attribute(at: try slot(key), key: key, context)
    }

    public final func value(atSlot slot: Int) throws(ObjectGraphError) -> AttributeValue {
        // The common cases without touching the context: an attribute on the owner thread of
        // an object that is loaded, or a fault with its row here that fires without a hook.
        if !detached, link.isOwnedByCurrentThread, slot >= 0, slot < layout.readsDirectly.count, layout.readsDirectly[slot] {
            if let current { return current[slot] }
            // The row read by address: the object holds it, and nothing here lets it go.
            if let row = snapshotAddress {
                if !rowCached { return RowSnapshot.value(atSlot: slot, ofRowAt: row) }
                if firesQuietly {
                    rowCached = false
                    return RowSnapshot.value(atSlot: slot, ofRowAt: row)
                }
            }
        }
        let context = try context()
        try checkSlot(slot)
        return try attribute(at: slot, key: nil, context)
    }

    @inline(__always)
    func attribute(at slot: Int, key: String?, _ context: ManagedObjectContext) throws(ObjectGraphError) -> AttributeValue {
        guard case .attribute(let type) = layout.kinds[slot] else { throw notAnAttribute(slot, key: key) }
        if let value = readyValue(slot) { return type == .transformable ? try transformed(value, at: slot) : value }
        try fireFault(context)
        // awakeFromFetch may have set values.
        guard let value = readyValue(slot) else { throw .objectInaccessible("\(description) has no values to read") }
        return type == .transformable ? try transformed(value, at: slot) : value
    }

    /// Whether this fault, its row cached, fires by clearing `rowCached`: no batch to load
    /// and no `awakeFromFetch` to call. Only on the owner thread, with the context attached.
    @inline(__always)
    private final var firesQuietly: Bool {
        guard faultBatch == nil, let context = link.context else { return false }
        return !hasLifecycleHooks(in: context)
    }

    /// A slot's value when reading it needs no fault to fire: changed or loaded values, not
    /// a fault's cached row (whose first read fires it).
    @inline(__always)
    func readyValue(_ slot: Int) -> AttributeValue? {
        if let current { return current[slot] }
        if !rowCached, let row = snapshotAddress { return RowSnapshot.value(atSlot: slot, ofRowAt: row) }
        return nil
    }

    /// An attribute's value when the object has it in memory (changed, loaded, or a fault
    /// with its row cached), without firing anything; nil otherwise or for a relationship.
    func loadedValue(_ slot: Int) -> AttributeValue? {
        guard case .attribute = layout.kinds[slot] else { return nil }
        if let current { return current[slot] }
        return snapshot?[slot]
    }

    public final func setValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        try setAttribute(value, at: try slot(key), context)
    }

    public final func setValue(_ value: AttributeValue, atSlot slot: Int) throws(ObjectGraphError) {
        let context = try context()
        try checkSlot(slot)
        try setAttribute(value, at: slot, context)
    }

    /// Sets several attributes as one change: `values[i]` into slot `slots[i]`. Every slot
    /// and value is checked first (range, kind, type), so a refused one sets nothing.
    public final func setValues(_ values: [AttributeValue], atSlots slots: [Int]) throws(ObjectGraphError) {
        guard values.count == slots.count else { throw .invalidArgument("\(values.count) values for \(slots.count) slots") }
        try setValues(count: slots.count, slot: { slots[$0] }, value: { values[$0] })
    }

    /// `setValues(_:atSlots:)` from any storage (the C interface passes pointers).
    @inline(__always)
    package final func setValues(count: Int, slot: (Int) -> Int, value: (Int) -> AttributeValue) throws(ObjectGraphError) {
        let context = try context()
        var asGiven = true  // every value already of its attribute's stored type
        for i in 0..<count {
            let s = slot(i)
            try checkSlot(s)
            guard case .attribute(let type) = layout.kinds[s] else { throw notAnAttribute(s, key: nil) }
            if type == .transformable || !value(i).isStored(as: type) { asGiven = false }
        }
        guard asGiven else { return try setConverting(count: count, slot: slot, value: value, context) }
        if current == nil { try makeWritable(context) }
        context.willChange(self)
        for i in 0..<count {
            let s = slot(i)
            current![s] = value(i)
            markChanged(s)
        }
        context.didChange(self)
    }

    /// Values to convert (or transformable ones): all converted first, then set one by one.
    private func setConverting(count: Int, slot: (Int) -> Int, value: (Int) -> AttributeValue,
                               _ context: ManagedObjectContext) throws(ObjectGraphError) {
        var converted: [(slot: Int, value: AttributeValue)] = []
        converted.reserveCapacity(count)
        for i in 0..<count {
            let s = slot(i), v = value(i)
            guard case .attribute(let type) = layout.kinds[s] else { throw notAnAttribute(s, key: nil) }
            let stored = type == .transformable || v.isStored(as: type) ? v : try v.coerced(to: type, key: layout.properties[s].name, entity: entity.name)
            converted.append((s, stored))
        }
        for (s, v) in converted { try setAttribute(v, at: s, context) }
    }

    func setAttribute(_ value: AttributeValue, at slot: Int, _ context: ManagedObjectContext) throws(ObjectGraphError) {
        guard case .attribute(let type) = layout.kinds[slot] else { throw notAnAttribute(slot, key: nil) }
        if type == .transformable { return try setTransformable(value, at: slot, context) }
        let stored = value.isStored(as: type) ? value : try value.coerced(to: type, key: layout.properties[slot].name, entity: entity.name)
        if current == nil { try makeWritable(context) }
        context.willChange(self)
        current![slot] = stored
        markChanged(slot)
        context.didChange(self)
    }

    /// Copies the committed values once, before the first change.
    func makeWritable(_ context: ManagedObjectContext) throws(ObjectGraphError) {
        if current != nil { return }
        try fireFault(context)
        current = snapshot?.values ?? layout.defaults
    }

    // MARK: Relationships

    func relationship(_ key: String, toMany: Bool) throws(ObjectGraphError) -> RelationshipDescription {
        let slot = try slot(key)
        switch entity.layout.kinds[slot] {
        case .toOne(let r) where !toMany: return r
        case .toMany(let r) where toMany: return r
        case .toOne: throw .wrongKind(key: key, entity: entity.name, expected: "a to-many relationship")
        case .toMany: throw .wrongKind(key: key, entity: entity.name, expected: "a to-one relationship")
        case .attribute: throw .wrongKind(key: key, entity: entity.name, expected: "a relationship")
        }
    }

    /// The destination of a to-one relationship, or nil.
    public final func object(forKey key: String) throws(ObjectGraphError) -> ManagedObject? {
        let context = try context()
        return try toOne(try relationship(key, toMany: false), context)
    }

    /// Sets a to-one relationship; the inverse follows on both the old and new destination.
    public final func setObject(_ destination: ManagedObject?, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let r = try relationship(key, toMany: false)
        try context.check(destination, for: r)
        try context.setToOne(self, r, destination)
    }

    /// The destinations of a to-many relationship.
    public final func objects(forKey key: String) throws(ObjectGraphError) -> [ManagedObject] {
        let context = try context()
        return try toMany(try relationship(key, toMany: true), context).members
    }

    /// Adds a destination to a to-many relationship; the inverse follows.
    public final func addObject(_ destination: ManagedObject, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let r = try relationship(key, toMany: true)
        try context.check(destination, for: r)
        try context.addToMany(self, r, destination)
    }

    /// Makes `destinations` the whole contents of a to-many relationship (in this order for
    /// an ordered one): removed members lose their inverse, added ones gain it.
    public final func setObjects(_ destinations: [ManagedObject], forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let r = try relationship(key, toMany: true)
        for d in destinations { try context.check(d, for: r) }
        let wanted = Set(destinations.map(ObjectIdentifier.init))
        for old in try toMany(r, context).members where !wanted.contains(ObjectIdentifier(old)) {
            try context.removeFromMany(self, r, old)
        }
        for (i, d) in destinations.enumerated() {
            try context.addToMany(self, r, d)
            if r.isOrdered {
                context.willChange(self)
                try toMany(r, context).move(d, to: i)
            }
        }
        context.mark(self, r.slot)
    }

    /// Inserts a destination at `position` of an ordered to-many relationship (appends for
    /// an unordered one); the inverse follows.
    public final func insertObject(_ destination: ManagedObject, at position: Int, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let r = try relationship(key, toMany: true)
        try context.check(destination, for: r)
        try context.addToMany(self, r, destination)
        if r.isOrdered {
            context.willChange(self)
            try toMany(r, context).move(destination, to: position)
            context.mark(self, r.slot)
        }
    }

    /// Removes a destination from a to-many relationship; the inverse follows.
    public final func removeObject(_ destination: ManagedObject, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let r = try relationship(key, toMany: true)
        try context.check(destination, for: r)
        try context.removeFromMany(self, r, destination)
    }

    func state(_ slot: Int) -> RelationState? { relations?[slot] }

    func setState(_ state: RelationState, _ slot: Int) {
        if relations == nil { relations = [RelationState?](repeating: nil, count: entity.layout.kinds.count) }
        relations![slot] = state
    }

    /// The current to-one destination, loading it from the snapshot the first time.
    func toOne(_ r: RelationshipDescription, _ context: ManagedObjectContext) throws(ObjectGraphError) -> ManagedObject? {
        if let s = state(r.slot) { return s.target }
        var target: ManagedObject?
        if !isInserted {
            try fireFault(context)
            if context.parentContext != nil, let known = try context.parentTarget(of: self, slot: r.slot) {
                target = known
            } else if case .integer(let pk)? = snapshot?[r.slot], let destination = r.destinationEntity {
                target = try context.object(entity: destination, primaryKey: pk, in: try context.storeRef(of: objectID))
            }
        }
        let s = RelationState()
        s.target = target
        setState(s, r.slot)
        return target
    }

    /// The loaded to-many contents: the store's rows, corrected by this context's pending changes.
    func toMany(_ r: RelationshipDescription, _ context: ManagedObjectContext) throws(ObjectGraphError) -> RelationState {
        if let s = state(r.slot) { return s }
        let s = RelationState()
        if let inverse = r.inverseRelationship, !inverse.isToMany {
            for member in try context.objects(pointingAt: self, through: inverse) { s.add(member) }
        } else if r.isTransient {
            // Nothing stores a transient relationship: it starts empty.
        } else if !isInserted, context.parentContext == nil, context.persistentStoreCoordinator.hasObjectLevelStores,
            let keys = try RequestingContext.with(context, { () throws(ObjectGraphError) in try context.persistentStoreCoordinator.memberKeys(of: objectID, through: r) })
        {
            // A store that names the members without their values: faults.
            let store = try context.storeRef(of: objectID)
            for (entity, key) in keys {
                let member = try context.object(entity: entity, primaryKey: key, in: store, isConcrete: true)
                if !member.isDeleted { s.add(member) }
            }
        } else if r.isTransient {
            // Nothing stores a transient relationship: it starts empty.
        } else if !isInserted, let parent = context.parentContext {
            for id in try parent.membersForChild(objectID, r) {
                let member = try context.childObject(forParent: id)
                if !member.isDeleted { s.add(member) }
            }
        } else if !isInserted {
            // Many-to-many and inverse-less: the store's join table. Both sides of a pair are
            // loaded before either changes, so what is loaded later agrees with memory.
            let store = try context.storeRef(of: objectID)
            for row in try context.persistentStoreCoordinator.fetchMembers(of: objectID, through: r) {
                let member = context.object(for: row, in: store)
                if !member.isDeleted { s.add(member) }
            }
        }
        setState(s, r.slot)
        return s
    }
}

/// The loaded contents of one relationship of one object.
final class RelationState {
    var target: ManagedObject?
    private(set) var members: [ManagedObject] = []
    /// Positions by identity, built only once a to-many grows past `scanLimit`: most are
    /// small, and a scan of a few pointers costs less than a dictionary per relationship.
    private var index: [ObjectIdentifier: Int]?
    private static let scanLimit = 32

    init() {}

    /// Contents known to hold no object twice (a store's rows for one owner through a
    /// to-one inverse), taken without the duplicate check that `add` makes per member.
    init(distinctMembers: [ManagedObject]) {
        members = distinctMembers
    }

    private func position(of o: ManagedObject) -> Int? {
        if let index { return index[ObjectIdentifier(o)] }
        if members.count <= Self.scanLimit { return members.firstIndex { $0 === o } }
        var built: [ObjectIdentifier: Int] = [:]
        built.reserveCapacity(members.count * 2)
        for (i, m) in members.enumerated() { built[ObjectIdentifier(m)] = i }
        index = built
        return built[ObjectIdentifier(o)]
    }

    func contains(_ o: ManagedObject) -> Bool { position(of: o) != nil }

    func add(_ o: ManagedObject) {
        guard position(of: o) == nil else { return }
        index?[ObjectIdentifier(o)] = members.count
        members.append(o)
    }

    /// Removes a member, keeping the others in order (ordered relationships depend on it).
    func remove(_ o: ManagedObject) {
        guard let i = position(of: o) else { return }
        members.remove(at: i)
        guard index != nil else { return }
        index!.removeValue(forKey: ObjectIdentifier(o))
        for j in i..<members.count { index![ObjectIdentifier(members[j])] = j }
    }

    /// Moves a member to `position` (clamped), for ordered relationships.
    func move(_ o: ManagedObject, to position: Int) {
        guard let i = self.position(of: o) else { return }
        members.remove(at: i)
        let p = max(0, min(position, members.count))
        members.insert(o, at: p)
        guard index != nil else { return }
        for j in min(i, p)..<members.count { index![ObjectIdentifier(members[j])] = j }
    }
}

/// The state of a managed object that most objects never have.
final class ObjectExtras {
    var relations: [RelationState?]?
    var faultBatch: FaultBatch?
    /// `changedSlots` from slot 64 on.
    var changedHigh: [UInt64] = []
}
