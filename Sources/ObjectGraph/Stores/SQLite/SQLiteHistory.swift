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
            _ = try addTombstoneColumns(db, for: entities)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Adds the `ZTOMBSTONE<i>` columns `entities` need that `ACHANGE` lacks; returns how
    /// many tombstone columns it has then.
    static func addTombstoneColumns(_ db: SQLiteConnection, for entities: [EntityDescription]) throws(ObjectGraphError) -> Int {
        let needed = entities.map { $0.historyTombstoneSlots.count }.max() ?? 0
        let existing = Set(try db.strings("SELECT name FROM pragma_table_info('ACHANGE')"))
        for i in 0..<needed where !existing.contains("ZTOMBSTONE\(i)") {
            try db.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(i) BLOB")
        }
        return max(needed, existing.filter { $0.hasPrefix("ZTOMBSTONE") }.count)
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
