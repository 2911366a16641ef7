/// Where row readers find related rows: the store's rows by key and the members of
/// to-many relationships, each row read once per fetch.
final class RowSource {
    typealias Load = (EntityDescription, Int64) throws(ObjectGraphError) -> RowSnapshot?
    typealias Members = (RowSnapshot, RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot]

    private let load: Load
    private let members: Members
    private var readers: [RowKey: RowReader?] = [:]

    private struct RowKey: Hashable {
        let root: ObjectIdentifier
        let primaryKey: Int64
    }

    init(load: @escaping Load, members: @escaping Members) {
        self.load = load
        self.members = members
    }

    /// Reads related rows straight from `store` (the caller holds the coordinator's lock).
    convenience init(store: PersistentStore) {
        self.init(
            load: { (e, k) throws(ObjectGraphError) in try store.fetchRow(entity: e, primaryKey: k) },
            members: { (r, rel) throws(ObjectGraphError) in try store.fetchMembers(of: r.primaryKey, through: rel) })
    }

    /// The reader of a row already at hand.
    func reader(_ row: RowSnapshot) -> RowReader {
        let key = RowKey(root: ObjectIdentifier(row.entity.rootEntity), primaryKey: row.primaryKey)
        if let known = readers[key], let known { return known }
        let r = RowReader(row, self)
        readers[key] = r
        return r
    }

    func reader(_ entity: EntityDescription, _ primaryKey: Int64) throws(ObjectGraphError) -> RowReader? {
        let key = RowKey(root: ObjectIdentifier(entity.rootEntity), primaryKey: primaryKey)
        if let known = readers[key] { return known }
        let r = try load(entity, primaryKey).map { RowReader($0, self) }
        readers[key] = r
        return r
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
    private unowned let source: RowSource

    init(_ row: RowSnapshot, _ source: RowSource) {
        self.row = row
        self.source = source
    }

    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        let entity = row.entity
        guard let slot = entity.slot(forKey: key) else {
            throw .predicateEvaluation("entity '\(entity.name)' has no property named '\(key)'", keyPath: key)
        }
        switch entity.layout.kinds[slot] {
        case .attribute:
            return .scalar(slot < row.values.count ? row.values[slot] : .null)
        case .toOne(let r):
            guard slot < row.values.count, case .integer(let k) = row.values[slot], let d = r.destinationEntity else { return .null }
            return try source.reader(d, k).map { .object($0) } ?? .null
        case .toMany(let r):
            return .collection(try source.members(of: row, r).map { .object($0) })
        }
    }

    var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { (row.entity, row.primaryKey) }
}
