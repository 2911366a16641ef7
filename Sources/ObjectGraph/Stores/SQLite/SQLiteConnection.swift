import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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

    /// Opens `path` for reading and writing (created when missing), or, when `readOnly`,
    /// for looking without changing anything: a read-only connection that runs nothing
    /// but queries (`query_only`), never checkpoints when it closes, and reads an existing
    /// `-shm` without writing to it (`readonly_shm`), so the database file, its `-wal` and
    /// its `-shm` stay byte for byte as they were. (Reading a WAL database needs a `-shm`:
    /// when there is none, SQLite creates one, and an empty `-wal` when that is missing.)
    ///
    /// A `snapshot` (read-only only) is a short look, such as checking a store before it
    /// opens or reading its metadata: when its `-wal` holds no commits (no file, or only its
    /// 32-byte header) and no `-journal` holds anything (a save that did not finish, which
    /// SQLite must see and refuse), the database file alone is the whole store and is read
    /// as it is on disk (`immutable`), so no `-wal` or `-shm` appears beside it and a `-shm`
    /// a killed writer left is not needed. Never for a connection that stays open: it would
    /// not see other processes' later writes.
    init(path: String, readOnly: Bool = false, snapshot: Bool = false) throws(ObjectGraphError) {
        self.path = path
        var db: OpaquePointer?
        let rc: Int32
        if readOnly {
            let query: String
            if snapshot, (SQLiteStore.fileSize(path + "-wal") ?? 0) <= 32, (SQLiteStore.fileSize(path + "-journal") ?? 0) == 0 {
                query = "?immutable=1"
            } else if access(path + "-shm", F_OK) == 0 {
                query = "?readonly_shm=1"
            } else {
                query = ""
            }
            rc = sqlite3_open_v2(Self.fileURI(path) + query, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        } else {
            rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        }
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
        if readOnly {
            _ = og_sqlite3_set_no_checkpoint_on_close(db)
            sqlite3_exec(db, "PRAGMA query_only = 1", nil, nil, nil)
            if (SQLiteStore.fileSize(path + "-journal") ?? 0) > 0 { try refuseUnfinishedSave() }
        }
    }

    /// A `-journal` holding a save that did not finish (a hot journal) must be rolled back
    /// before the file can be read, which a read-only connection cannot do: SQLite then
    /// fails every read (SQLITE_READONLY_ROLLBACK), and the error says so rather than
    /// letting the store look like something else.
    private func refuseUnfinishedSave() throws(ObjectGraphError) {
        guard sqlite3_exec(handle, "SELECT 1 FROM sqlite_master LIMIT 1", nil, nil, nil) != SQLITE_OK,
            sqlite3_extended_errcode(handle) == Self.readOnlyRollback
        else { return }
        let cause = lastError(Self.readOnlyRollback)
        sqlite3_close_v2(handle)
        handle = nil
        throw ObjectGraphError(
            code: ErrorCode.storeOpen,
            message: "the store file '\(path)' holds a save that did not finish: its -journal must be rolled back before it can be read, which needs write access. Open the store once without read-only (or read a copy of the file and its -journal)",
            userInfo: [(ErrorUserInfoKey.filePath, path)], details: [cause])
    }

    /// SQLITE_READONLY_ROLLBACK: a hot journal that a read-only connection cannot roll back.
    static let readOnlyRollback: Int32 = SQLITE_READONLY | (3 << 8)

    /// Whether `error` is a read-only connection's refusal of a hot journal (SQLite's own
    /// code, or the error `init` gives for it), which a writer resolves by rolling back.
    static func isUnfinishedSave(_ error: ObjectGraphError) -> Bool {
        let sqlite = error.domain == ObjectGraphError.sqliteDomain ? error : error.details.first { $0.domain == ObjectGraphError.sqliteDomain }
        return sqlite.map { Int32($0.code) == readOnlyRollback } ?? false
    }

    /// `path` as an SQLite URI filename (`file:`), with the characters URIs give a
    /// meaning to percent-encoded.
    static func fileURI(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array((path.hasPrefix("/") ? "file://" : "file:").utf8)
        for b in path.utf8 {
            if b == UInt8(ascii: "%") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b <= 0x20 || b >= 0x7F {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
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
    func prepare(_ sql: String) throws(ObjectGraphError) -> SQLiteStatement {
        if traceGeneration != SQLDebug.generation { SQLDebug.configure(self) }
        guard let db = handle else { throw Self.sqliteError(code: SQLITE_MISUSE, message: "the connection to '\(path)' is closed") }
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return SQLiteStatement(handle: s, database: db)
        }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw lastError(rc) }
        statements[sql] = s
        return SQLiteStatement(handle: s, database: db)
    }

    /// Makes a statement `prepare` handed out before ready to run again, as `prepare`
    /// would, without finding it by its text.
    @inline(__always)
    func reuse(_ s: SQLiteStatement) {
        if traceGeneration != SQLDebug.generation { SQLDebug.configure(self) }
        sqlite3_reset(s.handle)
        sqlite3_clear_bindings(s.handle)
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String) throws(ObjectGraphError) {
        if traceGeneration != SQLDebug.generation { SQLDebug.configure(self) }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw lastError(rc) }
    }

    /// The first column of each row of a query, as text; `binding` fills its `?` in order.
    func strings(_ sql: String, binding arguments: [String] = []) throws(ObjectGraphError) -> [String] {
        let s = try prepare(sql)
        for (i, text) in arguments.enumerated() { s.bind(Int32(i + 1), text: text) }
        var out: [String] = []
        try s.forEachRow { row in out.append(row.text(0)) }
        return out
    }
}
