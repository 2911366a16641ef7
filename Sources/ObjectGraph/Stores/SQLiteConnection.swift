import CSQLite
import FoundationEssentials

/// One SQLite connection with a cache of prepared statements keyed by SQL text, so each
/// statement is compiled once per store. Not thread-safe: the coordinator serialises use.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: String
    /// SQL logging (`SQLDebug`): the settings this connection's trace was installed for,
    /// and the rows each running statement returned so far (level 3).
    var traceGeneration = 0
    var traceLevel = 0
    var traceRows: [OpaquePointer: Int] = [:]

    /// SQLite's own destructor constant: copy bound text and blobs.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String, readOnly: Bool = false) throws(ObjectGraphError) {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        if rc != SQLITE_OK {
            let detail = Self.sqliteError(code: rc, message: db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open")
            sqlite3_close_v2(db)
            throw ObjectGraphError(
                code: ErrorCode.storeOpen, message: "cannot open the store file '\(path)': \(detail.message)",
                userInfo: [(ErrorUserInfoKey.filePath, path)], details: [detail])
        }
        handle = db
        // Before any statement can meet another process's lock (a store sets its own
        // timeout next; stack-less metadata reads and writes keep this one).
        setBusyTimeout(StoreOptions.defaultTimeout)
        sqlite3_extended_result_codes(db, 1)
        SQLiteFunctions.register(db!)
    }

    deinit { close() }

    /// How long a statement waits for another connection's lock before SQLITE_BUSY.
    func setBusyTimeout(_ seconds: Double) {
        sqlite3_busy_timeout(handle, Int32(min(seconds * 1000, Double(Int32.max))))
    }

    func close() {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    static func sqliteError(code: Int32, message: String) -> ObjectGraphError {
        ObjectGraphError(domain: ObjectGraphError.sqliteDomain, code: Int(code), message: message)
    }

    func lastError(_ rc: Int32) -> ObjectGraphError {
        Self.sqliteError(code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
    }

    /// A cached prepared statement, reset and with bindings cleared.
    func prepare(_ sql: String) throws(ObjectGraphError) -> OpaquePointer {
        if traceGeneration != SQLDebug.generation { SQLDebug.configure(self) }
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw lastError(rc) }
        statements[sql] = s
        return s
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String) throws(ObjectGraphError) {
        if traceGeneration != SQLDebug.generation { SQLDebug.configure(self) }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw lastError(rc) }
    }

    /// Steps a statement that returns no rows.
    func run(_ s: OpaquePointer) throws(ObjectGraphError) {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        if rc != SQLITE_DONE && rc != SQLITE_ROW { throw lastError(rc) }
    }

    /// The first column of each row of a query, as text.
    func strings(_ sql: String) throws(ObjectGraphError) -> [String] {
        let s = try prepare(sql)
        defer { sqlite3_reset(s) }
        var out: [String] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw lastError(rc) }
            out.append(sqlite3_column_text(s, 0).map { String(cString: $0) } ?? "")
        }
        return out
    }

    func bind(_ s: OpaquePointer, _ index: Int32, _ value: Int64) { sqlite3_bind_int64(s, index, value) }

    func bind(_ s: OpaquePointer, _ index: Int32, text: String) {
        sqlite3_bind_text(s, index, text, -1, Self.transient)
    }

    func bind(_ s: OpaquePointer, _ index: Int32, bytes: [UInt8]) {
        // An empty blob stays an empty blob, not NULL.
        if bytes.isEmpty { sqlite3_bind_zeroblob(s, index, 0); return }
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(s, index, raw.baseAddress, Int32(raw.count), Self.transient)
        }
    }
}
