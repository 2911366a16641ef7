import CSQLite
import FoundationEssentials

/// Persistent history through a migration: an in-place migration keeps the history, its
/// numbers and so its tokens, rewriting what depends on the model (entity numbers, the
/// positions in update bitmaps and tombstone columns); a store copied to a new file
/// (`migratePersistentStore`) copies the history with its numbers. Either adds one marker
/// transaction without changes, by Core Data's schema migrator.
extension SQLiteHistory {
    /// The author of the marker transaction a migration adds.
    static let migratorAuthor = "com.apple.coredata.schemamigrator.lightweight"

    /// Rewrites the history of a store migrated in place from `source` to `destination`
    /// (`numbers`: old entity number → new), then adds the marker. Nothing happens to a
    /// store without history tables.
    static func migrate(_ db: SQLiteConnection, from source: SQLiteSchema, to destination: SQLiteSchema, numbers: [Int: Int]) throws(ObjectGraphError) {
        guard try hasTables(db) else { return }
        let tombstoneColumns = try addTombstoneColumns(db, for: destination.storedEntities)
        var rewrites: [(key: Int64, entity: Int64, columns: [UInt8]?, tombstone: [AttributeValue])] = []
        try forEachChange(db, schema: source, fromTransaction: 0) { change throws(ObjectGraphError) in
            guard let r = HistoryChangeDecoder.rewrite(change, from: source, to: destination, numbers: numbers) else { return }
            rewrites.append((change.changeID, r.entity, r.columns, r.tombstone))
        }
        let sets = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0) = ?" }.joined()
        let update = try db.prepare("UPDATE ACHANGE SET ZENTITY = ?, ZCOLUMNS = ?\(sets) WHERE Z_PK = ?")
        for r in rewrites {
            db.reuse(update)
            update.bind(1, r.entity)
            if let columns = r.columns { update.bind(2, bytes: columns) } else { update.bindNull(2) }
            for i in 0..<tombstoneColumns { update.bind(Int32(3 + i), storing: i < r.tombstone.count ? r.tombstone[i] : .null) }
            update.bind(Int32(3 + tombstoneColumns), r.key)
            try update.run()
        }
        try addMarker(db, schema: destination)
    }

    /// The transaction a migration adds: no changes, by the schema migrator.
    static func addMarker(_ db: SQLiteConnection, schema: SQLiteSchema) throws(ObjectGraphError) {
        _ = try record(db, schema: schema, [], by: HistoryAuthorship(author: migratorAuthor), at: Date())
    }

    /// Keeps the history counters across a rewrite of `Z_PRIMARYKEY`: their rows, read
    /// before it, are written back after it.
    static func counters(_ db: SQLiteConnection) throws(ObjectGraphError) -> [(Int64, String, Int64)] {
        let s = try db.prepare("SELECT Z_ENT, Z_NAME, IFNULL(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)")
        var out: [(Int64, String, Int64)] = []
        try s.forEachRow { row in out.append((row.int64(0), row.isNull(1) ? "" : row.text(1), row.int64(2))) }
        return out
    }

    static func restore(_ counters: [(Int64, String, Int64)], _ db: SQLiteConnection) throws(ObjectGraphError) {
        let s = try db.prepare("INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)")
        for (number, name, max) in counters {
            db.reuse(s)
            s.bind(1, number)
            s.bind(2, text: name)
            s.bind(3, max)
            try s.run()
        }
    }

    /// Writes `transactions` (another store's history) with their own numbers, and makes
    /// the counters continue above `highest` (the source's highest number ever used).
    static func copy(_ transactions: [StoredHistoryTransaction], highest: Int64, _ db: SQLiteConnection, schema: SQLiteSchema) throws(ObjectGraphError) {
        for t in transactions {
            let changes = (t.changes ?? []).compactMap { c -> HistoryChangeWrite? in
                guard let entity = c.entity, schema.isStored(entity) else { return nil }
                let slots = (c.updatedProperties ?? []).compactMap { entity.layout.slotByName[$0] }
                let tombstone = entity.historyTombstoneSlots.map { slot in (slot, c.tombstone?[entity.layout.properties[slot].name] ?? .null) }
                return HistoryChangeWrite(type: c.type, entity: entity, primaryKey: c.primaryKey, updatedSlots: slots,
                                          tombstone: c.type == .delete ? tombstone : [])
            }
            _ = try record(db, schema: schema, changes, by: t.authorship, at: t.timestamp, number: t.number)
        }
        let raise = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = 16002")
        raise.bind(1, highest)
        try raise.run()
    }
}

extension SQLiteSaveTransaction: HistoryCopyingTransaction {
    func copyHistory(_ transactions: [StoredHistoryTransaction], highest: Int64) throws(ObjectGraphError) {
        try SQLiteHistory.copy(transactions, highest: highest, db, schema: store.schema)
        try SQLiteHistory.addMarker(db, schema: store.schema)
    }
}

extension SQLiteStore: HistoryCounting {
    public func highestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        let db = try open()
        guard try SQLiteHistory.hasTables(db) else { return 0 }
        return try SQLiteHistory.bounds(db).highest
    }
}
