import CSQLite
import FoundationEssentials

/// The writes of one save inside the SQLite store's open transaction. Each entity has
/// one INSERT, one UPDATE and one DELETE statement, prepared once and reused.
struct SQLiteSaveTransaction: StoreSaveTransaction {
    let store: SQLiteStore
    let db: SQLiteConnection

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        let rootNumber = Int64(store.schema.mapping(entity.rootEntity).number)
        let select = try db.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        db.bind(select, 1, rootNumber)
        let rc = sqlite3_step(select)
        let current = rc == SQLITE_ROW ? sqlite3_column_int64(select, 0) : 0
        sqlite3_reset(select)
        if rc != SQLITE_ROW && rc != SQLITE_DONE { throw db.lastError(rc) }
        let update = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        db.bind(update, 1, current + Int64(count))
        db.bind(update, 2, rootNumber)
        try db.run(update)
        return current + 1
    }

    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) {
        let mapping = store.schema.mapping(row.entity)
        let table = store.schema.tables[mapping.tableIndex]
        let slots = mapping.columnBySlot.enumerated().filter { $0.element >= 0 }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + slots.map { table.columns[$0.element].name }
        let sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        let s = try db.prepare(sql)
        db.bind(s, 1, row.primaryKey)
        db.bind(s, 2, Int64(mapping.number))
        db.bind(s, 3, row.version)
        for (i, slot) in slots.enumerated() { bind(s, Int32(i + 4), row.values[slot.offset]) }
        try db.run(s)
    }

    func update(_ row: StoreRowWrite) throws(ObjectGraphError) {
        let mapping = store.schema.mapping(row.entity)
        let table = store.schema.tables[mapping.tableIndex]
        let slots = mapping.columnBySlot.enumerated().filter { $0.element >= 0 }
        let sets = ["Z_OPT = ?"] + slots.map { "\(table.columns[$0.element].name) = ?" }
        let s = try db.prepare("UPDATE \(table.name) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
        db.bind(s, 1, row.version)
        for (i, slot) in slots.enumerated() { bind(s, Int32(i + 2), row.values[slot.offset]) }
        db.bind(s, Int32(slots.count + 2), row.primaryKey)
        try db.run(s)
    }

    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) {
        let table = store.schema.table(entity)
        let s = try db.prepare("DELETE FROM \(table.name) WHERE Z_PK = ?")
        db.bind(s, 1, primaryKey)
        try db.run(s)
    }

    /// Binds a value in its storage form: dates as seconds since 2001, UUIDs as 16 bytes,
    /// decimals and URIs as text.
    private func bind(_ s: OpaquePointer, _ index: Int32, _ value: AttributeValue) {
        switch value {
        case .null: sqlite3_bind_null(s, index)
        case .integer(let v): sqlite3_bind_int64(s, index, v)
        case .boolean(let v): sqlite3_bind_int64(s, index, v ? 1 : 0)
        case .double(let v): sqlite3_bind_double(s, index, v)
        case .date(let v): sqlite3_bind_double(s, index, v.timeIntervalSinceReferenceDate)
        case .string(let v): db.bind(s, index, text: v)
        case .uri(let v): db.bind(s, index, text: v.absoluteString)
        case .decimal(let v): db.bind(s, index, text: v.description)
        case .data(let v): db.bind(s, index, bytes: Array(v))
        case .uuid(let v):
            let u = v.uuid
            db.bind(s, index, bytes: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
        }
    }
}
