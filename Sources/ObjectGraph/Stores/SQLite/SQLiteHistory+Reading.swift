import CSQLite
import FoundationEssentials

/// Reading and purging the history tables (`SQLiteHistory.swift` writes them): the
/// transactions after a boundary with their changes, oldest first, and the SQLite store's
/// side of `HistoryKeepingStore`.
extension SQLiteHistory {
    /// The oldest kept transaction and the highest number ever given.
    static func bounds(_ db: SQLiteConnection) throws(ObjectGraphError) -> (oldest: Int64?, highest: Int64) {
        let oldest = try db.prepare("SELECT MIN(Z_PK) FROM ATRANSACTION").firstRow { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        let highest = try db.prepare("SELECT IFNULL(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = 16002").firstRow { $0.int64(0) } ?? 0
        return (oldest, max(highest, oldest ?? 0))
    }

    /// The first transaction number after `boundary` (exclusive), checking that a
    /// transaction number is one the store kept.
    static func firstNumber(after boundary: HistoryBoundary?, _ db: SQLiteConnection, store: String) throws(ObjectGraphError) -> Int64 {
        guard let boundary else { return 0 }
        return try boundary.firstTransaction(store: store, bounds: { () throws(ObjectGraphError) in try bounds(db) }) { date throws(ObjectGraphError) in
            let s = try db.prepare("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP > ? + \(dateTolerance)")
            s.bind(1, double: date.timeIntervalSinceReferenceDate)
            return try s.firstRow { $0.isNull(0) ? Int64.max : $0.int64(0) } ?? Int64.max
        }
    }

    /// The position of transaction `number` in `transactions` (sorted by number).
    private static func position(of number: Int64, in transactions: [StoredHistoryTransaction]) -> Int? {
        var low = 0, high = transactions.count
        while low < high {
            let middle = (low + high) / 2
            if transactions[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low < transactions.count && transactions[low].number == number ? low : nil
    }

    /// The transactions from one number on (the parameter), oldest first, with their
    /// interned names: number, timestamp, author, bundle, context, process. The PostgreSQL
    /// store runs it too.
    static let transactionsSQL = """
        SELECT t.Z_PK, t.ZTIMESTAMP,
               COALESCE(a.ZNAME, t.ZAUTHOR), COALESCE(b.ZNAME, t.ZBUNDLEID), COALESCE(c.ZNAME, t.ZCONTEXTNAME), COALESCE(p.ZNAME, t.ZPROCESSID)
        FROM ATRANSACTION t
        LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
        LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
        LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
        LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
        WHERE t.Z_PK >= ? ORDER BY t.Z_PK
        """

    static func transactions(_ db: SQLiteConnection, schema: SQLiteSchema, from first: Int64, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction] {
        let s = try db.prepare(transactionsSQL)
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
        // Changes come by transaction, in the transactions' order: the next change is nearly
        // always of the transaction of the one before, or of the next. A file whose changes
        // are numbered otherwise still pairs each with its transaction, by search.
        var i = 0
        try forEachChange(db, schema: schema, fromTransaction: firstRead) { change in
            let number = change.transactionNumber
            if out[i].number != number {
                if i + 1 < out.count, out[i + 1].number == number {
                    i += 1
                } else if let found = position(of: number, in: out) {
                    i = found
                } else {
                    return  // a change of no transaction read
                }
            }
            out[i].changes!.append(change)
        }
        return out
    }

    /// Every change of the transactions numbered `first` and later, in change order (which
    /// is transaction order: a reader that is nearly caught up reads only the newest changes).
    static func forEachChange(_ db: SQLiteConnection, schema: SQLiteSchema, fromTransaction first: Int64,
                              _ body: (StoredHistoryChange) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let columns = try db.strings("SELECT name FROM pragma_table_info('ACHANGE')")
        let tombstoneColumns = columns.filter { $0.hasPrefix("ZTOMBSTONE") }.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        let extra = tombstoneColumns.map { ", \(sqlIdentifier($0))" }.joined()
        // Changes are numbered as they are written, so a transaction's come after the ones of
        // every earlier transaction: the read starts at the first change of `first` (found
        // through the ZTRANSACTIONID index) and goes on through the table in key order.
        let s = try db.prepare("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE"
            + " WHERE Z_PK >= IFNULL((SELECT MIN(Z_PK) FROM ACHANGE WHERE ZTRANSACTIONID >= ?1), 9223372036854775807)"
            + " AND ZTRANSACTIONID >= ?1 ORDER BY Z_PK")
        s.bind(1, first)
        var decoder = HistoryChangeDecoder(schema: schema)
        try s.forEachRow { row throws(ObjectGraphError) in
            try body(decoder.change(
                id: row.int64(0), type: row.int64(1), entity: row.int64(2), primaryKey: row.int64(3), transaction: row.int64(4),
                bitmap: { row.isNull(5) ? nil : row.bytes(5) }, tombstoneColumns: tombstoneColumns.count,
                tombstone: { i, kind in SQLiteStore.read(row, Int32(6 + i), kind) }))
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
