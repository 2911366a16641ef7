import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


/// Opening a store file: creating it or checking it through a connection that cannot
/// change it, the journal mode and pragmas, and what a file that is no store is told.
extension SQLiteStore {
    /// Opens the file at `path` for this store: created when `creating` and the file is
    /// missing or empty; otherwise checked (metadata, version hashes, integrity, tables).
    ///
    /// An existing store is checked through a connection that cannot change it
    /// (`SQLiteConnection(readOnly:)`: no writes, no checkpoint when it closes, its `-shm`
    /// only read), so a store that is refused, together with its `-wal` and `-shm`, stays
    /// byte for byte as it was: a stale or foreign `-wal` is never checkpointed into it.
    /// Only a store that passed is opened for writing.
    ///
    /// Several processes may open the same new file at once. Each waits for the others'
    /// locks (the busy timeout is set before the first statement), and the store is
    /// created only by the one that finds the file still empty once it holds the write
    /// lock (`BEGIN IMMEDIATE`); the others read what it created and check it like any
    /// existing store.
    func open(at path: String, creating: Bool, expecting identity: String? = nil) throws(ObjectGraphError) -> SQLiteConnection {
        try Self.checkHeader(path)
        if readsOnly { return try openReadOnly(at: path, expecting: identity) }
        if !creating && Self.fileSize(path) ?? 0 == 0 {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no store at '\(path)'", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        // At most a few rounds: each ends with a store checked or created, unless another
        // connection created the store between this one's look and its write lock.
        for _ in 0..<3 {
            if Self.fileSize(path) ?? 0 > 0, try check(path, expecting: identity) {
                // Passed: opened for writing only now.
                let connection = try SQLiteConnection(path: path)
                do throws(ObjectGraphError) {
                    connection.setBusyTimeout(busyTimeout)
                    // The first change to a store we accept is its journal mode.
                    try setJournalMode(connection)
                    if schemaNeedsAdditions { try addMissingSchema(connection) }
                    try applyOptions(connection)
                } catch {
                    connection.close()
                    throw Self.describe(error, path: path)
                }
                return connection
            }
            // No tables yet (a new or empty file): create the store, unless another
            // connection does first.
            let connection = try SQLiteConnection(path: path)
            do throws(ObjectGraphError) {
                connection.setBusyTimeout(busyTimeout)
                if try tableNames(connection).isEmpty {
                    // Incremental auto-vacuum as Apple's stores have it: only a database without
                    // pages takes it, so before the journal mode writes the first one.
                    try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
                    // The journal mode first: switching to WAL cannot happen inside a transaction.
                    try setJournalMode(connection)
                    if try createIfEmpty(connection) {
                        try applyOptions(connection)
                        return connection
                    }
                }
            } catch {
                connection.close()
                throw Self.describe(error, path: path)
            }
            connection.close()
        }
        throw ObjectGraphError(
            code: ErrorCode.storeOpen, message: "cannot open the store '\(path)': other connections kept creating and emptying it",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// Checks the existing store at `path` without changing it: true when it passed,
    /// false when the file has no tables yet (nothing to check: it is created instead);
    /// an error says why a store is refused.
    ///
    /// One case needs a writer: a hot rollback journal (a store in a rollback journal
    /// mode whose writer died mid-transaction) must be rolled back before the file can be
    /// read, and a read-only connection cannot (SQLITE_READONLY_ROLLBACK). Only then is
    /// the check repeated on a connection that may write, which rolls the journal back.
    ///
    /// Opens a read-only store (`NSReadOnlyPersistentStoreOption`, `SQLITE_OPEN_READONLY`):
    /// it must exist, and it is never written, not even by closing — no journal mode, no
    /// checkpoint, no `ANALYZE` or `VACUUM`; an existing `-shm` is only read. (As with Core
    /// Data, SQLite makes a `-shm` and an empty `-wal` beside a WAL store that has none, to
    /// take its read locks: the store may be written by others meanwhile.) A store that
    /// needs a writer first (a hot rollback journal to roll back, a creation that did not
    /// finish, tables the model lacks) is refused with the reason.
    private func openReadOnly(at path: String, expecting identity: String?) throws(ObjectGraphError) -> SQLiteConnection {
        guard Self.fileSize(path) ?? 0 > 0 else {
            throw ObjectGraphError(
                code: ErrorCode.storeOpen, message: "there is no store at '\(path)' to open read-only", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        let connection: SQLiteConnection
        do throws(ObjectGraphError) {
            guard try check(path, expecting: identity, readOnly: true) else {
                throw ObjectGraphError(
                    code: ErrorCode.storeOpen,
                    message: "cannot open the store '\(path)' read-only: it has no tables yet (its creation did not finish); open it once for writing",
                    userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            connection = try SQLiteConnection(path: path, readOnly: true)
        } catch {
            let code = Int32(error.code)
            // A hot rollback journal, or a -shm that only a writer can rebuild.
            if SQLiteConnection.isUnfinishedSave(error)
                || error.domain == ObjectGraphError.sqliteDomain && (code & 0xFF == SQLITE_PROTOCOL || code == SQLITE_READONLY | (1 << 8))
            {
                throw ObjectGraphError(
                    code: ErrorCode.storeOpen,
                    message: "cannot open the store '\(path)' read-only: a writer was interrupted and its journal must be recovered first; open it once for writing",
                    userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
            }
            throw Self.describe(error, path: path)
        }
        do throws(ObjectGraphError) {
            connection.setBusyTimeout(busyTimeout)
            try applyOptions(connection)
        } catch {
            connection.close()
            throw Self.describe(error, path: path)
        }
        return connection
    }

    /// A writer killed as it began the store's WAL can leave a `-shm` that no longer
    /// matches the `-wal` (SQLITE_PROTOCOL for a reader that may not write to the `-shm`):
    /// the check is then done by a writer, which rebuilds the `-shm` from the `-wal`.
    ///
    /// While another process is creating the store, a read-only connection can find the
    /// database switched to WAL before its `-wal` and `-shm` exist, which only a writer may
    /// create (SQLITE_CANTOPEN, SQLITE_READONLY_CANTINIT): the check is tried again for a
    /// moment (the creator finishes in milliseconds), and then done by a writer.
    private func check(_ path: String, expecting identity: String?) throws(ObjectGraphError) -> Bool {
        let deadline = MonotonicClock.seconds() + min(busyTimeout, 5)
        while true {
            do throws(ObjectGraphError) {
                return try check(path, expecting: identity, readOnly: true)
            } catch {
                if SQLiteConnection.isUnfinishedSave(error) { break }  // a hot journal: a writer rolls it back
                guard error.domain == ObjectGraphError.sqliteDomain else { throw Self.describe(error, path: path) }
                let code = Int32(error.code)
                // A writer killed as it began the WAL left a -shm that does not match the
                // -wal (its header only): only a writer can rebuild the -shm.
                if code & 0xFF == SQLITE_PROTOCOL { break }
                let racing = code & 0xFF == SQLITE_CANTOPEN || code == SQLITE_READONLY | (5 << 8)  // SQLITE_READONLY_CANTINIT
                    || code == SQLITE_READONLY | (1 << 8) || code & 0xFF == SQLITE_BUSY  // SQLITE_READONLY_RECOVERY
                guard racing else { throw Self.describe(error, path: path) }
                if MonotonicClock.seconds() >= deadline { break }
                usleep(10_000)
            }
        }
        do throws(ObjectGraphError) { return try check(path, expecting: identity, readOnly: false) } catch {
            throw Self.describe(error, path: path)
        }
    }

    private func check(_ path: String, expecting identity: String?, readOnly: Bool) throws(ObjectGraphError) -> Bool {
        let connection = try SQLiteConnection(path: path, readOnly: readOnly, snapshot: readOnly)
        defer { connection.close() }
        // A writer checks only when a reader cannot: it never checkpoints a store it may refuse.
        if !readOnly { _ = og_sqlite3_set_no_checkpoint_on_close(connection.handle) }
        connection.setBusyTimeout(busyTimeout)
        let tables = try tableNames(connection)
        if tables.isEmpty { return false }
        guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
            throw ObjectGraphError(
                code: ErrorCode.storeInvalidType,
                message: "'\(path)' is an SQLite database but not a Core Data store (it has no Z_METADATA table)",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        try readMetadata(connection, path: path)
        if let identity, identity != identifier {
            throw ObjectGraphError(
                code: ErrorCode.storeOperation,
                message: "'\(path)' is another store (UUID \(identifier)), not this one (\(identity)); the store stays at '\(self.path)'",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        try checkCompatible()
        try checkIntegrity(connection)
        try checkTables(connection, tables)
        return true
    }


    func tableNames(_ db: SQLiteConnection) throws(ObjectGraphError) -> Set<String> {
        Set(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
    }

    /// WAL unless the pragmas option names another journal mode.
    private var journalMode: String { storeOptions.pragma("journal_mode") ?? "WAL" }

    /// Sets the journal mode, waiting out other connections. Entering WAL takes the write
    /// lock, which the busy timeout waits for; leaving it needs the database to itself,
    /// and SQLite then answers SQLITE_BUSY at once (no busy handler), so that case is
    /// retried here until the busy timeout has passed.
    private func setJournalMode(_ db: SQLiteConnection) throws(ObjectGraphError) {
        let deadline = MonotonicClock.seconds() + busyTimeout
        while true {
            do throws(ObjectGraphError) {
                try db.execute("PRAGMA journal_mode=\(journalMode)")
                return
            } catch {
                guard Self.isBusy(error), MonotonicClock.seconds() < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    static func isBusy(_ error: ObjectGraphError) -> Bool {
        guard error.domain == ObjectGraphError.sqliteDomain else { return false }
        let primary = Int32(error.code & 0xFF)
        return primary == SQLITE_BUSY || primary == SQLITE_LOCKED
    }


    /// The remaining pragmas, then ANALYZE and VACUUM when asked for.
    /// A read-only store takes the pragmas (a pragma that would write fails) but not
    /// ANALYZE and VACUUM, which rewrite the file.
    private func applyOptions(_ db: SQLiteConnection) throws(ObjectGraphError) {
        for (name, value) in storeOptions.pragmas where name.lowercased() != "journal_mode" {
            try db.execute("PRAGMA \(name) = \(value)")
        }
        if readsOnly { return }
        if storeOptions.historyTracking { try SQLiteHistory.prepareTables(db, model: schema.storedEntities) }
        if storeOptions.analyze { try db.execute("ANALYZE") }
        if storeOptions.vacuum { try db.execute("VACUUM") }
    }

    /// A file that exists and is not empty must start with SQLite's header.
    static func checkHeader(_ path: String) throws(ObjectGraphError) {
        let header = headerBytes(path)
        if header.isEmpty { return }
        if header != Array("SQLite format 3\0".utf8) {
            throw ObjectGraphError(
                code: ErrorCode.storeInvalidType,
                message: "'\(path)' is not a store: the file is not an SQLite database",
                userInfo: [(ErrorUserInfoKey.filePath, path)],
                details: [SQLiteConnection.sqliteError(code: SQLITE_NOTADB, message: "file is not a database")])
        }
    }

    /// The first 16 bytes of the file at `path` (fewer for a shorter file, none when it is
    /// missing), read through SQLite's own file layer. Never with a descriptor of ours:
    /// closing any descriptor of a file drops every POSIX lock the process holds on it,
    /// the locks of this process's open SQLite connections included, after which another
    /// process may checkpoint and reset the WAL under them. SQLite keeps such descriptors
    /// open until its connections let go of the file.
    static func headerBytes(_ path: String) -> [UInt8] {
        var st = stat()
        guard stat(path, &st) == 0, st.st_size > 0 else { return [] }
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else { return [] }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            let read = file.pointee.pMethods?.pointee.xRead
        else { return [] }
        let count = Int(min(st.st_size, 16))
        var buffer = [UInt8](repeating: 0, count: count)
        let rc = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(count), 0) }
        return rc == SQLITE_OK ? buffer : []
    }

    /// SQLite errors met while opening become store errors that say what the file is.
    static func describe(_ error: ObjectGraphError, path: String) -> ObjectGraphError {
        guard error.domain == ObjectGraphError.sqliteDomain else { return error }
        let primary = Int32(error.code & 0xFF)
        if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT {
            return ObjectGraphError(
                code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: \(error.message)",
                userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
        }
        return ObjectGraphError(
            code: ErrorCode.storeOpen, message: "cannot open the store '\(path)': \(error.message)",
            userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
    }
}
