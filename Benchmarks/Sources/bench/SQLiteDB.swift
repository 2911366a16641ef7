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
