import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


extension SQLiteStore {
    // MARK: Creating and checking

    /// Creates the store's tables and metadata if the file has none once this connection
    /// holds the write lock; false (nothing written) when another connection created
    /// them first.
    func createIfEmpty(_ db: SQLiteConnection) throws(ObjectGraphError) -> Bool {
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
                insertKey.bind(1, Int64(number))
                insertKey.bind(2, text: entity.name)
                insertKey.bind(3, Int64(entity.superentity.map { schema.mapping($0).number } ?? 0))
                try insertKey.run()
            }
            let insertMeta = try db.prepare("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            insertMeta.bind(1, text: newIdentifier)
            insertMeta.bind(2, bytes: BinaryPropertyList.encode(.dictionary(newMetadata)))
            try insertMeta.run()
            try Self.writeModelCache(model, db: db)
            try db.execute("COMMIT")
            (identifier, metadata) = (newIdentifier, newMetadata)
            return true
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    func readMetadata(_ db: SQLiteConnection, path: String) throws(ObjectGraphError) {
        let s = try db.prepare("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        guard let (uuid, bytes) = try s.firstRow({ ($0.text(0), $0.bytes(1)) }) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: Z_METADATA is empty")
        }
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
    func checkCompatible() throws(ObjectGraphError) {
        if try setup.checkVersionHashes(&metadata, ignoringVersioning: storeOptions.ignoreVersioning, path: path) { metadataNeedsWrite = true }
    }

    /// A damaged file is refused before anything is written to it (`PRAGMA quick_check`:
    /// every page is read once, without the slower index cross-checks).
    func checkIntegrity(_ db: SQLiteConnection) throws(ObjectGraphError) {
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
    func checkTables(_ db: SQLiteConnection, _ tables: Set<String>) throws(ObjectGraphError) {
        var existing: [String: Set<String>] = [:]
        let names = schema.tables.filter { schema.isStored($0.root) }.map(\.name) + schema.joinTables.filter { schema.isStored($0) }.map(\.name)
        for name in names where tables.contains(name) {
            existing[name] = try columnNames(db, table: name)
        }
        // Join tables as the file names them (see SQLiteSchema+ExistingJoins).
        let asPredicted = { (join: SQLiteSchema.JoinTable) -> Bool in
            guard let have = existing[join.name] else { return false }
            return have.contains(join.sourceColumn) && have.contains(join.destinationColumn)
        }
        if schema.joinTables.contains(where: { schema.isStored($0) && !asPredicted($0) }) {
            for name in tables where existing[name] == nil && name.hasPrefix("Z_") { existing[name] = try columnNames(db, table: name) }
            _ = schema.adoptJoinTables(from: existing)
        }
        if let (table, column) = schema.missing(in: existing) {
            // With versioning ignored, a writable store gets what it lacks when it opens
            // (`addMissingSchema`): the new columns read as nil.
            if storeOptions.ignoreVersioning && !readsOnly {
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
    func addMissingSchema(_ db: SQLiteConnection) throws(ObjectGraphError) {
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
        Set(try db.strings("SELECT name FROM pragma_table_info(?)", binding: [table]))
    }
}
