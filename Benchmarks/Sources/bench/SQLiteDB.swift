import BenchSQLite

/// One connection through SQLite's C API: enough for the raw contender and the runner's checks.
final class SQLiteDB {
    let handle: OpaquePointer

    static var version: String { String(cString: sqlite3_libversion()) }

    init(path: String) throws {
        var db: OpaquePointer?
        // NOMUTEX, as ObjectGraph opens its connections: one thread per connection.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw BenchError("cannot open \(path): SQLite error \(rc)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(lastError)")
        }
    }

    /// A prepared statement; the caller finalizes it.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("\(sql): \(lastError)")
        }
        return statement
    }
}

extension SQLiteDB {
    /// Binds text, copied by SQLite.
    func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        guard sqlite3_bind_text(statement, index, text, -1, transient) == SQLITE_OK else { throw BenchError("bind: \(lastError)") }
    }

    /// Steps a statement that returns no rows, then resets it.
    func stepDone(_ statement: OpaquePointer) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("step: \(lastError)") }
        sqlite3_reset(statement)
    }

    /// The first column of the first row of `sql`, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("\(sql): \(lastError)") }
        return sqlite3_column_int64(statement, 0)
    }
}
