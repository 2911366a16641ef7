/// Where row readers find related rows: the store's rows by key and the members of
/// to-many relationships, each row read once per fetch. Readers hold their source, and
/// the source holds rows, never readers, so nothing here forms a cycle and a reader
/// stays usable however long it is kept.
final class RowSource {
    typealias Load = (EntityDescription, Int64) throws(ObjectGraphError) -> RowSnapshot?
    typealias Members = (RowSnapshot, RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot]

    private let load: Load
    private let members: Members
    /// The UUID of the store the rows come from, so object-ID arguments of another store miss.
    let storeIdentifier: String?
    /// Rows met so far by key; nil when the store has no such row.
    private var rows: [RowKey: RowSnapshot?] = [:]

    private struct RowKey: Hashable {
        let root: ObjectIdentifier
        let primaryKey: Int64
    }

    init(load: @escaping Load, members: @escaping Members, storeIdentifier: String? = nil) {
        self.load = load
        self.members = members
        self.storeIdentifier = storeIdentifier
    }

    /// Reads related rows straight from `store` (the caller holds the coordinator's lock).
    convenience init(store: PersistentStore) {
        self.init(
            load: { (e, k) throws(ObjectGraphError) in try store.fetchRow(entity: e, primaryKey: k) },
            members: { (r, rel) throws(ObjectGraphError) in try store.fetchMembers(of: r.primaryKey, through: rel) },
            storeIdentifier: store.identifier)
    }

    /// The reader of a row already at hand.
    func reader(_ row: RowSnapshot) -> RowReader {
        let key = RowKey(root: ObjectIdentifier(row.entity.rootEntity), primaryKey: row.primaryKey)
        if rows[key] == nil { rows[key] = .some(row) }
        return RowReader(row, self)
    }

    func reader(_ entity: EntityDescription, _ primaryKey: Int64) throws(ObjectGraphError) -> RowReader? {
        let key = RowKey(root: ObjectIdentifier(entity.rootEntity), primaryKey: primaryKey)
        if let known = rows[key] { return known.map { RowReader($0, self) } }
        let row = try load(entity, primaryKey)
        rows[key] = .some(row)
        return row.map { RowReader($0, self) }
    }

    func members(of row: RowSnapshot, _ r: RelationshipDescription) throws(ObjectGraphError) -> [RowReader] {
        try members(row, r).map(reader)
    }
}

/// A stored row as the predicate evaluator reads it, without a context: attributes are
/// values, a to-one is the destination row's reader (nil when absent), a to-many the
/// readers of its members. Lets a store filter, sort and compute dictionary results in memory.
final class RowReader: KeyValueReading {
    let row: RowSnapshot
    private let source: RowSource

    init(_ row: RowSnapshot, _ source: RowSource) {
        self.row = row
        self.source = source
    }

    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        let entity = row.entity
        guard let slot = entity.slot(forKey: key) else {
            if key == "entity" { return .object(entity) }
            // A key another entity of the hierarchy declares: this row has no value for it.
            if entity.hierarchyDeclares(key) { return .null }
            throw .predicateEvaluation("entity '\(entity.name)' has no property named '\(key)'", keyPath: key)
        }
        switch entity.layout.kinds[slot] {
        case .attribute:
            return .scalar(row.value(at: slot))
        case .toOne(let r):
            guard case .integer(let k) = row.value(at: slot), let d = r.destinationEntity else { return .null }
            return try source.reader(d, k).map { .object($0) } ?? .null
        case .toMany(let r):
            return .collection(try source.members(of: row, r).map { .object($0) })
        }
    }

    var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { (row.entity, row.primaryKey) }

    var objectReference: ObjectReference? {
        ObjectReference(entityName: row.entity.name, primaryKey: row.primaryKey, storeIdentifier: source.storeIdentifier, temporaryURI: nil)
    }
}
