import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite store, in the layout of Apple's Core Data SQLite stores (DESIGN §4).
public final class SQLiteStore: PersistentStore, @unchecked Sendable {
    public let type = StoreType.sqlite
    public private(set) var path: String
    public private(set) var identifier: String = ""
    public private(set) var metadata: [String: PropertyListValue] = [:]
    public let configurationName: String?
    public let options: [String: PropertyListValue]
    let storeOptions: StoreOptions
    let setup: StoreSetup
    let schema: SQLiteSchema
    let model: ManagedObjectModel
    private var connection: SQLiteConnection?
    /// Set when the metadata changed in memory (setMetadata, hashes of a store opened with
    /// versioning ignored); written in the next save's transaction.
    private var metadataNeedsWrite = false
    /// The store lacks tables or columns the model needs and versioning is ignored: they
    /// are added when the store opens for writing.
    private var schemaNeedsAdditions = false
    /// Per entity, its INSERT and UPDATE (built once).
    var plans: [ObjectIdentifier: WritePlan] = [:]
    /// Rows written in the open save whose destination-entity columns need filling.
    var touched: [(Int, Int64)] = []

    /// Opens the store at `path`, creating it when the file is missing or empty.
    public convenience init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        try self.init(setup: StoreSetup(path: path, model: model))
    }

    /// Opens or creates the store `setup` describes: only its configuration's tables, its
    /// options applied (journal mode and other pragmas, busy timeout, ANALYZE, VACUUM).
    public init(setup: StoreSetup) throws(ObjectGraphError) {
        self.path = setup.path
        self.model = setup.model
        self.configurationName = setup.configurationName
        self.options = setup.options
        self.storeOptions = try StoreOptions(setup.options)
        self.setup = setup
        self.schema = try SQLiteSchema(model: setup.model, entities: setup.entities)
        self.connection = try open(at: setup.path, creating: true)
    }

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
    private func open(at path: String, creating: Bool, expecting identity: String? = nil) throws(ObjectGraphError) -> SQLiteConnection {
        try Self.checkHeader(path)
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
                guard error.domain == ObjectGraphError.sqliteDomain else { throw Self.describe(error, path: path) }
                let code = Int32(error.code)
                if code == SQLITE_READONLY | (3 << 8) { break }  // SQLITE_READONLY_ROLLBACK: a hot journal
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
        let connection = try SQLiteConnection(path: path, readOnly: readOnly)
        defer { connection.close() }
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

    /// How long this store waits for another connection's lock before 134090, in seconds:
    /// `NSPersistentStoreTimeoutOption` when given (0: not at all), else
    /// `StoreOptions.defaultTimeout`.
    public var busyTimeout: Double { storeOptions.effectiveTimeout }

    private func tableNames(_ db: SQLiteConnection) throws(ObjectGraphError) -> Set<String> {
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
    private func applyOptions(_ db: SQLiteConnection) throws(ObjectGraphError) {
        for (name, value) in storeOptions.pragmas where name.lowercased() != "journal_mode" {
            try db.execute("PRAGMA \(name) = \(value)")
        }
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

    public func close() {
        connection?.close()
        connection = nil
    }

    func open() throws(ObjectGraphError) -> SQLiteConnection {
        guard let connection else {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(path)' is closed")
        }
        return connection
    }

    // MARK: Creating and checking

    /// Creates the store's tables and metadata if the file has none once this connection
    /// holds the write lock; false (nothing written) when another connection created
    /// them first.
    private func createIfEmpty(_ db: SQLiteConnection) throws(ObjectGraphError) -> Bool {
        try db.execute("BEGIN IMMEDIATE")
        do throws(ObjectGraphError) {
            guard try tableNames(db).isEmpty else {
                try db.execute("ROLLBACK")
                return false
            }
            let newIdentifier = setup.identifier ?? UUID().uuidString
            var newMetadata = setup.initialMetadata
            for (key, value) in [
                StoreMetadataKey.storeType: PropertyListValue.string(StoreType.sqlite),
                StoreMetadataKey.storeUUID: .string(newIdentifier),
                StoreMetadataKey.modelVersionHashes: .dictionary(setup.versionHashes),
                StoreMetadataKey.modelVersionIdentifiers: .array(model.versionIdentifiers.map { .string($0) }),
                StoreMetadataKey.modelVersionHashesVersion: .integer(3),
                StoreMetadataKey.persistenceFrameworkVersion: .integer(1),
                StoreMetadataKey.autoVacuumLevel: .string("2"),
            ] { newMetadata[key] = value }
            for statement in schema.createStatements { try db.execute(statement) }
            let insertKey = try db.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            for (number, entity) in schema.entityByNumber.sorted(by: { $0.key < $1.key }) {
                db.bind(insertKey, 1, Int64(number))
                db.bind(insertKey, 2, text: entity.name)
                db.bind(insertKey, 3, Int64(entity.superentity.map { schema.mapping($0).number } ?? 0))
                try db.run(insertKey)
            }
            let insertMeta = try db.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            db.bind(insertMeta, 1, text: newIdentifier)
            db.bind(insertMeta, 2, bytes: BinaryPropertyList.encode(.dictionary(newMetadata)))
            try db.run(insertMeta)
            try Self.writeModelCache(model, db: db)
            try db.execute("COMMIT")
            (identifier, metadata) = (newIdentifier, newMetadata)
            return true
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    private func readMetadata(_ db: SQLiteConnection, path: String) throws(ObjectGraphError) {
        let s = try db.prepare("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        defer { sqlite3_reset(s) }
        let rc = sqlite3_step(s)
        guard rc == SQLITE_ROW else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: Z_METADATA is empty")
        }
        let uuid = sqlite3_column_text(s, 0).map { String(cString: $0) } ?? ""
        let count = Int(sqlite3_column_bytes(s, 1))
        let bytes = count > 0 ? Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(s, 1), count: count)) : []
        let plist: PropertyListValue
        do { plist = try BinaryPropertyList.decode(bytes) } catch {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: its metadata cannot be read (\(error))")
        }
        guard case .dictionary(let dict) = plist else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: its metadata is not a dictionary")
        }
        metadata = dict
        identifier = dict[StoreMetadataKey.storeUUID]?.stringValue ?? uuid
    }

    /// The configuration's entities must have exactly the hashes the store recorded
    /// (§2.20); with versioning ignored, the hashes are brought up to date at the next save.
    private func checkCompatible() throws(ObjectGraphError) {
        let stored = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue ?? [:]
        var current: [String: [UInt8]] = [:]
        for e in setup.entities { current[e.name] = e.versionHash }
        if storeOptions.ignoreVersioning {
            if stored != setup.versionHashes {
                metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(setup.versionHashes)
                metadataNeedsWrite = true
            }
            return
        }
        func incompatible(_ entity: String, _ why: String) -> ObjectGraphError {
            ObjectGraphError(
                code: ErrorCode.storeIncompatibleVersionHash,
                message: "the model used to open the store '\(path)' is incompatible with the one used to create it: entity '\(entity)' \(why)",
                userInfo: [(ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.filePath, path)])
        }
        for name in current.keys.sorted() {
            guard let hash = stored[name] else { throw incompatible(name, "is not in the store") }
            if hash.dataValue != current[name] { throw incompatible(name, "differs from the version that wrote the store") }
        }
        for name in stored.keys.sorted() where current[name] == nil {
            throw incompatible(name, "is in the store but not in the model")
        }
    }

    /// A damaged file is refused before anything is written to it (`PRAGMA quick_check`:
    /// every page is read once, without the slower index cross-checks).
    private func checkIntegrity(_ db: SQLiteConnection) throws(ObjectGraphError) {
        let result = try db.strings("PRAGMA quick_check(1)")
        guard result == ["ok"] else {
            throw ObjectGraphError(
                code: ErrorCode.storeInvalidType,
                message: "'\(path)' is not a valid store: the database file is damaged (\(result.first ?? "quick_check failed"))",
                userInfo: [(ErrorUserInfoKey.filePath, path)],
                details: [SQLiteConnection.sqliteError(code: SQLITE_CORRUPT, message: result.first ?? "database disk image is malformed")])
        }
    }

    /// Every table and column the model needs must be there (extra ones, such as Core
    /// Data's history tables and Z_MODELCACHE, are left alone).
    private func checkTables(_ db: SQLiteConnection, _ tables: Set<String>) throws(ObjectGraphError) {
        var existing: [String: Set<String>] = [:]
        let names = schema.tables.filter { schema.isStored($0.root) }.map(\.name) + schema.joinTables.filter { schema.isStored($0) }.map(\.name)
        for name in names where tables.contains(name) {
            existing[name] = try columnNames(db, table: name)
        }
        if let (table, column) = schema.missing(in: existing) {
            // With versioning ignored, a writable store gets what it lacks when it opens
            // (`addMissingSchema`): the new columns read as nil.
            if storeOptions.ignoreVersioning && !storeOptions.readOnly {
                schemaNeedsAdditions = true
                return
            }
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleSchema,
                message: column.map { "the store '\(path)' has no column \($0) in table \(table)" } ?? "the store '\(path)' has no table \(table)",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
    }

    /// Adds the tables and columns the model needs and the store lacks, in one
    /// transaction (a store opened with versioning ignored): they read as nil.
    private func addMissingSchema(_ db: SQLiteConnection) throws(ObjectGraphError) {
        try db.execute("BEGIN IMMEDIATE")
        do throws(ObjectGraphError) {
            let tables = try tableNames(db)
            let names = schema.tables.filter { schema.isStored($0.root) }.map(\.name) + schema.joinTables.filter { schema.isStored($0) }.map(\.name)
            for name in names where !tables.contains(name) {
                for statement in schema.createStatements where statement.hasPrefix("CREATE TABLE \(sqlIdentifier(name)) ") { try db.execute(statement) }
            }
            for table in schema.tables where schema.isStored(table.root) {
                let have = try columnNames(db, table: table.name)
                for column in table.columns where !have.contains(column.name) {
                    try db.execute("ALTER TABLE \(table.sql) ADD COLUMN \(column.sql) \(column.declaredType)")
                }
            }
            try db.execute("COMMIT")
            schemaNeedsAdditions = false
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The columns of `table` as SQLite lists them (the name bound, never spliced).
    private func columnNames(_ db: SQLiteConnection, table: String) throws(ObjectGraphError) -> Set<String> {
        let s = try db.prepare("SELECT name FROM pragma_table_info(?)")
        defer { sqlite3_reset(s) }
        db.bind(s, 1, text: table)
        var out = Set<String>()
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw db.lastError(rc) }
            out.insert(sqlite3_column_text(s, 0).map { String(cString: $0) } ?? "")
        }
        return out
    }

    // MARK: Reading

    public func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        let db = try open()
        guard schema.isStored(entity) else { return StoreFetchResult(rows: [], isExact: true) }
        let table = schema.table(entity)
        let select = selectStatement(request, entity: entity)
        let s = try db.prepare(select.sql)
        try bind(select.query.bindings, to: s, db)
        var rows = select.identitiesOnly ? try readIdentities(s, table: table, db: db) : try readRows(s, table: table, db: db)
        if select.query.ordersByKeyAfterReading { RowSnapshot.sortByPrimaryKey(&rows) }
        // Identities only are read when SQL answers alone, so they are exact too.
        return StoreFetchResult(rows: rows, isExact: select.query.isExact, hasValues: !select.identitiesOnly)
    }

    /// The SELECT a fetch runs: identities only when SQL answers alone and the values are
    /// not wanted yet; the window in SQL when SQL answers alone.
    private func selectStatement(_ request: FetchRequest, entity: EntityDescription) -> (sql: String, query: SelectQuery, identitiesOnly: Bool) {
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        let identitiesOnly = query.isExact && (!request.includesPropertyValues || request.fetchBatchSize > 0)
        let columns = identitiesOnly ? "t0.Z_PK, t0.Z_ENT, t0.Z_OPT" : schema.selectList(table, alias: "t0")
        var sql = "SELECT \(columns) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)"
        sql += query.orderClause
        if query.isExact && (request.fetchLimit > 0 || request.fetchOffset > 0) {
            sql += " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(request.fetchOffset)"
        }
        return (sql, query, identitiesOnly)
    }

    /// The statement a fetch runs, its bindings, whether its rows are then filtered or
    /// sorted in memory, and SQLite's plan for it (`EXPLAIN QUERY PLAN`).
    public func explainFetch(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchExplanation {
        let db = try open()
        guard schema.isStored(entity) else {
            return StoreFetchExplanation(sql: nil, bindings: [], filteredInMemory: false, queryPlan: ["no table: this store's configuration does not hold '\(entity.name)'"])
        }
        let select = selectStatement(request, entity: entity)
        let s = try db.prepare("EXPLAIN QUERY PLAN " + select.sql)
        defer { sqlite3_reset(s) }
        try bind(select.query.bindings, to: s, db)
        var plan: [String] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw db.lastError(rc) }
            plan.append(sqlite3_column_text(s, 3).map { String(cString: $0) } ?? "")
        }
        return StoreFetchExplanation(sql: select.sql, bindings: select.query.bindings, filteredInMemory: !select.query.isExact, queryPlan: plan)
    }

    /// The entity a row's `Z_ENT` names; a number not of this table's hierarchy is a damaged store.
    private func rowEntity(_ number: Int, in table: SQLiteSchema.Table) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = schema.entityByNumber[number], schema.mapping(entity).tableIndex == schema.mapping(table.root).tableIndex else {
            throw ObjectGraphError(code: ErrorCode.storeIncompatibleSchema, message: "row of \(table.name) has unknown entity number \(number)")
        }
        return entity
    }

    /// Rows of `SELECT Z_PK, Z_ENT, Z_OPT`: snapshots with no values.
    private func readIdentities(_ s: OpaquePointer, table: SQLiteSchema.Table, db: SQLiteConnection) throws(ObjectGraphError) -> [RowSnapshot] {
        defer { sqlite3_reset(s) }
        var rows: [RowSnapshot] = []
        // No number yet: the first row always looks its entity up, whatever its Z_ENT (a damaged file may hold any).
        var lastNumber: Int? = nil
        var entity: EntityDescription? = nil
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw db.lastError(rc) }
            let number = Int(sqlite3_column_int64(s, 1))
            if number != lastNumber {
                entity = try rowEntity(number, in: table)
                lastNumber = number
            }
            rows.append(RowSnapshot.make(entity: entity!, primaryKey: sqlite3_column_int64(s, 0), version: sqlite3_column_int64(s, 2), values: []))
        }
        return rows
    }

    public func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        let db = try open()
        guard schema.isStored(entity) else { return 0 }
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        guard query.predicateIsExact else { return nil }
        let s = try db.prepare("SELECT COUNT(*) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)")
        defer { sqlite3_reset(s) }
        try bind(query.bindings, to: s, db)
        let rc = sqlite3_step(s)
        guard rc == SQLITE_ROW else { throw db.lastError(rc) }
        var n = Int(sqlite3_column_int64(s, 0)) - request.fetchOffset
        n = max(0, n)
        return request.fetchLimit > 0 ? min(n, request.fetchLimit) : n
    }

    /// The SELECT of a fetch with every value column, its bindings, and whether SQL alone
    /// answers it (for tests).
    func explain(_ request: FetchRequest, entity: EntityDescription) -> (sql: String, bindings: [AttributeValue], isExact: Bool) {
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        let sql = "SELECT \(schema.selectList(table, alias: "t0")) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)\(query.orderClause)"
        return (sql, query.bindings, query.isExact)
    }

    /// The parts of a SELECT for a request: joins, WHERE (entity and predicate), ORDER BY,
    /// bindings, and whether SQL expresses the predicate and the order exactly.
    private struct SelectQuery {
        var joins = ""
        var whereClause = ""
        var orderClause = ""
        var bindings: [AttributeValue] = []
        var predicateIsExact = true
        var orderIsExact = true
        var isExact: Bool { predicateIsExact && orderIsExact }
        /// No ORDER BY: the rows are put in primary-key order once read (see `selectQuery`).
        var ordersByKeyAfterReading = false
    }

    private func selectQuery(_ request: FetchRequest, entity: EntityDescription) -> SelectQuery {
        var query = SelectQuery()
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: identifier)
        let scope = translator.makeScope(entity)
        var conditions: [String] = []
        if let condition = schema.entityCondition(entity, includesSubentities: request.includesSubentities) { conditions.append(condition) }
        if let predicate = request.predicate {
            let (sql, exact) = translator.whereCondition(predicate, scope)
            if let sql { conditions.append("(\(sql))") }
            query.predicateIsExact = exact
        }
        var terms: [String] = []
        for key in request.sortKeys {
            guard let term = translator.orderTerm(key, scope) else { query.orderIsExact = false; break }
            terms.append(term)
        }
        if terms.isEmpty && query.orderIsExact && request.fetchLimit == 0 && request.fetchOffset == 0 {
            // Unsorted and unwindowed: results still come in primary-key order, but sorted
            // after reading. SQLite's ORDER BY on rows found through an index copies each
            // whole row into its sorter (about a quarter of a 10,000-row indexed fetch), and a
            // table scan or an index following the keys needs no sorting at all.
            query.ordersByKeyAfterReading = true
        } else if query.orderIsExact {
            terms.append("t0.Z_PK ASC")
            query.orderClause = " ORDER BY " + terms.joined(separator: ", ")
        }
        query.joins = scope.joins.joined(separator: " ")
        if !conditions.isEmpty { query.whereClause = " WHERE " + conditions.joined(separator: " AND ") }
        query.bindings = translator.bindings
        return query
    }

    private func bind(_ values: [AttributeValue], to s: OpaquePointer, _ db: SQLiteConnection) throws(ObjectGraphError) {
        for (i, v) in values.enumerated() {
            let index = Int32(i + 1)
            switch v {
            case .integer(let n): db.bind(s, index, n)
            case .double(let d): sqlite3_bind_double(s, index, d)
            case .string(let t): db.bind(s, index, text: t)
            case .null: sqlite3_bind_null(s, index)
            default: throw .invalidArgument("cannot bind a \(v.kindName) in a query")
            }
        }
    }

    public func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        let db = try open()
        guard schema.isStored(entity) else { return nil }
        let table = schema.table(entity)
        let s = try db.prepare("SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE Z_PK = ?")
        db.bind(s, 1, primaryKey)
        return try readRows(s, table: table, db: db).first
    }

    public func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        guard let owner = inverse.entity, schema.isStored(owner) else { return [] }
        if inverse.isToMany, let destination = inverse.destinationEntity, !schema.isStored(destination) { return [] }
        let mapping = schema.mapping(owner)
        let table = schema.tables[mapping.tableIndex]
        // The order of the relationship being read (the inverse's inverse), when ordered.
        var forwardOrder: String?
        if let forward = inverse.inverseRelationship, forward.isOrdered, let storage = schema.toMany[ObjectIdentifier(forward)] {
            switch storage {
            case .inverseColumn(_, _, let o): forwardOrder = o.map { "t0." + sqlIdentifier($0) }
            case .join(_, _, _, let o): forwardOrder = o.map { "j." + sqlIdentifier($0) }
            }
        }
        let order = (forwardOrder.map { [$0] } ?? []) + ["t0.Z_PK"]
        let sql: String
        if inverse.isToMany {
            guard case .join(let join, let ownerColumn, let memberColumn, _)? = schema.toMany[ObjectIdentifier(inverse)] else { return [] }
            sql = "SELECT \(schema.selectList(table, alias: "t0")) FROM \(table.sql) t0 JOIN \(sqlIdentifier(join)) j ON j.\(sqlIdentifier(ownerColumn)) = t0.Z_PK WHERE j.\(sqlIdentifier(memberColumn)) = ? ORDER BY \(order.joined(separator: ", "))"
        } else {
            // A transient (or otherwise unstored) to-one has no column: nothing points through it.
            let slot = inverse.slot
            guard slot >= 0, slot < mapping.columnBySlot.count, mapping.columnBySlot[slot] >= 0 else { return [] }
            let column = table.columns[mapping.columnBySlot[slot]].sql
            sql = "SELECT \(schema.selectList(table, alias: "t0")) FROM \(table.sql) t0 WHERE t0.\(column) = ? ORDER BY \(order.joined(separator: ", "))"
        }
        let s = try db.prepare(sql)
        db.bind(s, 1, primaryKey)
        return try readRows(s, table: table, db: db)
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        if let inverse = relationship.inverseRelationship { return try fetchRows(pointingAt: primaryKey, through: inverse) }
        guard let destination = relationship.destinationEntity, schema.isStored(destination),
            let source = relationship.entity, schema.isStored(source),
            case .join(let join, let ownerColumn, let memberColumn, let orderColumn)? = schema.toMany[ObjectIdentifier(relationship)]
        else { return [] }
        let table = schema.table(destination)
        let order = (orderColumn.map { ["j." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
        let s = try db.prepare(
            "SELECT \(schema.selectList(table, alias: "t0")) FROM \(table.sql) t0 JOIN \(sqlIdentifier(join)) j ON j.\(sqlIdentifier(memberColumn)) = t0.Z_PK WHERE j.\(sqlIdentifier(ownerColumn)) = ? ORDER BY \(order.joined(separator: ", "))")
        db.bind(s, 1, primaryKey)
        return try readRows(s, table: table, db: db)
    }

    /// Reads every row of a prepared SELECT of `selectList(table)` into snapshots; with
    /// `extra`, also that column of each row (which must be an integer) into `extraValues`.
    func readRows(_ s: OpaquePointer, table: SQLiteSchema.Table, db: SQLiteConnection) throws(ObjectGraphError) -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        try readRows(s, table: table, db: db, into: &rows)
        return rows
    }

    /// Appends the rows of `s` to `rows` (reads in chunks add to one array, rather than
    /// concatenating arrays: a copy retains every row and the old array releases them);
    /// with `extra`, that column's integer per row goes to `extraValues`.
    func readRows(_ s: OpaquePointer, table: SQLiteSchema.Table, db: SQLiteConnection, into rows: inout [RowSnapshot],
                  extra: Int32? = nil, extraValues: UnsafeMutablePointer<[Int64]>? = nil) throws(ObjectGraphError) {
        defer { sqlite3_reset(s) }
        // Per concrete entity, the reader of each slot: computed once per query.
        var readers: [Int: (EntityDescription, RowCellTable, [(slot: Int, column: Int32, kind: ColumnKind)])] = [:]
        // The current run's entity and reader, in plain variables that change only when the
        // entity does: rows of one entity come in runs, and taking them out of a tuple per
        // row retained and released its parts.
        var lastNumber: Int? = nil
        var entity: EntityDescription? = nil
        var cells = RowCells.narrow(0).table
        var list: [(slot: Int, column: Int32, kind: ColumnKind)] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw db.lastError(rc) }
            let number = Int(sqlite3_column_int64(s, 1))
            if let extra { extraValues?.pointee.append(sqlite3_column_int64(s, extra)) }
            if number != lastNumber {
                if readers[number] == nil {
                    let e = try rowEntity(number, in: table)
                    let mapping = schema.mapping(e)
                    var reads: [(Int, Int32, ColumnKind)] = []
                    for (slot, column) in mapping.columnBySlot.enumerated() where column >= 0 {
                        reads.append((slot, Int32(column + 3), ColumnKind(table.columns[column].property)))
                    }
                    // The row layout, read once: `entity.layout` costs a retain per row.
                    readers[number] = (e, e.layout.cells.table, reads)
                }
                (entity, cells, list) = readers[number]!
                lastNumber = number
            }
            rows.append(Self.readRow(s, entity.unsafelyUnwrapped, cells, list))
        }
    }

    /// The current row of `s` as a snapshot, its values read straight into it.
    @inline(__always)
    private static func readRow(_ s: OpaquePointer, _ entity: EntityDescription, _ cells: RowCellTable, _ list: [(slot: Int, column: Int32, kind: ColumnKind)]) -> RowSnapshot {
        return RowSnapshot.make(entity: entity, primaryKey: sqlite3_column_int64(s, 0), version: sqlite3_column_int64(s, 2), cells: cells) { row in
            for (slot, column, kind) in list { read(s, column, kind, into: row, slot) }
        }
    }

    /// Reads column `column` into `slot` of a row being made; numbers go straight into their cells.
    @inline(__always)
    private static func read(_ s: OpaquePointer, _ column: Int32, _ kind: ColumnKind, into row: RowCellWriter, _ slot: Int) {
        switch sqlite3_column_type(s, column) {
        case SQLITE_NULL: return
        case SQLITE_INTEGER where kind == .integer: row.setInteger(slot, sqlite3_column_int64(s, column))
        case SQLITE_FLOAT where kind == .double: row.setDouble(slot, sqlite3_column_double(s, column))
        default: row.set(slot, read(s, column, kind))
        }
    }

    enum ColumnKind {
        case integer, boolean, double, string, date, data, decimal, uuid, uri

        init(_ property: PropertyDescription) {
            guard let a = property as? AttributeDescription else { self = .integer; return }
            switch a.attributeType {
            case .integer16, .integer32, .integer64: self = .integer
            case .boolean: self = .boolean
            case .double, .float: self = .double
            case .string: self = .string
            case .date: self = .date
            case .decimal: self = .decimal
            case .uuid: self = .uuid
            case .uri: self = .uri
            case .binaryData, .transformable, .undefined, .objectID: self = .data
            }
        }
    }

    static func read(_ s: OpaquePointer, _ column: Int32, _ kind: ColumnKind) -> AttributeValue {
        if sqlite3_column_type(s, column) == SQLITE_NULL { return .null }
        switch kind {
        case .integer: return .integer(sqlite3_column_int64(s, column))
        case .boolean: return .boolean(sqlite3_column_int64(s, column) != 0)
        case .double: return .double(sqlite3_column_double(s, column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(s, column)))
        case .string: return .string(text(s, column))
        case .uri:
            let t = text(s, column)
            return ValueText.isURI(t) ? .uri(t) : .null
        case .decimal: return ValueText.decimal(text(s, column)).map { .decimal($0) } ?? .null
        case .data: return .data(Data(blob(s, column)))
        case .uuid:
            let b = blob(s, column)
            guard b.count == 16 else { return .null }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
    }

    private static func text(_ s: OpaquePointer, _ column: Int32) -> String {
        guard let p = sqlite3_column_text(s, column) else { return "" }
        let n = Int(sqlite3_column_bytes(s, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    private static func blob(_ s: OpaquePointer, _ column: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(s, column))
        guard n > 0, let p = sqlite3_column_blob(s, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    // MARK: Writing

    public func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let db = try open()
        do throws(ObjectGraphError) { try db.execute("BEGIN IMMEDIATE") } catch { throw timeoutOr(error) }
        do throws(ObjectGraphError) {
            touched.removeAll()
            try body(SQLiteSaveTransaction(store: self, db: db))
            try fillDestinationEntityColumns(db)
            if metadataNeedsWrite { try writeMetadata(db) }
            try db.execute("COMMIT")
            metadataNeedsWrite = false
        } catch {
            try? db.execute("ROLLBACK")
            if error.domain == ObjectGraphError.sqliteDomain, Int32(error.code & 0xFF) == SQLITE_BUSY { throw timeoutOr(error) }
            if error.domain == ObjectGraphError.sqliteDomain {
                throw ObjectGraphError(code: ErrorCode.storeSave, message: "the store '\(path)' could not save: \(error.message)", details: [error])
            }
            throw error
        }
    }
}

// MARK: Write plans

extension SQLiteStore {
    /// The INSERT and UPDATE of one entity: which slots they bind, and the order columns
    /// they maintain (a row that joins an ordered to-many goes last). A class: a save hands
    /// the plan out once per row, and a struct's copy retained each of its arrays and strings.
    final class WritePlan {
        let number: Int
        let tableIndex: Int
        let slots: [Int]
        let insertSQL: String
        let updateSQL: String
        let needsEntityFixup: Bool

        init(number: Int, tableIndex: Int, slots: [Int], insertSQL: String, updateSQL: String, needsEntityFixup: Bool) {
            self.number = number
            self.tableIndex = tableIndex
            self.slots = slots
            self.insertSQL = insertSQL
            self.updateSQL = updateSQL
            self.needsEntityFixup = needsEntityFixup
        }
    }

    func writePlan(_ entity: EntityDescription) -> WritePlan {
        if let plan = plans[ObjectIdentifier(entity)] { return plan }
        let mapping = schema.mapping(entity)
        let table = schema.tables[mapping.tableIndex]
        // Derived attributes are computed by the store (Apple's triggers), never written.
        let slots = mapping.columnBySlot.enumerated().filter { $0.element >= 0 }.map(\.offset).filter { slot in
            (entity.properties[slot] as? AttributeDescription)?.derivationExpression == nil
        }
        var names = ["Z_PK", "Z_ENT", "Z_OPT"] + slots.map { table.columns[mapping.columnBySlot[$0]].sql }
        var values = (1...names.count).map { "?\($0)" }
        var sets = ["Z_OPT = ?1"] + slots.enumerated().map { "\(table.columns[mapping.columnBySlot[$0.element]].sql) = ?\($0.offset + 2)" }
        var fixup = false
        for column in table.columns {
            switch column.role {
            case .value: break
            case .destinationEntity(let r):
                if let owner = r.entity, entity.isKind(of: owner) { fixup = true }
            case .order(let ordered):
                guard let r = ordered.inverseRelationship, let owner = r.entity, entity.isKind(of: owner),
                    let position = slots.firstIndex(of: r.slot)
                else { continue }
                let fk = table.columns[mapping.columnBySlot[r.slot]].sql
                let name = column.sql, tableName = table.sql
                func last(_ n: Int) -> String { "(SELECT IFNULL(MAX(\(name)), 0) + 1 FROM \(tableName) WHERE \(fk) = ?\(n))" }
                names.append(column.sql)
                let i = position + 4, u = position + 2
                values.append("CASE WHEN ?\(i) IS NULL THEN NULL ELSE \(last(i)) END")
                sets.append(
                    "\(column.sql) = CASE WHEN ?\(u) IS NULL THEN NULL WHEN \(fk) IS ?\(u) THEN \(column.sql) ELSE \(last(u)) END")
            }
        }
        let plan = WritePlan(
            number: mapping.number, tableIndex: mapping.tableIndex, slots: slots,
            insertSQL: "INSERT INTO \(table.sql) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
            // The last parameter is the version the row must still have (Core Data's optimistic
            // locking in the UPDATE itself); left NULL, the update is unconditional.
            updateSQL: "UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?\(slots.count + 2)"
                + " AND (?\(slots.count + 3) IS NULL OR IFNULL(Z_OPT, 0) = ?\(slots.count + 3))",
            needsEntityFixup: fixup)
        plans[ObjectIdentifier(entity)] = plan
        return plan
    }

    /// Sets each `Z<n>_<NAME>` column of the rows this save wrote to the entity number of
    /// the row its to-one points at.
    func fillDestinationEntityColumns(_ db: SQLiteConnection) throws(ObjectGraphError) {
        guard !touched.isEmpty else { return }
        var statements: [Int: OpaquePointer] = [:]
        for (tableIndex, primaryKey) in touched {
            if statements[tableIndex] == nil {
                let table = schema.tables[tableIndex]
                var sets: [String] = []
                for column in table.columns {
                    guard case .destinationEntity(let r) = column.role, let destination = r.destinationEntity, schema.isStored(destination) else { continue }
                    let fk = sqlIdentifier("Z" + r.name.uppercased())
                    let fkColumn = table.columns.first { $0.isValue && $0.property === r }?.sql ?? fk
                    sets.append("\(column.sql) = (SELECT d.Z_ENT FROM \(schema.table(destination).sql) d WHERE d.Z_PK = \(table.sql).\(fkColumn))")
                }
                if sets.isEmpty { continue }
                statements[tableIndex] = try db.prepare("UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
            }
            guard let s = statements[tableIndex] else { continue }
            db.bind(s, 1, primaryKey)
            try db.run(s)
        }
        touched.removeAll()
    }
}

extension SQLiteStore {
    /// The size of the file at `path`, or nil when there is none (stat opens no descriptor).
    static func fileSize(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int(st.st_size)
    }
}

// MARK: Timeouts, metadata, moving, key counters

extension SQLiteStore: KeyCounterReading {
    /// A lock held by another connection past the busy timeout is 134090
    /// (`NSPersistentStoreTimeoutError`); other errors pass through.
    func timeoutOr(_ error: ObjectGraphError) -> ObjectGraphError {
        guard error.domain == ObjectGraphError.sqliteDomain, Int32(error.code & 0xFF) == SQLITE_BUSY else { return error }
        let waited = storeOptions.timeout.map { "\($0) s" } ?? "\(busyTimeout) s (the default without NSPersistentStoreTimeoutOption)"
        return ObjectGraphError(
            code: ErrorCode.storeTimeout,
            message: "the store '\(path)' is locked by another connection; waited \(waited)",
            userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
    }

    /// Keeps `metadata` (with this store's type and UUID) for the next save.
    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(type)
        new[StoreMetadataKey.storeUUID] = .string(identifier)
        self.metadata = new
        metadataNeedsWrite = true
    }

    func writeMetadata(_ db: SQLiteConnection) throws(ObjectGraphError) {
        let s = try db.prepare("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?")
        db.bind(s, 1, text: identifier)
        db.bind(s, 2, bytes: BinaryPropertyList.encode(.dictionary(metadata)))
        try db.run(s)
    }

    /// Moves the store to the file at `path` (`reopen(at:)`).
    public func move(to path: String) throws(ObjectGraphError) {
        guard !path.isEmpty else { throw .invalidArgument("a store's new path cannot be empty") }
        try reopen(at: path)
    }

    /// Closes the connection and opens the store file at `newPath` instead
    /// (`setURL:forPersistentStore:`). The file must exist and be this store (same UUID);
    /// on failure the store stays open where it was.
    func reopen(at newPath: String) throws(ObjectGraphError) {
        let savedMetadata = metadata, savedIdentifier = identifier, pendingWrite = metadataNeedsWrite
        let fresh: SQLiteConnection
        do throws(ObjectGraphError) {
            fresh = try open(at: newPath, creating: false, expecting: savedIdentifier)
        } catch {
            (metadata, identifier, metadataNeedsWrite) = (savedMetadata, savedIdentifier, pendingWrite)
            throw error
        }
        if pendingWrite { (metadata, metadataNeedsWrite) = (savedMetadata, true) }
        connection?.close()
        connection = fresh
        path = newPath
    }

    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64 {
        let db = try open()
        let s = try db.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        defer { sqlite3_reset(s) }
        db.bind(s, 1, Int64(schema.number(root.rootEntity)))
        return sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0
    }
}
