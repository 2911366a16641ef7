import CSQLite
import FoundationEssentials

/// Persistent history in Apple's tables (docs/store-format.md, "Persistent history"):
/// `ATRANSACTION` (one row per transaction; author, bundle, context and process names are
/// numbers into `ATRANSACTIONSTRING`), `ACHANGE` (one row per changed row: type, entity
/// number, primary key, a bitmap of updated properties, tombstone columns) and
/// `ATRANSACTIONSTRING`, with the entity numbers 16001–16003 in `Z_PRIMARYKEY`, whose
/// `Z_MAX` hands out transaction and change numbers (never reused, purges included).
enum SQLiteHistory {
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003
    /// Timestamps are written to the microsecond, and dates that differ by less than half
    /// of one are the same: a transaction's timestamp read back into a date with
    /// microseconds (Python's datetime) names that transaction.
    static let dateTolerance = 5e-7

    /// The statements that create the tables and indexes, as Apple's stores have them.
    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)",
    ]

    /// Creates the history tables when missing, and the tombstone columns the model's
    /// entities need. Runs in a write transaction of its own.
    static func prepareTables(_ db: SQLiteConnection, model entities: [EntityDescription]) throws(ObjectGraphError) {
        try db.execute("BEGIN IMMEDIATE")
        do throws(ObjectGraphError) {
            for sql in createStatements { try db.execute(sql) }
            let needed = entities.map { $0.historyTombstoneSlots.count }.max() ?? 0
            let existing = Set(try db.strings("SELECT name FROM pragma_table_info('ACHANGE')"))
            for i in 0..<needed where !existing.contains("ZTOMBSTONE\(i)") {
                try db.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(i) BLOB")
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Whether the file holds history tables (a store may have been written with history
    /// tracking even when this one was added without it).
    static func hasTables(_ db: SQLiteConnection) throws(ObjectGraphError) -> Bool {
        try !db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'ATRANSACTION'").isEmpty
    }

    // MARK: Writing

    /// Takes `count` numbers for the history entity `number` from `Z_PRIMARYKEY`; returns the first.
    static func allocate(_ db: SQLiteConnection, entity number: Int, count: Int) throws(ObjectGraphError) -> Int64 {
        let s = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = IFNULL(Z_MAX, 0) + ? WHERE Z_ENT = ? RETURNING Z_MAX")
        s.bind(1, Int64(count))
        s.bind(2, Int64(number))
        guard let last = try s.firstRow({ $0.int64(0) }) else {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "the store's Z_PRIMARYKEY has no row for the history entity \(number)")
        }
        return last - Int64(count) + 1
    }

    /// The `ATRANSACTIONSTRING` number of `text`, added when new.
    static func internedString(_ db: SQLiteConnection, _ text: String?) throws(ObjectGraphError) -> Int64? {
        guard let text else { return nil }
        let find = try db.prepare("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        find.bind(1, text: text)
        if let found = try find.firstRow({ $0.int64(0) }) { return found }
        let key = try allocate(db, entity: stringEntity, count: 1)
        let add = try db.prepare("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
        add.bind(1, key)
        add.bind(2, Int64(stringEntity))
        add.bind(3, text: text)
        try add.run()
        return key
    }

    /// The bitmap of `ZCOLUMNS`: bit `i % 8` of byte `i / 8` is set when the property at
    /// position `i` of `EntityDescription.historySlots` changed.
    static func columnBitmap(_ slots: [Int], of entity: EntityDescription, order known: [Int]? = nil) -> [UInt8] {
        let order = known ?? entity.historySlots
        var positions: [Int] = []
        for slot in slots { if let p = order.firstIndex(of: slot) { positions.append(p) } }
        guard let last = positions.max() else { return [] }
        var bytes = [UInt8](repeating: 0, count: last / 8 + 1)
        for p in positions { bytes[p / 8] |= 1 << UInt8(p % 8) }
        return bytes
    }

    static func slots(inBitmap bytes: [UInt8]) -> [Int] {
        var out: [Int] = []
        for (i, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 { out.append(i * 8 + bit) }
        }
        return out
    }

    /// Writes one transaction; its number is the next one, or `number` (a copied transaction).
    static func record(_ db: SQLiteConnection, schema: SQLiteSchema, _ changes: [HistoryChangeWrite],
                       by authorship: HistoryAuthorship, at timestamp: Date, number given: Int64? = nil) throws(ObjectGraphError) -> Int64 {
        let number: Int64
        if let given { number = given } else { number = try allocate(db, entity: transactionEntity, count: 1) }
        let tx = try db.prepare("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, ?, 1, ?, ?, ?, ?, ?)
            """)
        tx.bind(1, number)
        tx.bind(2, Int64(transactionEntity))
        for (i, text) in [authorship.author, authorship.bundleID, authorship.contextName, authorship.processID].enumerated() {
            if let key = try internedString(db, text) { tx.bind(Int32(3 + i), key) } else { tx.bindNull(Int32(3 + i)) }
        }
        tx.bind(7, double: (timestamp.timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6)
        try tx.run()
        guard !changes.isEmpty else { return number }
        var key = try allocate(db, entity: changeEntity, count: changes.count)
        var writer = ChangeRows(db: db, transaction: number)
        var last: (entity: EntityDescription, number: Int64, order: [Int]?)?
        for change in changes {
            // Changes come in runs of one entity: its number and order are looked up once per run.
            if last?.entity !== change.entity { last = (change.entity, Int64(schema.number(change.entity)), nil) }
            if change.type == .delete, !change.tombstone.isEmpty {
                try writer.flush()
                try insertTombstone(db, key: key, change, last!.number, number)
            } else {
                var columns: [UInt8]? = nil
                if change.type == .update {
                    if last!.order == nil { last!.order = change.entity.historySlots }
                    columns = columnBitmap(change.updatedSlots, of: change.entity, order: last!.order)
                }
                try writer.add(key: key, type: change.type, entity: last!.number, primaryKey: change.primaryKey, columns: columns)
            }
            key += 1
        }
        try writer.flush()
        return number
    }

    /// `ACHANGE` rows written many to a statement: one row per statement would cost as
    /// much as the save's own rows.
    private struct ChangeRows {
        static let perStatement = 100
        let db: SQLiteConnection
        let transaction: Int64
        var pending: [(key: Int64, type: HistoryChangeType, entity: Int64, primaryKey: Int64, columns: [UInt8]?)] = []
        /// Prepared on first use, then reused for every run of this save.
        private var full: SQLiteStatement?, single: SQLiteStatement?
        static let fullSQL = sql(rows: perStatement)
        static let singleSQL = sql(rows: 1)

        /// `rows` rows; parameter 1 is the transaction, then five per row.
        static func sql(rows: Int) -> String {
            let values = (0..<rows).map { i in
                let p = 2 + i * 5
                return "(?\(p), 16001, 1, ?\(p + 1), ?\(p + 2), ?\(p + 3), ?1, ?\(p + 4))"
            }
            return "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES " + values.joined(separator: ", ")
        }

        init(db: SQLiteConnection, transaction: Int64) {
            self.db = db
            self.transaction = transaction
            pending.reserveCapacity(Self.perStatement)
        }

        mutating func add(key: Int64, type: HistoryChangeType, entity: Int64, primaryKey: Int64, columns: [UInt8]?) throws(ObjectGraphError) {
            pending.append((key, type, entity, primaryKey, columns))
            if pending.count == Self.perStatement { try flush() }
        }

        mutating func flush() throws(ObjectGraphError) {
            guard !pending.isEmpty else { return }
            // Full runs share one statement; the rest go one row each, so that a connection
            // keeps two of these statements, not one per length.
            var start = 0
            while start < pending.count {
                let n = pending.count - start >= Self.perStatement ? Self.perStatement : 1
                let s = try statement(n == 1)
                s.bind(1, transaction)
                for i in 0..<n {
                    let row = pending[start + i], p = Int32(2 + i * 5)
                    s.bind(p, row.key)
                    s.bind(p + 1, Int64(row.type.rawValue))
                    s.bind(p + 2, row.entity)
                    s.bind(p + 3, row.primaryKey)
                    if let columns = row.columns { s.bind(p + 4, bytes: columns) } else { s.bindNull(p + 4) }
                }
                try s.run()
                start += n
            }
            pending.removeAll(keepingCapacity: true)
        }

        private mutating func statement(_ one: Bool) throws(ObjectGraphError) -> SQLiteStatement {
            if let s = one ? single : full {
                db.reuse(s)
                return s
            }
            let s = try db.prepare(one ? Self.singleSQL : Self.fullSQL)
            if one { single = s } else { full = s }
            return s
        }
    }

    private static func insertTombstone(_ db: SQLiteConnection, key: Int64, _ change: HistoryChangeWrite, _ entityNumber: Int64, _ transaction: Int64) throws(ObjectGraphError) {
        let kept = change.entity.historyTombstoneSlots
        let columns = kept.indices.map { ", ZTOMBSTONE\($0)" }.joined()
        let marks = kept.indices.map { _ in ", ?" }.joined()
        let s = try db.prepare("INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID\(columns)) VALUES (?, 16001, 1, 2, ?, ?, ?\(marks))")
        s.bind(1, key)
        s.bind(2, entityNumber)
        s.bind(3, change.primaryKey)
        s.bind(4, transaction)
        for (i, slot) in kept.enumerated() {
            let value = change.tombstone.first(where: { $0.slot == slot })?.value ?? .null
            s.bind(Int32(5 + i), storing: value)
        }
        try s.run()
    }

    // MARK: Reading

    /// The oldest kept transaction and the highest number ever given.
    static func bounds(_ db: SQLiteConnection) throws(ObjectGraphError) -> (oldest: Int64?, highest: Int64) {
        let oldest = try db.prepare("SELECT MIN(Z_PK) FROM ATRANSACTION").firstRow { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        let highest = try db.prepare("SELECT IFNULL(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = 16002").firstRow { $0.int64(0) } ?? 0
        return (oldest, max(highest, oldest ?? 0))
    }

    /// The first transaction number after `boundary` (exclusive), checking that a
    /// transaction number is one the store kept.
    static func firstNumber(after boundary: HistoryBoundary?, _ db: SQLiteConnection, store: String) throws(ObjectGraphError) -> Int64 {
        switch boundary {
        case nil: return 0
        case .transaction(let n)?:
            let (oldest, highest) = try bounds(db)
            if n > highest {
                throw .invalidArgument("the history token names transaction \(n) of the store '\(store)', which has only written \(highest): the token is from another store or was forged")
            }
            if n > 0, n < oldest ?? (highest + 1) { throw .historyTokenExpired(store: store, number: n, oldest: oldest) }
            return n + 1
        case .date(let date)?:
            let s = try db.prepare("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP > ? + \(dateTolerance)")
            s.bind(1, double: date.timeIntervalSinceReferenceDate)
            return try s.firstRow { $0.isNull(0) ? Int64.max : $0.int64(0) } ?? Int64.max
        }
    }

    static func transactions(_ db: SQLiteConnection, schema: SQLiteSchema, from first: Int64, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction] {
        let s = try db.prepare("""
            SELECT t.Z_PK, t.ZTIMESTAMP,
                   IFNULL(a.ZNAME, t.ZAUTHOR), IFNULL(b.ZNAME, t.ZBUNDLEID), IFNULL(c.ZNAME, t.ZCONTEXTNAME), IFNULL(p.ZNAME, t.ZPROCESSID)
            FROM ATRANSACTION t
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
            LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
            LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
            WHERE t.Z_PK >= ? ORDER BY t.Z_PK
            """)
        s.bind(1, first)
        var out: [StoredHistoryTransaction] = []
        func text(_ column: Int32) -> String? { s.isNull(column) ? nil : s.text(column) }
        try s.forEachRow { row in
            out.append(StoredHistoryTransaction(
                number: row.int64(0), timestamp: Date(timeIntervalSinceReferenceDate: row.double(1)),
                authorship: HistoryAuthorship(author: text(2), contextName: text(4), processID: text(5), bundleID: text(3)),
                changes: includingChanges ? [] : nil))
        }
        guard includingChanges, let firstRead = out.first?.number else { return out }
        // Changes come by transaction, in the transactions' order: one walk pairs them.
        var i = 0
        var current: [StoredHistoryChange] = []
        try forEachChange(db, schema: schema, fromTransaction: firstRead) { change in
            while i < out.count, out[i].number < change.transactionNumber {
                out[i].changes = current
                current = []
                i += 1
            }
            if i < out.count, out[i].number == change.transactionNumber { current.append(change) }
        }
        if i < out.count { out[i].changes = current }
        return out
    }

    /// Every change of the transactions numbered `first` and later, by transaction then in
    /// change order (through the index on `ZTRANSACTIONID`: a reader that is nearly caught up
    /// reads only the newest changes).
    static func forEachChange(_ db: SQLiteConnection, schema: SQLiteSchema, fromTransaction first: Int64,
                              _ body: (StoredHistoryChange) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let columns = try db.strings("SELECT name FROM pragma_table_info('ACHANGE')")
        let tombstoneColumns = columns.filter { $0.hasPrefix("ZTOMBSTONE") }.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        let extra = tombstoneColumns.map { ", \(sqlIdentifier($0))" }.joined()
        let s = try db.prepare("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE WHERE ZTRANSACTIONID >= ? ORDER BY ZTRANSACTIONID, Z_PK")
        s.bind(1, first)
        var slotNames: [ObjectIdentifier: [String]] = [:]
        var lastNumber: Int64 = -1, lastEntity: EntityDescription? = nil
        var kept: [ObjectIdentifier: [(name: String, kind: SQLiteStore.ColumnKind)]] = [:]
        try s.forEachRow { row throws(ObjectGraphError) in
            let type = HistoryChangeType(rawValue: Int(row.int64(1))) ?? .update
            // Changes come in runs of one entity: its number is looked up once per run.
            let number = row.int64(2)
            if number != lastNumber {
                lastNumber = number
                lastEntity = schema.entityByNumber[Int(number)]
            }
            let entity = lastEntity
            var change = StoredHistoryChange(changeID: row.int64(0), type: type, entity: entity, primaryKey: row.int64(3), transactionNumber: row.int64(4))
            if let entity {
                let id = ObjectIdentifier(entity)
                if type == .update {
                    let names = slotNames[id] ?? entity.historySlots.map { entity.layout.properties[$0].name }
                    slotNames[id] = names
                    change.updatedProperties = row.isNull(5) ? [] : slots(inBitmap: row.bytes(5)).compactMap { $0 < names.count ? names[$0] : nil }
                } else if type == .delete {
                    let fields = kept[id] ?? entity.historyTombstoneSlots.map { slot in
                        let p = entity.layout.properties[slot]
                        return (p.name, SQLiteStore.ColumnKind(p))
                    }
                    kept[id] = fields
                    var tombstone: [String: AttributeValue] = [:]
                    for (i, field) in fields.enumerated() where i < tombstoneColumns.count {
                        tombstone[field.name] = SQLiteStore.read(row, Int32(6 + i), field.kind)
                    }
                    change.tombstone = tombstone
                }
            }
            try body(change)
        }
    }

    /// Deletes the transactions before `boundary` and their changes; returns how many.
    static func delete(_ db: SQLiteConnection, before boundary: HistoryBoundary) throws(ObjectGraphError) -> Int {
        // The history is always a run of transactions up to the newest: a purge by date
        // stops at the first transaction at or after it, so no hole is left for a token.
        let limit: Int64
        switch boundary {
        case .transaction(let n): limit = n
        case .date(let date):
            let s = try db.prepare("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP >= ? - \(dateTolerance)")
            s.bind(1, double: date.timeIntervalSinceReferenceDate)
            limit = try s.firstRow { $0.isNull(0) ? Int64.max : $0.int64(0) } ?? Int64.max
        }
        let changes = try db.prepare("DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?")
        changes.bind(1, limit)
        try changes.run()
        let transactions = try db.prepare("DELETE FROM ATRANSACTION WHERE Z_PK < ?")
        transactions.bind(1, limit)
        return try transactions.runCountingChanges()
    }
}

extension SQLiteSaveTransaction: HistoryRecordingTransaction {
    var recordsHistory: Bool { store.storeOptions.historyTracking }

    func recordHistory(_ changes: [HistoryChangeWrite], by authorship: HistoryAuthorship, at timestamp: Date) throws(ObjectGraphError) -> Int64 {
        var checked: EntityDescription? = nil
        for change in changes where change.entity !== checked {
            try checkStored(change.entity)
            checked = change.entity
        }
        return try SQLiteHistory.record(db, schema: store.schema, changes, by: authorship, at: timestamp)
    }
}

extension SQLiteStore: HistoryKeepingStore {
    public var tracksHistory: Bool { storeOptions.historyTracking }

    /// A store without history tables (never tracked) has no history.
    public func historyTransactions(after boundary: HistoryBoundary?, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction] {
        let db = try open()
        guard try SQLiteHistory.hasTables(db) else {
            if case .transaction(let n)? = boundary, n > 0 {
                throw .invalidArgument("the history token names transaction \(n) of the store '\(path)', which keeps no history")
            }
            return []
        }
        return try readTransaction(db) { () throws(ObjectGraphError) in
            let first = try SQLiteHistory.firstNumber(after: boundary, db, store: path)
            if first == Int64.max { return [] }
            return try SQLiteHistory.transactions(db, schema: schema, from: first, includingChanges: includingChanges)
        }
    }

    public func deleteHistory(before boundary: HistoryBoundary) throws(ObjectGraphError) -> Int {
        if readsOnly {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(path)' is read-only: its history cannot be deleted")
        }
        let db = try open()
        guard try SQLiteHistory.hasTables(db) else { return 0 }
        var deleted = 0
        try save { _ throws(ObjectGraphError) in deleted = try SQLiteHistory.delete(db, before: boundary) }
        return deleted
    }

    public func lastHistoryTransactionNumber() throws(ObjectGraphError) -> Int64? {
        let db = try open()
        guard try SQLiteHistory.hasTables(db) else { return nil }
        return try db.prepare("SELECT MAX(Z_PK) FROM ATRANSACTION").firstRow { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
    }

    /// Runs `body` inside one read transaction, so transactions and changes agree.
    private func readTransaction<T>(_ db: SQLiteConnection, _ body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        try db.execute("BEGIN")
        do throws(ObjectGraphError) {
            let out = try body()
            try db.execute("COMMIT")
            return out
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}
