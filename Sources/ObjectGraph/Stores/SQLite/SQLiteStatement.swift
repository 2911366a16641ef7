import CSQLite
import FoundationEssentials

/// One prepared statement of a `SQLiteConnection`: binding its parameters, stepping
/// through its rows and reading their columns. Every `sqlite3_step` of the engine is made
/// here, so stepping errors, resets and the row cursor are written once.
///
/// A value over the connection's cached statement (two pointers): the connection owns and
/// finalizes the statement, and `prepare` hands it out reset with no bindings. Not
/// thread-safe, as its connection is not.
///
/// Reading rows is a cursor: `while try s.step() { … s.int64(0) … }`, then `reset()` (or
/// `forEachRow`, which resets). Parameters and columns are numbered as SQLite numbers them:
/// parameters from 1, columns from 0.
struct SQLiteStatement {
    let handle: OpaquePointer
    /// The statement's database, for its error messages.
    let database: OpaquePointer

    /// SQLite's own destructor constant: copy bound text and blobs.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    // MARK: Stepping

    /// Moves to the next row: true when a row is ready to read, false when there are no
    /// more (the statement is done). Errors carry SQLite's extended code and message.
    @inline(__always)
    func step() throws(ObjectGraphError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw SQLiteConnection.sqliteError(code: rc, message: String(cString: sqlite3_errmsg(database)))
    }

    /// Makes the statement ready to run again, its bindings kept.
    func reset() { sqlite3_reset(handle) }

    /// Runs a statement that returns no rows (any it returns are ignored), then resets it.
    func run() throws(ObjectGraphError) {
        defer { reset() }
        _ = try step()
    }

    /// Runs a statement that writes, then resets it: how many rows it changed (not
    /// counting what triggers changed).
    func runCountingChanges() throws(ObjectGraphError) -> Int {
        defer { reset() }
        _ = try step()
        return Int(sqlite3_changes(database))
    }

    /// Runs a statement that writes one row and returns the rowid SQLite last inserted on
    /// this connection (unchanged when the statement updated a row instead).
    func runReturningLastInsert() throws(ObjectGraphError) -> Int64 {
        defer { reset() }
        _ = try step()
        return sqlite3_last_insert_rowid(database)
    }

    /// Calls `body` with each row in turn, then resets the statement (also on error).
    func forEachRow(_ body: (SQLiteStatement) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        defer { reset() }
        while try step() { try body(self) }
    }

    /// The first row's values through `read`, or nil when there is no row; then resets.
    func firstRow<T>(_ read: (SQLiteStatement) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T? {
        defer { reset() }
        return try step() ? try read(self) : nil
    }

    // MARK: Binding

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    func bind(_ index: Int32, double value: Double) { sqlite3_bind_double(handle, index, value) }

    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    /// Binds every byte of `text`'s UTF-8, embedded NULs included (SQLite keeps them).
    func bind(_ index: Int32, text: String) {
        var text = text
        text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                return
            }
            _ = UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                sqlite3_bind_text64(handle, index, chars, sqlite3_uint64(utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Binds a blob; an empty one stays an empty blob, not NULL.
    func bind(_ index: Int32, bytes: [UInt8]) {
        if bytes.isEmpty { sqlite3_bind_zeroblob(handle, index, 0); return }
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob64(handle, index, raw.baseAddress, sqlite3_uint64(raw.count), Self.transient)
        }
    }

    /// Binds a value in its storage form: dates as seconds since 2001, UUIDs as 16 bytes,
    /// decimals and URIs as text.
    func bind(_ index: Int32, storing value: AttributeValue) {
        switch value {
        case .null: bindNull(index)
        case .integer(let v): bind(index, v)
        case .boolean(let v): bind(index, v ? 1 : 0)
        case .double(let v): bind(index, double: v)
        case .date(let v): bind(index, double: v.timeIntervalSinceReferenceDate)
        case .string(let v): bind(index, text: v)
        case .uri(let v): bind(index, text: v)
        case .decimal(let v): bind(index, text: v.description)
        case .data(let v): bind(index, bytes: Array(v))
        // A save hands the store bytes; a value met here (a predicate constant) is compared as its archive.
        case .transformable(let t): bind(index, bytes: Array(SecureArchive.encode(t)))
        case .uuid(let v):
            let u = v.uuid
            bind(index, bytes: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
        }
    }

    /// Binds a query's constants in order from parameter 1: the integers, doubles, text
    /// and nulls the predicate translator leaves in SQL. Anything else is a translator bug.
    func bind(queryValues values: [AttributeValue]) throws(ObjectGraphError) {
        for (i, v) in values.enumerated() {
            let index = Int32(i + 1)
            switch v {
            case .integer(let n): bind(index, n)
            case .double(let d): bind(index, double: d)
            case .string(let t): bind(index, text: t)
            case .null: bindNull(index)
            default: throw .invalidArgument("cannot bind a \(v.kindName) in a query")
            }
        }
    }

    // MARK: Columns of the current row

    /// SQLite's storage class of a column (`SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`,
    /// `SQLITE_BLOB`, `SQLITE_NULL`).
    @inline(__always)
    func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    @inline(__always)
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// A column as text, every byte of it (empty for NULL).
    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// A column as bytes (none for NULL or an empty blob).
    func bytes(_ column: Int32) -> [UInt8] {
        guard let p = sqlite3_column_blob(handle, column) else { return [] }
        let n = Int(sqlite3_column_bytes(handle, column))
        return n > 0 ? Array(UnsafeRawBufferPointer(start: p, count: n)) : []
    }
}
