/// The PostgreSQL store type: a store is a schema of a PostgreSQL database, found by a
/// libpq connection string instead of a path. It keeps no files: copying, moving and
/// removing a store are not file operations, so the type does not claim `.files`.
final class PostgreSQLStoreType: PersistentStoreType {
    let name = PostgreSQLStore.typeName
    var capabilities: StoreTypeCapabilities { [.queries, .cachedModel, .batchRequests, .automaticMigration, .sqlInPlaceMigration] }

    func recognizes(address: String) -> Bool { address.hasPrefix("postgresql://") || address.hasPrefix("postgres://") }

    func displayPath(_ path: String) -> String {
        (try? PostgreSQLAddress(path, schema: nil).redacted) ?? "(a PostgreSQL connection string)"
    }

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        guard !setup.path.isEmpty else {
            throw .invalidArgument("a PostgreSQL store needs a connection string (postgresql://user@host/database or key=value pairs)")
        }
        return try PostgreSQLStore(setup: setup)
    }

    /// A connection to the database at `url` (the default schema), closed by the caller.
    private func connect(_ url: String, schema: String? = nil) throws(ObjectGraphError) -> (PostgreSQLConnection, PostgreSQLAddress) {
        let address = try PostgreSQLAddress(url, schema: schema)
        return (try PostgreSQLConnection(address, lockTimeout: StoreOptions.defaultTimeout), address)
    }

    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try metadata(at: path, options: StoreOptions())
    }

    func metadata(at path: String, options: StoreOptions) throws(ObjectGraphError) -> [String: PropertyListValue] {
        let (db, address) = try connect(path, schema: options.postgreSQLSchema)
        defer { db.close() }
        try requireStore(db, address)
        var metadata = try PostgreSQLStore.readMetadata(db, path: address.redacted).1
        metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(name)
        return metadata
    }

    func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        try setMetadata(metadata, at: path, options: StoreOptions())
    }

    func setMetadata(_ metadata: [String: PropertyListValue], at path: String, options: StoreOptions) throws(ObjectGraphError) {
        let (db, address) = try connect(path, schema: options.postgreSQLSchema)
        defer { db.close() }
        try requireStore(db, address)
        try PostgreSQLStore.writeMetadata(metadata, uuid: metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "", db)
    }

    /// One lightweight step in place, in one transaction (`PostgreSQLInPlaceMigration`);
    /// false, changing nothing, when the mapping needs objects.
    func migrateInPlace(
        at path: String, options: StoreOptions, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool {
        guard let plan = SQLiteInPlacePlan.make(mapping, source: source, destination: destination, dialect: .postgreSQL) else { return false }
        try PostgreSQLInPlaceMigration.run([PostgreSQLInPlaceMigration.Step(plan: plan, destinationModel: destination, versionHashes: versionHashes)],
                                           address: PostgreSQLAddress(path, schema: options.postgreSQLSchema))
        return true
    }

    func migrateInPlace(
        at path: String, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool {
        try migrateInPlace(at: path, options: StoreOptions(), from: source, to: destination, mapping: mapping, versionHashes: versionHashes)
    }

    /// Every step in one transaction: a failure in any leaves the store as it was.
    func migrateInPlace(at path: String, options: StoreOptions, chain: [InPlaceMigrationStep]) throws(ObjectGraphError) -> Bool {
        var plans: [PostgreSQLInPlaceMigration.Step] = []
        for step in chain {
            guard let plan = SQLiteInPlacePlan.make(step.mapping, source: step.source, destination: step.destination, dialect: .postgreSQL) else { return false }
            plans.append(PostgreSQLInPlaceMigration.Step(plan: plan, destinationModel: step.destination, versionHashes: step.versionHashes))
        }
        try PostgreSQLInPlaceMigration.run(plans, address: PostgreSQLAddress(path, schema: options.postgreSQLSchema))
        return true
    }

    func cachedModel(at path: String) throws(ObjectGraphError) -> ManagedObjectModel? {
        try cachedModel(at: path, options: StoreOptions())
    }

    func cachedModel(at path: String, options: StoreOptions) throws(ObjectGraphError) -> ManagedObjectModel? {
        let (db, address) = try connect(path, schema: options.postgreSQLSchema)
        defer { db.close() }
        try requireStore(db, address)
        let rows = try db.query("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        guard rows.count > 0 else { return nil }
        let compiled: [UInt8]
        do throws(Inflate.Failure) { compiled = try Inflate.decompress(rows.bytes(0, 0)) } catch {
            throw ObjectGraphError(code: ErrorCode.migrationMissingSourceModel, message: "the cached model of '\(address.redacted)' cannot be decompressed (\(error))")
        }
        return try CompiledModelReader.read(compiled, source: "\(address.redacted) (Z_MODELCACHE)")
    }

    func hasStore(at path: String) -> Bool { hasStore(at: path, options: StoreOptions()) }

    func hasStore(at path: String, options: StoreOptions) -> Bool {
        guard let (db, address) = try? connect(path, schema: options.postgreSQLSchema) else { return false }
        defer { db.close() }
        return (try? PostgreSQLStore.tableNames(db, schema: address.schema).contains("Z_METADATA")) ?? false
    }

    func files(at path: String) -> [String] { [] }

    func removeStore(at path: String) {}

    private func requireStore(_ db: PostgreSQLConnection, _ address: PostgreSQLAddress) throws(ObjectGraphError) {
        guard try PostgreSQLStore.tableNames(db, schema: address.schema).contains("Z_METADATA") else {
            throw ObjectGraphError(
                code: ErrorCode.storeOpen, message: "there is no store in the schema '\(address.schema)' of \(db.location)",
                userInfo: [(ErrorUserInfoKey.filePath, address.redacted)])
        }
    }
}

extension PostgreSQLStoreType {
    func copyStore(at path: String, to destination: String) throws(ObjectGraphError) {
        throw ObjectGraphError(
            code: ErrorCode.storeOperation,
            message: "a PostgreSQL store is not copied as files; migrate it into another store instead (migrate_store)")
    }

    func moveStore(at path: String, to destination: String) throws(ObjectGraphError) {
        throw ObjectGraphError(code: ErrorCode.storeOperation, message: "a PostgreSQL store is not moved as files")
    }
}
