import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A store in a PostgreSQL database, in Core Data's table layout (`PostgreSQLSchema`):
/// every coordinator of every machine that adds the same database and schema shares one
/// object graph (docs/postgres.md).
///
/// Saves are serialised across machines by the row lock of `Z_METADATA`, taken first in
/// each save's transaction (`SELECT … FOR UPDATE`): under READ COMMITTED every statement
/// after it sees every save committed before, so version checks, key counters and
/// uniqueness checks behave as under SQLite's write lock. No advisory lock, no extension.
/// Reads run outside transactions, one statement each. Not thread-safe: the coordinator
/// serialises use, as for the SQLite store.
public final class PostgreSQLStore: PersistentStore, @unchecked Sendable {
    public static let typeName = "PostgreSQL"
    public let type = PostgreSQLStore.typeName
    /// The connection string with its password removed.
    public let path: String
    public internal(set) var identifier: String = ""
    public internal(set) var metadata: [String: PropertyListValue] = [:]
    public let configurationName: String?
    public let options: [String: PropertyListValue]
    let storeOptions: StoreOptions
    let setup: StoreSetup
    let address: PostgreSQLAddress
    var schema: SQLiteSchema
    let model: ManagedObjectModel
    private var connection: PostgreSQLConnection?
    var metadataNeedsWrite = false
    let readsOnly: Bool
    /// Per entity, its INSERT and UPDATE (built once).
    var plans: [ObjectIdentifier: SQLiteStore.WritePlan] = [:]
    /// New rows of the open save, inserted many to a statement.
    let insertBuffer = PostgreSQLInsertBuffer()
    /// Per entity, the type of a NULL bound to each slot's column (`nullTypes`).
    private var nullTypeCache: [ObjectIdentifier: [UInt32]] = [:]
    /// Set once the schema is known to hold the history tables (`hasHistoryTables`).
    var historyTablesSeen = false
    /// The history transaction the open save recorded, told to commit listeners.
    var newestHistoryTransaction: Int64?
    /// Rows written in the open save whose destination-entity columns need filling.
    var touched: [(Int, Int64)] = []
    /// Rows written in the open save whose derived attributes need computing: the UPDATE
    /// that computes them and its parameters (the row's key, then the values the engine
    /// computed as the row was written).
    var derived: [(sql: String, parameters: [PostgreSQLParameter])] = []
    /// Whether the server has `pg_notify`: saves notify listeners of their commits.
    private(set) var notifies = true
    /// The channel every save notifies on commit (LISTEN/NOTIFY): remote change notifications.
    var channel: String { "objectgraph_" + identifier.lowercased().replacing("-", with: "") }

    public init(setup: StoreSetup) throws(ObjectGraphError) {
        self.storeOptions = try StoreOptions(setup.options)
        self.address = try PostgreSQLAddress(setup.path, schema: storeOptions.postgreSQLSchema)
        self.path = address.redacted
        self.model = setup.model
        self.configurationName = setup.configurationName
        self.options = setup.options
        self.setup = setup
        self.readsOnly = storeOptions.readOnly
        self.schema = try SQLiteSchema(model: setup.model, entities: setup.entities)
        try schema.checkDerivations(dialect: .postgreSQL)
        let db = try PostgreSQLConnection(address, lockTimeout: storeOptions.effectiveTimeout)
        do throws(ObjectGraphError) {
            try openOrCreate(db)
        } catch {
            db.close()
            throw error
        }
        connection = db
        if storeOptions.historyTracking && !readsOnly {
            try PostgreSQLHistory.prepareTables(db, model: schema.storedEntities)
            historyTablesSeen = true
        }
        // An engine without NOTIFY (some PostgreSQL-compatible ones) still takes saves.
        notifies = try db.query("SELECT count(*) FROM pg_catalog.pg_proc WHERE proname = 'pg_notify'").int64(0, 0) > 0
    }

    public func close() {
        connection?.close()
        connection = nil
    }

    func open() throws(ObjectGraphError) -> PostgreSQLConnection {
        guard let connection else {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(path)' is closed")
        }
        return connection
    }

    // MARK: Opening

    /// Checks the store in the schema, or creates it when the schema holds no store. Two
    /// processes creating it at once: one wins; the other's transaction fails on the
    /// tables the winner made, and it checks the store instead.
    private func openOrCreate(_ db: PostgreSQLConnection) throws(ObjectGraphError) {
        for _ in 0..<3 {
            let tables = try Self.tableNames(db, schema: address.schema)
            if tables.contains("Z_METADATA") {
                try check(db, tables)
                return
            }
            if !tables.isEmpty {
                throw ObjectGraphError(
                    code: ErrorCode.storeIncompatibleVersionHash,
                    message: "the schema '\(address.schema)' of \(db.location) holds tables but no Core Data store (no Z_METADATA table); give another schema",
                    userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            if readsOnly {
                throw ObjectGraphError(
                    code: ErrorCode.storeOpen, message: "there is no store in the schema '\(address.schema)' of \(db.location) to open read-only",
                    userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            do throws(ObjectGraphError) {
                try create(db)
                return
            } catch {
                // 42P07 duplicate_table, 23505 unique_violation, 42P06 duplicate_schema: another creator won.
                guard let state = PostgreSQLFailure.sqlState(error), ["42P07", "23505", "42P06"].contains(state) else { throw error }
            }
        }
        throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot open the store '\(path)': other connections kept creating and removing it")
    }

    static func tableNames(_ db: PostgreSQLConnection, schema: String) throws(ObjectGraphError) -> Set<String> {
        let rows = try db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = ?", [.text(schema)!])
        return Set((0..<rows.count).map { rows.text($0, 0) })
    }

    private func create(_ db: PostgreSQLConnection) throws(ObjectGraphError) {
        try db.execute("BEGIN")
        do throws(ObjectGraphError) {
            try db.execute("CREATE SCHEMA IF NOT EXISTS \(PostgreSQLSchema.quoted(address.schema))")
            let newIdentifier = setup.identifier ?? UUID().uuidString
            var newMetadata = setup.initialMetadata
            for (key, value) in [
                StoreMetadataKey.storeType: PropertyListValue.string(type),
                StoreMetadataKey.storeUUID: .string(newIdentifier),
                StoreMetadataKey.modelVersionHashes: .dictionary(setup.versionHashes),
                StoreMetadataKey.modelVersionIdentifiers: .array(model.versionIdentifiers.map { .string($0) }),
                StoreMetadataKey.modelVersionHashesVersion: .integer(3),
                StoreMetadataKey.persistenceFrameworkVersion: .integer(1),
            ] { newMetadata[key] = value }
            for statement in PostgreSQLSchema.createStatements(schema) { try db.execute(statement) }
            for (number, entity) in schema.entityByNumber.sorted(by: { $0.key < $1.key }) {
                try db.query(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                    [.integer(Int64(number)), .text(entity.name) ?? .null, .integer(Int64(entity.superentity.map { schema.mapping($0).number } ?? 0))])
            }
            try db.query(
                "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                [.text(newIdentifier)!, .bytes(BinaryPropertyList.encode(.dictionary(newMetadata)))])
            try db.query("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.bytes(Deflate.compress(CompiledModelWriter.write(model)))])
            try db.commit()
            metadata = newMetadata
            identifier = newIdentifier
        } catch {
            if db.isConnected { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    private func check(_ db: PostgreSQLConnection, _ tables: Set<String>) throws(ObjectGraphError) {
        (identifier, metadata) = try Self.readMetadata(db, path: path)
        if try setup.checkVersionHashes(&metadata, ignoringVersioning: storeOptions.ignoreVersioning, path: path) { metadataNeedsWrite = true }
        // Every table and column the model needs, by the names in the database.
        let rows = try db.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?", [.text(address.schema)!])
        var existing: [String: Set<String>] = [:]
        for r in 0..<rows.count { existing[rows.text(r, 0), default: []].insert(rows.text(r, 1)) }
        if schema.joinTables.contains(where: { schema.isStored($0) && !(existing[$0.name]?.isSuperset(of: [$0.sourceColumn, $0.destinationColumn]) ?? false) }) {
            _ = schema.adoptJoinTables(from: existing)
        }
        if let (table, column) = schema.missing(in: existing) {
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleSchema,
                message: column.map { "the store '\(path)' has no column \($0) in table \(table)" } ?? "the store '\(path)' has no table \(table)",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
    }

    /// The UUID and metadata recorded in `Z_METADATA`.
    static func readMetadata(_ db: PostgreSQLConnection, path: String) throws(ObjectGraphError) -> (String, [String: PropertyListValue]) {
        let rows = try db.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        guard rows.count > 0 else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: Z_METADATA is empty")
        }
        guard case .dictionary(var plist)? = try? BinaryPropertyList.decode(rows.bytes(0, 1)) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: its metadata cannot be read")
        }
        let uuid = plist[StoreMetadataKey.storeUUID]?.stringValue ?? rows.text(0, 0)
        plist[StoreMetadataKey.storeUUID] = .string(uuid)
        return (uuid, plist)
    }

    // MARK: Metadata

    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(type)
        new[StoreMetadataKey.storeUUID] = .string(identifier)
        self.metadata = new
        metadataNeedsWrite = true
    }

    static func writeMetadata(_ metadata: [String: PropertyListValue], uuid: String, _ db: PostgreSQLConnection) throws(ObjectGraphError) {
        try db.query("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?", [.text(uuid) ?? .null, .bytes(BinaryPropertyList.encode(.dictionary(metadata)))])
    }

    // MARK: Writing

    /// How many times a save whose transaction the server aborted as a serialization
    /// failure or deadlock (40001, 40P01) runs again before failing.
    static let retries = 8

    public func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let db = try open()
        var attempt = 0
        while true {
            do throws(ObjectGraphError) {
                try db.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
                // The store's write lock: one save at a time, on every machine.
                try db.query("SELECT Z_VERSION FROM Z_METADATA FOR UPDATE")
                touched.removeAll()
                derived.removeAll()
                newestHistoryTransaction = nil
                try body(PostgreSQLSaveTransaction(store: self, db: db))
                try insertBuffer.flush(db)
                try fillDestinationEntityColumns(db)
                // After every row is written: a derivation may count or read rows of this save.
                for (sql, parameters) in derived { try db.query(sql, parameters) }
                derived.removeAll()
                if metadataNeedsWrite { try Self.writeMetadata(metadata, uuid: identifier, db) }
                // Delivered to every listener when, and only when, the transaction commits.
                if notifies { try db.query("SELECT pg_notify(?, ?)", [.text(channel)!, .text(newestHistoryTransaction.map(String.init) ?? "")!]) }
                try db.commit()
                metadataNeedsWrite = false
                return
            } catch {
                insertBuffer.discard()
                if db.isConnected && db.inTransaction { try? db.execute("ROLLBACK") }
                if PostgreSQLFailure.isRetryable(error), attempt < Self.retries {
                    attempt += 1
                    usleep(UInt32(1000 << min(attempt, 7)))
                    continue
                }
                throw saveError(error)
            }
        }
    }

    /// A server error becomes 134030 naming the store (the server's own error inside);
    /// a lock wait past the timeout stays 134090; errors of the save itself pass through.
    private func saveError(_ error: ObjectGraphError) -> ObjectGraphError {
        guard PostgreSQLFailure.sqlState(error) != nil || error.code == ErrorCode.storeOpen else { return error }
        if error.code == ErrorCode.storeTimeout { return error }
        return ObjectGraphError(
            code: ErrorCode.storeSave, message: "the store '\(path)' could not save, and nothing was written: \(error.message)",
            userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
    }

    func writePlan(_ entity: EntityDescription) -> SQLiteStore.WritePlan {
        if let plan = plans[ObjectIdentifier(entity)] { return plan }
        let plan = SQLiteStore.WritePlan.make(entity, schema: schema, dialect: .postgreSQL)
        plans[ObjectIdentifier(entity)] = plan
        return plan
    }

    /// `COPY table (Z_PK, Z_ENT, Z_OPT, columns) FROM STDIN` for the columns `plan` inserts.
    func copyStatement(_ entity: EntityDescription, _ plan: SQLiteStore.WritePlan) -> String {
        let mapping = schema.mapping(entity)
        let table = schema.tables[plan.tableIndex]
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.slots.map { table.columns[mapping.columnBySlot[$0]].sql }
        return PostgreSQLStatementText.adapt("COPY \(table.sql) (\(names.joined(separator: ", "))) FROM STDIN")
    }

    /// The PostgreSQL type of each slot's column of `entity` (int8 for a slot without one).
    func nullTypes(_ entity: EntityDescription) -> [UInt32] {
        if let known = nullTypeCache[ObjectIdentifier(entity)] { return known }
        let mapping = schema.mapping(entity)
        let table = schema.tables[mapping.tableIndex]
        let types = mapping.columnBySlot.map { $0 >= 0 ? PostgreSQLSchema.typeOID(of: table.columns[$0]) : PostgreSQLParameter.int8 }
        nullTypeCache[ObjectIdentifier(entity)] = types
        return types
    }

    /// Sets each `Z<n>_<NAME>` column of the rows this save wrote to the entity number of
    /// the row its to-one points at.
    private func fillDestinationEntityColumns(_ db: PostgreSQLConnection) throws(ObjectGraphError) {
        guard !touched.isEmpty else { return }
        // Built once per table for the save.
        var statements: [Int: String?] = [:]
        for (tableIndex, primaryKey) in touched {
            if statements[tableIndex] == nil { statements[tableIndex] = schema.destinationEntityUpdate(tableIndex: tableIndex) }
            guard let sql = statements[tableIndex] ?? nil else { continue }
            try db.query(sql, [.integer(primaryKey)])
        }
        touched.removeAll()
    }
}

extension PostgreSQLStore: KeyCounterReading {
    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64 {
        let rows = try open().query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(schema.number(root.rootEntity)))])
        return rows.count > 0 ? rows.int64(0, 0) : 0
    }
}
