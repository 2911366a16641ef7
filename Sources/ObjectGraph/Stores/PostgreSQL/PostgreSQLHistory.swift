import FoundationEssentials

/// Persistent history in the PostgreSQL store: Apple's tables (`ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING`, the counters 16001–16003 in `Z_PRIMARYKEY`), written in each
/// save's transaction exactly as the SQLite store writes them (`SQLiteHistory`). The one
/// difference: `ACHANGE`'s tombstone columns are `text`, holding each value in its
/// parameter text (`PostgreSQLParameter`), since a PostgreSQL column has one type and a
/// tombstone column holds values of any attribute.
enum PostgreSQLHistory {
    static let changeEntity = SQLiteHistory.changeEntity
    static let transactionEntity = SQLiteHistory.transactionEntity
    static let stringEntity = SQLiteHistory.stringEntity

    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS \"ACHANGE\" (\"Z_PK\" bigint PRIMARY KEY, \"Z_ENT\" bigint, \"Z_OPT\" bigint, \"ZCHANGETYPE\" bigint, \"ZENTITY\" bigint, \"ZENTITYPK\" bigint, \"ZTRANSACTIONID\" bigint, \"ZCOLUMNS\" bytea)",
        "CREATE TABLE IF NOT EXISTS \"ATRANSACTION\" (\"Z_PK\" bigint PRIMARY KEY, \"Z_ENT\" bigint, \"Z_OPT\" bigint, \"ZAUTHORTS\" bigint, \"ZBUNDLEIDTS\" bigint, \"ZCONTEXTNAMETS\" bigint, \"ZPROCESSIDTS\" bigint, \"ZTIMESTAMP\" double precision, \"ZAUTHOR\" text, \"ZBUNDLEID\" text, \"ZCONTEXTNAME\" text, \"ZPROCESSID\" text, \"ZQUERYGEN\" bytea)",
        "CREATE TABLE IF NOT EXISTS \"ATRANSACTIONSTRING\" (\"Z_PK\" bigint PRIMARY KEY, \"Z_ENT\" bigint, \"Z_OPT\" bigint, \"ZNAME\" text)",
        "CREATE INDEX IF NOT EXISTS \"ACHANGE_ZTRANSACTIONID_INDEX\" ON \"ACHANGE\" (\"ZTRANSACTIONID\")",
        "CREATE INDEX IF NOT EXISTS \"Z_TRANSACTION_TransactionTimestampIndex\" ON \"ATRANSACTION\" (\"ZTIMESTAMP\")",
        "CREATE UNIQUE INDEX IF NOT EXISTS \"Z_TRANSACTIONSTRING_UNIQUE_NAME\" ON \"ATRANSACTIONSTRING\" (\"ZNAME\")",
        "INSERT INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\") VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0) ON CONFLICT DO NOTHING",
    ]

    /// Creates the tables and the tombstone columns `entities` need, under the store's
    /// write lock (so two machines adding them at once take turns).
    static func prepareTables(_ db: PostgreSQLConnection, model entities: [EntityDescription]) throws(ObjectGraphError) {
        try db.execute("BEGIN")
        do throws(ObjectGraphError) {
            try db.query("SELECT Z_VERSION FROM Z_METADATA FOR UPDATE")
            for sql in createStatements { try db.execute(sql) }
            let needed = entities.map { $0.historyTombstoneSlots.count }.max() ?? 0
            for i in 0..<needed { try db.execute("ALTER TABLE \"ACHANGE\" ADD COLUMN IF NOT EXISTS \"ZTOMBSTONE\(i)\" text") }
            try db.commit()
        } catch {
            if db.isConnected { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    static func hasTables(_ db: PostgreSQLConnection, schema: String) throws(ObjectGraphError) -> Bool {
        try PostgreSQLStore.tableNames(db, schema: schema).contains("ATRANSACTION")
    }

    /// Takes `count` numbers for the history entity `number`; returns the first.
    static func allocate(_ db: PostgreSQLConnection, entity number: Int, count: Int) throws(ObjectGraphError) -> Int64 {
        let rows = try db.query("UPDATE Z_PRIMARYKEY SET Z_MAX = COALESCE(Z_MAX, 0) + ? WHERE Z_ENT = ? RETURNING Z_MAX", [.integer(Int64(count)), .integer(Int64(number))])
        guard rows.count > 0 else {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "the store's Z_PRIMARYKEY has no row for the history entity \(number)")
        }
        return rows.int64(0, 0) - Int64(count) + 1
    }

    static func internedString(_ db: PostgreSQLConnection, _ text: String?) throws(ObjectGraphError) -> Int64? {
        guard let text, let parameter = PostgreSQLParameter.text(text) else { return nil }
        let found = try db.query("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [parameter])
        if found.count > 0 { return found.int64(0, 0) }
        let key = try allocate(db, entity: stringEntity, count: 1)
        try db.query("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)", [.integer(key), .integer(Int64(stringEntity)), parameter])
        return key
    }

    /// Writes one transaction; its number is the next one, or `given` (a copied transaction).
    static func record(_ db: PostgreSQLConnection, schema: SQLiteSchema, _ changes: [HistoryChangeWrite],
                       by authorship: HistoryAuthorship, at timestamp: Date, number given: Int64? = nil) throws(ObjectGraphError) -> Int64 {
        let number: Int64
        if let given { number = given } else { number = try allocate(db, entity: transactionEntity, count: 1) }
        var parameters: [PostgreSQLParameter] = [.integer(number), .integer(Int64(transactionEntity))]
        for text in [authorship.author, authorship.bundleID, authorship.contextName, authorship.processID] {
            parameters.append(try internedString(db, text).map { .integer($0) } ?? PostgreSQLParameter(text: nil, type: PostgreSQLParameter.int8))
        }
        parameters.append(.double((timestamp.timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6))
        try db.query(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, 1, ?, ?, ?, ?, ?)",
            parameters)
        guard !changes.isEmpty else { return number }
        var key = try allocate(db, entity: changeEntity, count: changes.count)
        // Plain changes go as arrays, one statement per save: a row per statement would
        // cost as much as the save's own rows.
        var keys: [String] = [], types: [String] = [], entities: [String] = [], primaryKeys: [String] = [], columns: [String] = []
        var last: (entity: EntityDescription, number: Int64, order: [Int]?)?
        for change in changes {
            if last?.entity !== change.entity { last = (change.entity, Int64(schema.number(change.entity)), nil) }
            if change.type == .delete, !change.tombstone.isEmpty {
                try insertTombstone(db, key: key, change, last!.number, number)
            } else {
                var bitmap = "NULL"
                if change.type == .update {
                    if last!.order == nil { last!.order = change.entity.historySlots }
                    bitmap = "\"" + PostgreSQLParameter.encodeHex(SQLiteHistory.columnBitmap(change.updatedSlots, of: change.entity, order: last!.order)).replacing("\\", with: "\\\\") + "\""
                }
                keys.append(String(key))
                types.append(String(change.type.rawValue))
                entities.append(String(last!.number))
                primaryKeys.append(String(change.primaryKey))
                columns.append(bitmap)
            }
            key += 1
        }
        if !keys.isEmpty {
            func array(_ items: [String]) -> PostgreSQLParameter { PostgreSQLParameter(text: "{" + items.joined(separator: ",") + "}", type: 0) }
            try db.query(
                "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) SELECT k, 16001, 1, t, e, p, ?, c FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bytea[]) AS u(k, t, e, p, c)",
                [.integer(number), array(keys), array(types), array(entities), array(primaryKeys), array(columns)])
        }
        return number
    }

    private static func insertTombstone(_ db: PostgreSQLConnection, key: Int64, _ change: HistoryChangeWrite, _ entityNumber: Int64, _ transaction: Int64) throws(ObjectGraphError) {
        let kept = change.entity.historyTombstoneSlots
        let columns = kept.indices.map { ", ZTOMBSTONE\($0)" }.joined()
        let marks = kept.indices.map { _ in ", ?" }.joined()
        var parameters: [PostgreSQLParameter] = [.integer(key), .integer(entityNumber), .integer(change.primaryKey), .integer(transaction)]
        for slot in kept {
            let value = change.tombstone.first(where: { $0.slot == slot })?.value ?? .null
            parameters.append((PostgreSQLParameter.storing(value) ?? .null).asText)
        }
        try db.query("INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID\(columns)) VALUES (?, 16001, 1, 2, ?, ?, ?\(marks))", parameters)
    }

    // MARK: Reading

    static func bounds(_ db: PostgreSQLConnection) throws(ObjectGraphError) -> (oldest: Int64?, highest: Int64) {
        let rows = try db.query("SELECT (SELECT MIN(Z_PK) FROM ATRANSACTION), (SELECT COALESCE(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = 16002)")
        let oldest = rows.isNull(0, 0) ? nil : rows.int64(0, 0)
        return (oldest, max(rows.isNull(0, 1) ? 0 : rows.int64(0, 1), oldest ?? 0))
    }

    static func firstNumber(after boundary: HistoryBoundary?, _ db: PostgreSQLConnection, store: String) throws(ObjectGraphError) -> Int64 {
        guard let boundary else { return 0 }
        return try boundary.firstTransaction(store: store, bounds: { () throws(ObjectGraphError) in try bounds(db) }) { date throws(ObjectGraphError) in
            let rows = try db.query("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP > ? + \(SQLiteHistory.dateTolerance)", [.double(date.timeIntervalSinceReferenceDate)])
            return rows.isNull(0, 0) ? Int64.max : rows.int64(0, 0)
        }
    }

    static func transactions(_ db: PostgreSQLConnection, schema: SQLiteSchema, schemaName: String, from first: Int64, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction] {
        let rows = try db.query(SQLiteHistory.transactionsSQL, [.integer(first)])
        var out: [StoredHistoryTransaction] = []
        var index: [Int64: Int] = [:]
        for r in 0..<rows.count {
            func text(_ c: Int32) -> String? { rows.isNull(r, c) ? nil : rows.text(r, c) }
            index[rows.int64(r, 0)] = out.count
            out.append(StoredHistoryTransaction(
                number: rows.int64(r, 0), timestamp: Date(timeIntervalSinceReferenceDate: rows.double(r, 1)),
                authorship: HistoryAuthorship(author: text(2), contextName: text(4), processID: text(5), bundleID: text(3)),
                changes: includingChanges ? [] : nil))
        }
        guard includingChanges, let firstRead = out.first?.number else { return out }
        try forEachChange(db, schema: schema, schemaName: schemaName, fromTransaction: firstRead) { change in
            if let i = index[change.transactionNumber] { out[i].changes!.append(change) }
        }
        return out
    }

    static func forEachChange(_ db: PostgreSQLConnection, schema: SQLiteSchema, schemaName: String, fromTransaction first: Int64,
                              _ body: (StoredHistoryChange) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let names = try db.query(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = 'ACHANGE' AND column_name LIKE 'ZTOMBSTONE%'",
            [.text(schemaName) ?? .null])
        let tombstoneColumns = (0..<names.count).map { names.text($0, 0) }.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        let extra = tombstoneColumns.map { ", " + PostgreSQLSchema.quoted($0) }.joined()
        let rows = try db.query("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE WHERE ZTRANSACTIONID >= ? ORDER BY Z_PK", [.integer(first)])
        var decoder = HistoryChangeDecoder(schema: schema)
        for r in 0..<rows.count {
            try body(decoder.change(
                id: rows.int64(r, 0), type: rows.int64(r, 1), entity: rows.int64(r, 2), primaryKey: rows.int64(r, 3), transaction: rows.int64(r, 4),
                bitmap: { rows.isNull(r, 5) ? nil : rows.bytes(r, 5) }, tombstoneColumns: tombstoneColumns.count,
                tombstone: { i, kind in rows.isNull(r, Int32(6 + i)) ? .null : PostgreSQLStore.value(rows, r, Int32(6 + i), kind) }))
        }
    }

    static func delete(_ db: PostgreSQLConnection, before boundary: HistoryBoundary) throws(ObjectGraphError) -> Int {
        let limit: Int64
        switch boundary {
        case .transaction(let n): limit = n
        case .date(let date):
            let rows = try db.query("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP >= ? - \(SQLiteHistory.dateTolerance)", [.double(date.timeIntervalSinceReferenceDate)])
            limit = rows.isNull(0, 0) ? Int64.max : rows.int64(0, 0)
        }
        try db.query("DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?", [.integer(limit)])
        return try db.query("DELETE FROM ATRANSACTION WHERE Z_PK < ?", [.integer(limit)]).changes
    }
}

extension PostgreSQLSaveTransaction: HistoryRecordingTransaction, HistoryCopyingTransaction {
    var recordsHistory: Bool { store.storeOptions.historyTracking }

    func recordHistory(_ changes: [HistoryChangeWrite], by authorship: HistoryAuthorship, at timestamp: Date) throws(ObjectGraphError) -> Int64 {
        var checked: EntityDescription? = nil
        for change in changes where change.entity !== checked {
            try checkStored(change.entity)
            checked = change.entity
        }
        let number = try PostgreSQLHistory.record(db, schema: store.schema, changes, by: authorship, at: timestamp)
        store.newestHistoryTransaction = number
        return number
    }

    func copyHistory(_ transactions: [StoredHistoryTransaction], highest: Int64) throws(ObjectGraphError) {
        for t in transactions {
            let changes = (t.changes ?? []).compactMap { c -> HistoryChangeWrite? in
                guard let entity = c.entity, store.schema.isStored(entity) else { return nil }
                let slots = (c.updatedProperties ?? []).compactMap { entity.layout.slotByName[$0] }
                let tombstone = entity.historyTombstoneSlots.map { slot in (slot, c.tombstone?[entity.layout.properties[slot].name] ?? .null) }
                return HistoryChangeWrite(type: c.type, entity: entity, primaryKey: c.primaryKey, updatedSlots: slots, tombstone: c.type == .delete ? tombstone : [])
            }
            _ = try PostgreSQLHistory.record(db, schema: store.schema, changes, by: t.authorship, at: t.timestamp, number: t.number)
        }
        try db.query("UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), ?) WHERE Z_ENT = 16002", [.integer(highest)])
        _ = try PostgreSQLHistory.record(db, schema: store.schema, [], by: HistoryAuthorship(author: SQLiteHistory.migratorAuthor), at: Date())
    }
}

extension PostgreSQLStore: HistoryKeepingStore, HistoryCounting {
    public var tracksHistory: Bool { storeOptions.historyTracking }

    /// Whether the schema holds the history tables, asked of the server until it says so
    /// (they are never dropped): any machine's store may have made them.
    func hasHistoryTables(_ db: PostgreSQLConnection) throws(ObjectGraphError) -> Bool {
        if historyTablesSeen { return true }
        historyTablesSeen = try PostgreSQLHistory.hasTables(db, schema: address.schema)
        return historyTablesSeen
    }

    /// Read in one REPEATABLE READ transaction, so transactions and changes agree.
    public func historyTransactions(after boundary: HistoryBoundary?, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction] {
        let db = try open()
        guard try hasHistoryTables(db) else {
            if case .transaction(let n)? = boundary, n > 0 {
                throw .invalidArgument("the history token names transaction \(n) of the store '\(path)', which keeps no history")
            }
            return []
        }
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(ObjectGraphError) {
            let first = try PostgreSQLHistory.firstNumber(after: boundary, db, store: path)
            let out = first == Int64.max
                ? [] : try PostgreSQLHistory.transactions(db, schema: schema, schemaName: address.schema, from: first, includingChanges: includingChanges)
            try db.commit()
            return out
        } catch {
            if db.isConnected { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    public func deleteHistory(before boundary: HistoryBoundary) throws(ObjectGraphError) -> Int {
        if readsOnly {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(path)' is read-only: its history cannot be deleted")
        }
        let db = try open()
        guard try hasHistoryTables(db) else { return 0 }
        var deleted = 0
        try save { _ throws(ObjectGraphError) in deleted = try PostgreSQLHistory.delete(db, before: boundary) }
        return deleted
    }

    public func lastHistoryTransactionNumber() throws(ObjectGraphError) -> Int64? {
        let db = try open()
        guard try hasHistoryTables(db) else { return nil }
        let rows = try db.query("SELECT MAX(Z_PK) FROM ATRANSACTION")
        return rows.isNull(0, 0) ? nil : rows.int64(0, 0)
    }

    public func highestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        let db = try open()
        guard try hasHistoryTables(db) else { return 0 }
        return try PostgreSQLHistory.bounds(db).highest
    }
}
