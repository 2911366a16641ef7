/// A stored row as a store hands it up: the concrete entity, primary key, row version
/// (`Z_OPT`) and one value per slot of the entity. A to-one relationship's slot holds
/// the destination's primary key as `.integer`; to-many slots hold `.null` (their
/// members are found through the inverse or a join table: `fetchMembers`).
///
/// A row is a place in a `RowBlock`, the storage that a store's read fills with many rows
/// (a fetch makes one allocation per block of rows, not one per row); the block lives while
/// any of its rows does. Values are packed in cells of 8 or 16 bytes as the entity's
/// `RowCells` lays them out, so a row of ten numbers takes 88 bytes of values. Read them by
/// slot (`row[slot]`); `values` copies them into an array, for code that wants one. Rows
/// never change after they are made.
public struct RowSnapshot {
    /// The block holding the row.
    let block: RowBlock
    /// The row's header and values, in `block`'s storage (valid while `block` is held).
    let address: UnsafeRawPointer

    public var entity: EntityDescription { RowBlock.entity(ofRowAt: address) }
    public var primaryKey: Int64 { Self.primaryKey(ofRowAt: address) }
    public var version: Int64 { address.load(fromByteOffset: RowBlock.versionOffset, as: Int64.self) }
    /// The number of values (the entity's slot count).
    public var count: Int { RowBlock.cells(ofRowAt: address).count }

    /// Whether both are the same row of the same block (not merely equal values).
    func isSame(as other: RowSnapshot?) -> Bool {
        guard let other else { return false }
        return address == other.address
    }

    /// A row holding `values`, in a block of its own.
    public static func make(entity: EntityDescription, primaryKey: Int64, version: Int64, values: [AttributeValue]) -> RowSnapshot {
        var writer = RowBlockWriter()
        return writer.make(entity: entity, primaryKey: primaryKey, version: version, values: values)
    }

    /// The value of `slot` (which must be below `count`).
    @inline(__always)
    public subscript(slot: Int) -> AttributeValue {
        Self.value(atSlot: slot, ofRowAt: address)
    }

    /// The entity's address: comparing it tells whether two rows share an entity without
    /// retaining either.
    @inline(__always)
    var entityAddress: UnsafeRawPointer { RowBlock.cells(ofRowAt: address).entityAddress }

    /// The primary key of the row at `address`, which must be alive.
    @inline(__always)
    static func primaryKey(ofRowAt address: UnsafeRawPointer) -> Int64 {
        address.load(fromByteOffset: RowBlock.primaryKeyOffset, as: Int64.self)
    }

    /// The value of `slot` of the row at `address`, which must be alive.
    @inline(__always)
    static func value(atSlot slot: Int, ofRowAt address: UnsafeRawPointer) -> AttributeValue {
        let cells = RowBlock.cells(ofRowAt: address)
        let values = address + RowBlock.rowHeaderBytes
        return RowCell.read(values + cells.offset(slot), RowCellTable.kind(slot, of: values))
    }

    /// The value of `slot`, or `.null` past the end.
    @inline(__always)
    func value(at slot: Int) -> AttributeValue {
        slot >= 0 && slot < count ? self[slot] : .null
    }

    /// A copy of every value, in slot order.
    public var values: [AttributeValue] {
        (0..<count).map { self[$0] }
    }

    /// Puts `rows` in ascending primary-key order; rows already in order (the common case)
    /// cost one pass. Sorts keys and positions, not the rows, so no row is retained per
    /// comparison.
    static func sortByPrimaryKey(_ rows: inout [RowSnapshot]) {
        var previous = Int64.min
        var ordered = true
        for row in rows {
            let key = row.primaryKey
            if key < previous { ordered = false; break }
            previous = key
        }
        if ordered { return }
        var keys = rows.enumerated().map { (key: $0.element.primaryKey, position: $0.offset) }
        keys.sort { $0.key < $1.key }
        rows = keys.map { rows[$0.position] }
    }
}

/// One object's row in a save: its entity, key, new version and values (as in a snapshot).
public struct StoreRowWrite {
    public var entity: EntityDescription
    public var primaryKey: Int64
    public var version: Int64
    public var values: [AttributeValue]

    public init(entity: EntityDescription, primaryKey: Int64, version: Int64, values: [AttributeValue]) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.version = version
        self.values = values
    }
}

/// The writes of one save, applied by a store in one transaction.
public protocol StoreSaveTransaction {
    /// Hands out `count` fresh primary keys for the hierarchy of `entity`; returns the first.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64
    func insert(_ row: StoreRowWrite) throws(ObjectGraphError)
    func update(_ row: StoreRowWrite) throws(ObjectGraphError)
    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError)
    /// Makes `members` (primary keys, in order for an ordered relationship) the whole
    /// contents of the to-many `relationship` of the row `primaryKey`. Needed for
    /// many-to-many and inverse-less to-many relationships (join tables) and for the
    /// order of ordered ones; a to-many kept through a to-one inverse is otherwise
    /// written with the members' rows.
    func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError)
    /// Optimistic locking: the versions (`Z_OPT`) that the rows with `primaryKeys` in the
    /// hierarchy of `entity` have now, as this transaction sees them (after every other
    /// writer's commit); a key whose row is gone is absent. nil when the store cannot tell.
    func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]?
    /// The row as this transaction sees it now, for a conflict's persisted snapshot; nil when gone.
    func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot?
    /// True when the store checks versions in the write itself, as Core Data's SQLite store
    /// does (`UPDATE … WHERE Z_PK = ? AND Z_OPT = ?`): a save then writes with
    /// `update(_:ifVersion:)` and `delete(entity:primaryKey:ifVersion:)` without reading
    /// versions first, and only when a row's version has moved does it roll back and check
    /// first. False: versions are read (`currentVersions`) before anything is written.
    var checksVersionsWhileWriting: Bool { get }
    /// Updates the row only if its version is still `expectedVersion`; false, writing
    /// nothing, when the version moved or the row is gone.
    func update(_ row: StoreRowWrite, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool
    /// Deletes the row only if its version is still `expectedVersion`; false, deleting
    /// nothing, when the version moved or the row is gone.
    func delete(entity: EntityDescription, primaryKey: Int64, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool
    /// Uniqueness constraints: the rows in the hierarchy of `entity`, as this transaction
    /// sees them now, whose values in `slots` (slots of `entity`) equal `values` (stored
    /// form, none null). nil when the store cannot tell: the save then checks its pending
    /// objects against each other only.
    func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]?
}

extension StoreSaveTransaction {
    public func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {}
    public func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]? { nil }
    public func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? { nil }
    public var checksVersionsWhileWriting: Bool { false }
    public func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]? { nil }

    public func update(_ row: StoreRowWrite, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool {
        guard try hasVersion(expectedVersion, row.entity, row.primaryKey) else { return false }
        try update(row)
        return true
    }

    public func delete(entity: EntityDescription, primaryKey: Int64, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool {
        guard try hasVersion(expectedVersion, entity, primaryKey) else { return false }
        try delete(entity: entity, primaryKey: primaryKey)
        return true
    }

    /// A store that cannot tell versions (`currentVersions` nil) has every row at the version expected.
    private func hasVersion(_ expected: Int64, _ entity: EntityDescription, _ primaryKey: Int64) throws(ObjectGraphError) -> Bool {
        guard let versions = try currentVersions(of: entity, primaryKeys: [primaryKey]) else { return true }
        return versions[primaryKey] == expected
    }
}

/// A save transaction that writes a batch update or delete as one statement over the rows
/// a fetch request matches, instead of row by row. Each call returns nil, writing nothing,
/// when it cannot do that exactly (a predicate SQL cannot express, derived attributes to
/// compute): the batch then writes row by row.
public protocol SetWritingTransaction {
    /// Sets `changes` (slots of `entity`) on every matching row and moves its version on.
    func updateAll(matching request: FetchRequest, of entity: EntityDescription, setting changes: [(slot: Int, value: AttributeValue)],
                   returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult?
    /// Deletes every matching row (and its many-to-many pairs).
    func deleteAll(matching request: FetchRequest, of entity: EntityDescription, returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult?
}

/// How an upsert treats a stored row that already holds a new row's constrained values.
public enum UpsertRule: Sendable {
    /// The new row's values replace the stored row's (overwrite policy).
    case overwrite
    /// The values the new row named replace the stored ones; the others stay
    /// (merge by property, object trump).
    case overwriteNamed
    /// The stored row's non-nil values stay; the new row fills its nils (merge by
    /// property, store trump).
    case keepStored
}

/// A save transaction that writes a batch of new rows with one statement per row that
/// inserts or, meeting a stored row on a uniqueness constraint, updates it (SQLite's
/// `INSERT … ON CONFLICT DO UPDATE`), instead of looking each row up first.
public protocol UpsertingTransaction {
    /// Writes `rows` of `entity` (keys `firstKey`, `firstKey + 1`, …; `named[i]`: the slots
    /// row `i` gave) under the uniqueness constraint on `constraint` (slots); a row meeting
    /// a stored row, or an earlier row of the batch, updates it by `rule` and moves its
    /// version on. Returns each row's key — the stored row's for an update — and whether
    /// it updated; nil, writing nothing, when the store cannot do this exactly (then the
    /// caller goes row by row). The key of an updated row is looked up only with
    /// `keysOfUpdates` (nil otherwise): finding it costs about as much as the write.
    func upsertAll(_ rows: [[AttributeValue]], named: [Set<Int>], of entity: EntityDescription, firstKey: Int64,
                   constraint: [Int], rule: UpsertRule, keysOfUpdates: Bool) throws(ObjectGraphError) -> [(key: Int64?, updated: Bool)]?
}

/// What a set write changed: how many rows, and (when asked for) which, with their
/// entities and their versions after the write (before it, for a delete).
public struct SetWriteResult {
    public var count: Int
    public var rows: [(entity: EntityDescription, primaryKey: Int64, version: Int64)]

    public init(count: Int, rows: [(entity: EntityDescription, primaryKey: Int64, version: Int64)]) {
        self.count = count
        self.rows = rows
    }
}

/// What a store returns for a fetch.
public struct StoreFetchResult {
    public var rows: [RowSnapshot]
    /// False when `rows` is a superset in no particular order, to be filtered in memory.
    public var isExact: Bool
    /// False when the rows carry only their identity (entity, key, version) and no values:
    /// what a store may return for `includesPropertyValues` off or a batch size.
    public var hasValues: Bool

    public init(rows: [RowSnapshot], isExact: Bool, hasValues: Bool = true) {
        self.rows = rows
        self.isExact = isExact
        self.hasValues = hasValues
    }
}

/// The members of a to-many relationship for many owners (`fetchMembers(ofAny:through:)`):
/// member rows and their owners' primary keys, position by position. Two arrays rather than
/// one of pairs, so the rows pass on to the context as they are, without a copy that
/// retains and releases every row.
public struct MemberRows {
    public var rows: [RowSnapshot]
    /// `owners[i]` is the primary key of the owner of `rows[i]`.
    public var owners: [Int64]

    public init(rows: [RowSnapshot] = [], owners: [Int64] = []) {
        precondition(rows.count == owners.count, "one owner per member row")
        self.rows = rows
        self.owners = owners
    }

    public mutating func append(_ row: RowSnapshot, owner: Int64) {
        rows.append(row)
        owners.append(owner)
    }
}

/// A persistent store: rows in, rows out. It never sees contexts or managed objects.
public protocol PersistentStore: StoreIdentity {
    var type: String { get }
    var path: String { get }
    /// `NSStoreUUID`.
    var identifier: String { get }
    var metadata: [String: PropertyListValue] { get }

    /// Rows of the request's entity that satisfy its predicate, in the request's order and
    /// window; or, when the store cannot express the predicate or order exactly, a superset
    /// of them that the caller filters, sorts and windows (`isExact` false).
    func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult
    /// The number of rows `fetchRows` selects, or nil when it cannot count them exactly.
    func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int?
    /// The row with `primaryKey` in the hierarchy of `entity`, or nil when it is gone.
    func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot?
    /// The rows whose `inverse` relationship holds `primaryKey` (a to-one pointing at it,
    /// or a to-many containing it), in the order of `inverse`'s inverse when that is ordered.
    func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// The members of the to-many `relationship` of the row `primaryKey`, in order when it
    /// is ordered; works with or without an inverse.
    func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// The rows with these primary keys in the hierarchy of `entity`, in no particular
    /// order; keys that are gone are skipped (batch faulting and prefetching).
    func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot]
    /// The members of `relationship` of every owner in `owners`, each with its owner,
    /// grouped by owner and in order within an ordered relationship (prefetching).
    func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription) throws(ObjectGraphError) -> MemberRows
    /// One row of values per dictionary result (the request's `propertiesToFetch`, grouped
    /// and aggregated as it asks), in the request's order and window. Every store gets an
    /// in-memory implementation; the SQLite store computes what it can in SQL.
    func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]]
    /// The identities (concrete entity, primary key) of the rows `fetchRows` selects, in
    /// order and window, without their values; nil when the store cannot select them exactly.
    func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]?
    /// Runs `body` in one transaction: everything it writes lands, or nothing does.
    func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError)
    func close()
    /// The configuration the store was added with; nil for the default (every entity).
    var configurationName: String? { get }
    /// The options the store was added with, unknown keys included.
    var options: [String: PropertyListValue] { get }
    /// Replaces the metadata; it is written at the store's next save.
    func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError)
    /// How the store answers a fetch of `entity` (diagnostics, `explain`).
    func explainFetch(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchExplanation
    /// Moves the store to `path` (`setURL:forPersistentStore:`), called with its
    /// coordinator's lock held; on failure it stays where it was. The default refuses.
    func move(to path: String) throws(ObjectGraphError)
    /// Records the configuration and options of a store made by a factory that did not
    /// receive them (`registerStoreType(_:factory:)`). The default ignores them.
    func adopt(configurationName: String?, options: [String: PropertyListValue])
}

/// How a store answers a fetch: the statement it runs (nil for a store that holds its rows
/// in memory), its bound values, whether the rows it returns are then filtered, sorted or
/// windowed in memory, and the database's plan.
public struct StoreFetchExplanation: Sendable {
    public let sql: String?
    public let bindings: [AttributeValue]
    public let filteredInMemory: Bool
    public let queryPlan: [String]

    public init(sql: String?, bindings: [AttributeValue], filteredInMemory: Bool, queryPlan: [String]) {
        self.sql = sql
        self.bindings = bindings
        self.filteredInMemory = filteredInMemory
        self.queryPlan = queryPlan
    }
}

extension PersistentStore {
    /// Stores that hold their rows in memory evaluate predicates and sorts there.
    public func explainFetch(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchExplanation {
        StoreFetchExplanation(sql: nil, bindings: [], filteredInMemory: true, queryPlan: [])
    }

    public var configurationName: String? { nil }
    public var options: [String: PropertyListValue] { [:] }

    public func move(to path: String) throws(ObjectGraphError) {
        throw ObjectGraphError(code: ErrorCode.storeOperation, message: "a store of type \(type) cannot be moved")
    }

    public func adopt(configurationName: String?, options: [String: PropertyListValue]) {}
    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(path)' of type \(type) does not take new metadata")
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        guard let inverse = relationship.inverseRelationship else { return [] }
        return try fetchRows(pointingAt: primaryKey, through: inverse)
    }

    /// One lookup per key: right for stores that hold their rows in memory.
    public func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for pk in primaryKeys { if let row = try fetchRow(entity: entity, primaryKey: pk) { rows.append(row) } }
        return rows
    }

    public func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription) throws(ObjectGraphError) -> MemberRows {
        var out = MemberRows()
        for owner in owners {
            for row in try fetchMembers(of: owner, through: relationship) { out.append(row, owner: owner) }
        }
        return out
    }
}
