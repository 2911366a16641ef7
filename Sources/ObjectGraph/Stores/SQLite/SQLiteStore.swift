import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite store, in the layout of Apple's Core Data SQLite stores (DESIGN §4).
public final class SQLiteStore: PersistentStore, @unchecked Sendable {
    public let type = StoreType.sqlite
    public private(set) var path: String
    public internal(set) var identifier: String = ""
    public internal(set) var metadata: [String: PropertyListValue] = [:]
    public let configurationName: String?
    public let options: [String: PropertyListValue]
    let storeOptions: StoreOptions
    let setup: StoreSetup
    /// The model's tables and columns, with join tables as the store's file names them
    /// once it is checked (`adoptJoinTables`).
    var schema: SQLiteSchema
    let model: ManagedObjectModel
    private var connection: SQLiteConnection?
    /// Set when the metadata changed in memory (setMetadata, hashes of a store opened with
    /// versioning ignored); written in the next save's transaction.
    var metadataNeedsWrite = false
    /// The store lacks tables or columns the model needs and versioning is ignored: they
    /// are added when the store opens for writing.
    var schemaNeedsAdditions = false
    /// The file is open read-only (`NSReadOnlyPersistentStoreOption`): nothing is written to
    /// it or beside it. Cleared when a save reopens it for writing, which the coordinator
    /// allows only once the store is made writable (`setReadOnly(false, for:)`).
    var readsOnly: Bool
    /// Per entity, its INSERT and UPDATE (built once).
    var plans: [ObjectIdentifier: WritePlan] = [:]
    /// The SELECT of the rows holding a uniqueness constraint's values, per entity and constraint.
    var constraintQueries: [SQLiteSaveTransaction.ConstraintQueryKey: String] = [:]
    /// Rows written in the open save whose destination-entity columns need filling.
    var touched: [(Int, Int64)] = []
    /// Rows written in the open save whose derived attributes need computing, with the
    /// UPDATE that computes them (`SQLiteDerivations.swift`).
    var derived: [(sql: String, primaryKey: Int64)] = []

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
        self.readsOnly = storeOptions.readOnly
        self.schema = try SQLiteSchema(model: setup.model, entities: setup.entities)
        try schema.checkDerivations()
        self.connection = try open(at: setup.path, creating: true)
    }

    /// How long this store waits for another connection's lock before 134090, in seconds:
    /// `NSPersistentStoreTimeoutOption` when given (0: not at all), else
    /// `StoreOptions.defaultTimeout`.
    public var busyTimeout: Double { storeOptions.effectiveTimeout }

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

    // MARK: Writing

    public func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        if readsOnly { try reopenForWriting() }
        let db = try open()
        do throws(ObjectGraphError) { try db.execute("BEGIN IMMEDIATE") } catch { throw timeoutOr(error) }
        do throws(ObjectGraphError) {
            touched.removeAll()
            derived.removeAll()
            try body(SQLiteSaveTransaction(store: self, db: db))
            try fillDestinationEntityColumns(db)
            try computeDerivedAttributes(db)
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
        s.bind(1, text: identifier)
        s.bind(2, bytes: BinaryPropertyList.encode(.dictionary(metadata)))
        try s.run()
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

    /// A store opened read-only and since made writable: its file is reopened for writing
    /// (and checked again) before the first save; on failure it stays read-only.
    private func reopenForWriting() throws(ObjectGraphError) {
        readsOnly = false
        do throws(ObjectGraphError) { try reopen(at: path) } catch {
            readsOnly = true
            throw error
        }
    }

    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64 {
        let db = try open()
        let s = try db.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        s.bind(1, Int64(schema.number(root.rootEntity)))
        return try s.firstRow { $0.int64(0) } ?? 0
    }
}
