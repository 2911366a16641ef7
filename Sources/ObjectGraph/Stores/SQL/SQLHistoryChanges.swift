import FoundationEssentials

/// Reading and rewriting the rows of Apple's `ACHANGE` table, once for every store that
/// keeps its history there (SQLite, PostgreSQL); each store reads the columns its own way.
struct HistoryChangeDecoder {
    let schema: SQLiteSchema
    /// Per entity, the names of its history slots (the order of the update bitmap).
    private var slotNames: [ObjectIdentifier: [String]] = [:]
    /// Per entity, the attributes its tombstones keep, in tombstone-column order.
    private var kept: [ObjectIdentifier: [(name: String, kind: SQLiteStore.ColumnKind)]] = [:]
    /// The entity of the last change: changes come in runs of one entity.
    private var lastNumber: Int64 = -1, lastEntity: EntityDescription?

    init(schema: SQLiteSchema) { self.schema = schema }

    /// The change in one row: `bitmap` reads `ZCOLUMNS` (nil for NULL), `tombstone(i, kind)`
    /// reads tombstone column `i` as `kind` (of `tombstoneColumns` the table has).
    mutating func change(id: Int64, type raw: Int64, entity number: Int64, primaryKey: Int64, transaction: Int64,
                         bitmap: () -> [UInt8]?, tombstoneColumns: Int, tombstone: (Int, SQLiteStore.ColumnKind) -> AttributeValue) -> StoredHistoryChange {
        let type = HistoryChangeType(rawValue: Int(raw)) ?? .update
        if number != lastNumber {
            lastNumber = number
            lastEntity = schema.entityByNumber[Int(number)]
        }
        var change = StoredHistoryChange(changeID: id, type: type, entity: lastEntity, primaryKey: primaryKey, transactionNumber: transaction)
        guard let entity = lastEntity else { return change }
        let key = ObjectIdentifier(entity)
        if type == .update {
            let names = slotNames[key] ?? entity.historySlots.map { entity.layout.properties[$0].name }
            slotNames[key] = names
            change.updatedProperties = (bitmap().map(SQLiteHistory.slots(inBitmap:)) ?? []).compactMap { $0 < names.count ? names[$0] : nil }
        } else if type == .delete {
            let fields = kept[key] ?? entity.historyTombstoneSlots.map { slot in
                let p = entity.layout.properties[slot]
                return (p.name, SQLiteStore.ColumnKind(p))
            }
            kept[key] = fields
            var values: [String: AttributeValue] = [:]
            for (i, field) in fields.enumerated() where i < tombstoneColumns { values[field.name] = tombstone(i, field.kind) }
            change.tombstone = values
        }
        return change
    }

    /// `change`, read with `source`, as a store migrated in place to `destination` keeps
    /// it (`numbers`: old entity number → new): its new entity number (0 for an entity
    /// that is gone), update bitmap and tombstone columns. Nil for a change of no entity.
    static func rewrite(_ change: StoredHistoryChange, from source: SQLiteSchema, to destination: SQLiteSchema, numbers: [Int: Int])
        -> (entity: Int64, columns: [UInt8]?, tombstone: [AttributeValue])?
    {
        guard let old = change.entity else { return nil }
        let newNumber = numbers[source.number(old)] ?? 0
        let new = destination.entityByNumber[newNumber]
        var columns: [UInt8]? = nil
        var tombstone: [AttributeValue] = []
        if let new, change.type == .update {
            let slots = (change.updatedProperties ?? []).compactMap { name in
                new.layout.slotByName[name] ?? new.layout.properties.firstIndex { $0.renamingIdentifier == name }
            }
            columns = SQLiteHistory.columnBitmap(slots, of: new)
        }
        if let new, change.type == .delete, let kept = change.tombstone {
            tombstone = new.historyTombstoneSlots.map { slot in
                let p = new.layout.properties[slot]
                return kept[p.name] ?? kept[p.renamingIdentifier] ?? .null
            }
        }
        return (Int64(new == nil ? 0 : newNumber), columns, tombstone)
    }
}

extension HistoryBoundary {
    /// The first transaction number after this boundary (exclusive), for every SQL store:
    /// a transaction must be one the store kept (`bounds()`: the oldest kept, the highest
    /// ever given); a date is looked up (`firstAfter(date)`, `Int64.max` for none).
    func firstTransaction(store: String, bounds: () throws(ObjectGraphError) -> (oldest: Int64?, highest: Int64),
                          firstAfter: (Date) throws(ObjectGraphError) -> Int64) throws(ObjectGraphError) -> Int64 {
        switch self {
        case .transaction(let n):
            let (oldest, highest) = try bounds()
            if n > highest {
                throw .invalidArgument("the history token names transaction \(n) of the store '\(store)', which has only written \(highest): the token is from another store or was forged")
            }
            if n > 0, n < oldest ?? (highest + 1) { throw .historyTokenExpired(store: store, number: n, oldest: oldest) }
            return n + 1
        case .date(let date):
            return try firstAfter(date)
        }
    }
}
