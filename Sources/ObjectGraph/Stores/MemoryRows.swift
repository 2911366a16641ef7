import FoundationEssentials

/// Rows kept in memory, per inheritance hierarchy, with the contents of to-many
/// relationships kept per owner: the state of the in-memory store and of atomic stores.
/// A value type, so a save works on a copy and lands only when it succeeds.
public struct MemoryRows {
    /// Per root entity: its rows by primary key.
    var rows: [ObjectIdentifier: [Int64: RowSnapshot]] = [:]
    /// Per root entity: the largest primary key handed out.
    var maxKeys: [ObjectIdentifier: Int64] = [:]
    /// Per to-many relationship written with `setMembers`: owner key → member keys, in order.
    var members: [ObjectIdentifier: [Int64: [Int64]]] = [:]

    public init() {}

    /// Every row, in hierarchy-then-key order.
    public var allRows: [RowSnapshot] {
        rows.values.flatMap { $0.values }.sorted {
            $0.entity.rootEntity.name != $1.entity.rootEntity.name
                ? $0.entity.rootEntity.name < $1.entity.rootEntity.name : $0.primaryKey < $1.primaryKey
        }
    }

    /// The largest key handed out in the hierarchy of `root`.
    public func maxKey(_ root: EntityDescription) -> Int64 { maxKeys[ObjectIdentifier(root.rootEntity)] ?? 0 }

    /// Members recorded for `relationship` of `owner` (nil when none was recorded).
    public func recordedMembers(of owner: Int64, through relationship: RelationshipDescription) -> [Int64]? {
        members[ObjectIdentifier(relationship)]?[owner]
    }

    /// Every recorded owner → members list of `relationship`.
    public func recordedMembers(of relationship: RelationshipDescription) -> [Int64: [Int64]] {
        members[ObjectIdentifier(relationship)] ?? [:]
    }

    // MARK: Reading

    func row(_ entity: EntityDescription, _ primaryKey: Int64) -> RowSnapshot? {
        guard let row = rows[ObjectIdentifier(entity.rootEntity)]?[primaryKey], row.entity.isKind(of: entity) else { return nil }
        return row
    }

    /// Rows of `entity` (and its subentities when asked), by key.
    func rows(of entity: EntityDescription, includingSubentities: Bool) -> [RowSnapshot] {
        guard let table = rows[ObjectIdentifier(entity.rootEntity)] else { return [] }
        return table.values.filter { includingSubentities ? $0.entity.isKind(of: entity) : $0.entity === entity }
            .sorted { $0.primaryKey < $1.primaryKey }
    }

    func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) -> [RowSnapshot] {
        guard let owner = inverse.entity else { return [] }
        let candidates = rows(of: owner, includingSubentities: true)
        var found: [RowSnapshot]
        if inverse.isToMany {
            let lists = members[ObjectIdentifier(inverse)] ?? [:]
            found = candidates.filter { lists[$0.primaryKey]?.contains(primaryKey) ?? false }
        } else {
            found = candidates.filter { $0.value(at: inverse.slot) == .integer(primaryKey) }
        }
        // The order of the relationship being read (the inverse's inverse), when ordered.
        if let forward = inverse.inverseRelationship, forward.isOrdered, let order = members[ObjectIdentifier(forward)]?[primaryKey] {
            found = ordered(found, by: order)
        }
        return found
    }

    func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) -> [RowSnapshot] {
        if let inverse = relationship.inverseRelationship { return fetchRows(pointingAt: primaryKey, through: inverse) }
        guard let destination = relationship.destinationEntity else { return [] }
        return (members[ObjectIdentifier(relationship)]?[primaryKey] ?? []).compactMap { row(destination, $0) }
    }

    /// `rows` in the order of `keys`; rows not in it go last, by key.
    private func ordered(_ rows: [RowSnapshot], by keys: [Int64]) -> [RowSnapshot] {
        var position: [Int64: Int] = [:]
        for (i, k) in keys.enumerated() where position[k] == nil { position[k] = i }
        return rows.sorted {
            let a = position[$0.primaryKey] ?? Int.max, b = position[$1.primaryKey] ?? Int.max
            return a != b ? a < b : $0.primaryKey < $1.primaryKey
        }
    }

    // MARK: Writing

    mutating func allocatePrimaryKeys(for entity: EntityDescription, count: Int, store: String) throws(ObjectGraphError) -> Int64 {
        let root = ObjectIdentifier(entity.rootEntity)
        let first = try PrimaryKeys.first(after: maxKeys[root] ?? 0, count: count, root: entity, store: store)
        maxKeys[root] = try PrimaryKeys.last(first: first, count: count, root: entity, store: store)
        return first
    }

    /// Stores `row` as given, with transient and to-many slots emptied (as a store reads them back).
    mutating func put(_ row: StoreRowWrite) {
        var values = row.values
        for (slot, property) in row.entity.properties.enumerated() where slot < values.count {
            if property.isTransient || (property as? RelationshipDescription)?.isToMany == true || property is FetchedPropertyDescription {
                values[slot] = .null
            }
        }
        let root = ObjectIdentifier(row.entity.rootEntity)
        rows[root, default: [:]][row.primaryKey] = RowSnapshot.make(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: values)
        if row.primaryKey > (maxKeys[root] ?? 0) { maxKeys[root] = row.primaryKey }
    }

    /// Puts a row read back from a file (a cache node).
    public mutating func load(_ row: RowSnapshot) {
        put(StoreRowWrite(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: row.values))
    }

    /// Records the members of a to-many relationship read back from a file.
    public mutating func loadMembers(of owner: Int64, through relationship: RelationshipDescription, _ list: [Int64]) {
        members[ObjectIdentifier(relationship), default: [:]][owner] = list
    }

    /// Raises the key counter of a hierarchy (keys handed out but not saved stay used).
    public mutating func loadMaxKey(_ root: EntityDescription, _ key: Int64) {
        let id = ObjectIdentifier(root.rootEntity)
        maxKeys[id] = max(maxKeys[id] ?? 0, key)
    }

    mutating func delete(entity: EntityDescription, primaryKey: Int64) {
        let root = entity.rootEntity
        rows[ObjectIdentifier(root)]?[primaryKey] = nil
        // The row leaves every to-many list it owns or is in.
        for (key, var table) in members {
            var changed = false
            guard let info = relationship(key, in: root) else { continue }
            for owner in Array(table.keys) {
                if info.owns && owner == primaryKey {
                    table[owner] = nil
                    changed = true
                } else if info.holds, let list = table[owner], list.contains(primaryKey) {
                    table[owner] = list.filter { $0 != primaryKey }
                    changed = true
                }
            }
            if changed { members[key] = table }
        }
    }

    /// Relationship keys are kept with the relationship itself, for deletes.
    var relationships: [ObjectIdentifier: RelationshipDescription] = [:]

    private func relationship(_ key: ObjectIdentifier, in root: EntityDescription) -> (owns: Bool, holds: Bool)? {
        guard let r = relationships[key] else { return nil }
        return (r.entity?.rootEntity === root, r.destinationEntity?.rootEntity === root)
    }

    mutating func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to list: [Int64]) {
        let key = ObjectIdentifier(relationship)
        relationships[key] = relationship
        let old = members[key]?[primaryKey] ?? []
        members[key, default: [:]][primaryKey] = list
        // A many-to-many is kept from both sides.
        guard let inverse = relationship.inverseRelationship, inverse.isToMany else { return }
        let inverseKey = ObjectIdentifier(inverse)
        relationships[inverseKey] = inverse
        let wanted = Set(list), had = Set(old)
        for m in had where !wanted.contains(m) {
            members[inverseKey, default: [:]][m]?.removeAll { $0 == primaryKey }
        }
        for m in list where !had.contains(m) {
            var other = members[inverseKey, default: [:]][m] ?? []
            if !other.contains(primaryKey) { other.append(primaryKey) }
            members[inverseKey, default: [:]][m] = other
        }
    }

    /// Records `relationship` for delete bookkeeping when loading lists from a file.
    public mutating func register(_ relationship: RelationshipDescription) {
        relationships[ObjectIdentifier(relationship)] = relationship
    }
}

/// A save on a copy of `MemoryRows`: the store keeps the copy only when the save succeeds.
final class MemorySaveTransaction: StoreSaveTransaction, KeyCounterWriting {
    var state: MemoryRows
    /// The store's path, for messages.
    let store: String

    init(_ state: MemoryRows, store: String) {
        self.state = state
        self.store = store
    }

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        try state.allocatePrimaryKeys(for: entity, count: count, store: store)
    }

    func raiseKeyCounter(for root: EntityDescription, to key: Int64) throws(ObjectGraphError) {
        state.loadMaxKey(root, key)
    }

    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) {
        if state.row(row.entity.rootEntity, row.primaryKey) != nil {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "a row of '\(row.entity.rootEntity.name)' with primary key \(row.primaryKey) already exists")
        }
        state.put(row)
    }

    func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]? {
        var out: [Int64: Int64] = [:]
        for pk in primaryKeys { if let row = state.row(entity.rootEntity, pk) { out[pk] = row.version } }
        return out
    }

    func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        state.row(entity.rootEntity, primaryKey)
    }

    /// Uniqueness constraints, checked in memory: each hierarchy's rows are indexed by a
    /// constraint's values once per save (the save looks up before it writes).
    private var constraintIndexes: [ConstraintIndexKey: [[AttributeValue]: [Int64]]] = [:]
    private struct ConstraintIndexKey: Hashable {
        let root: ObjectIdentifier
        let properties: [ObjectIdentifier]
    }

    func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]? {
        let root = entity.rootEntity
        let properties = slots.map { entity.layout.properties[$0] }
        let key = ConstraintIndexKey(root: ObjectIdentifier(root), properties: properties.map(ObjectIdentifier.init))
        if constraintIndexes[key] == nil {
            var index: [[AttributeValue]: [Int64]] = [:]
            for row in (state.rows[ObjectIdentifier(root)] ?? [:]).values {
                // A row of another branch of the hierarchy may not have these properties.
                let rowSlots = properties.map { p in row.entity.slot(forKey: p.name).flatMap { row.entity.layout.properties[$0] === p ? $0 : nil } }
                guard rowSlots.allSatisfy({ $0 != nil }) else { continue }
                index[rowSlots.map { row[$0!] }, default: []].append(row.primaryKey)
            }
            constraintIndexes[key] = index
        }
        return (constraintIndexes[key]?[values] ?? []).compactMap { state.row(root, $0) }
    }

    func update(_ row: StoreRowWrite) throws(ObjectGraphError) {
        guard state.row(row.entity.rootEntity, row.primaryKey) != nil else { return }
        state.put(row)
    }

    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) {
        state.delete(entity: entity, primaryKey: primaryKey)
    }

    func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {
        guard relationship.isToMany, !relationship.isTransient else {
            throw .invalidArgument("'\(relationship.qualifiedName)' is not a stored to-many relationship")
        }
        state.setMembers(of: primaryKey, through: relationship, to: members)
    }
}

extension MemoryRows {
    /// The store's part of a fetch: the rows of the entity, filtered and sorted by the caller.
    func fetch(_ request: FetchRequest, entity: EntityDescription) -> StoreFetchResult {
        StoreFetchResult(rows: rows(of: entity, includingSubentities: request.includesSubentities), isExact: request.predicate == nil && request.sortKeys.isEmpty && request.fetchLimit == 0 && request.fetchOffset == 0)
    }

    func count(_ request: FetchRequest, entity: EntityDescription) -> Int? {
        guard request.predicate == nil else { return nil }
        let n = rows(of: entity, includingSubentities: request.includesSubentities).count
        return InMemoryFetch.window(count: n, offset: request.fetchOffset, limit: request.fetchLimit)
    }
}
