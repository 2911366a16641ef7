import CSQLite

/// The SQLite store type (`NSSQLiteStoreType`): Apple's layout in one database file, with
/// SQLite's write-ahead log and shared memory (or rollback journal) beside it.
final class SQLiteStoreType: PersistentStoreType {
    let name = StoreType.sqlite
    var capabilities: StoreTypeCapabilities {
        [.files, .automaticMigration, .sqlInPlaceMigration, .cachedModel, .queries, .recognizableFiles, .batchRequests]
    }

    private static let magic = Array("SQLite format 3\0".utf8)

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        guard !setup.path.isEmpty else { throw .invalidArgument("an SQLite store needs the path of its file") }
        return try SQLiteStore(setup: setup)
    }

    func recognizes(header: [UInt8]) -> Bool { header == Self.magic }

    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        let db = try SQLiteConnection(path: path, readOnly: true, snapshot: true)
        defer { db.close() }
        var metadata = try SQLiteStore.metadata(db, path: path).plist
        metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(name)
        return metadata
    }

    func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        let s = try db.prepare("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?")
        s.bind(1, text: metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "")
        s.bind(2, bytes: BinaryPropertyList.encode(.dictionary(metadata)))
        try s.run()
    }

    func migrateInPlace(
        at path: String, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool {
        guard let plan = SQLiteInPlacePlan.make(mapping, source: source, destination: destination) else { return false }
        try SQLiteInPlaceMigration.run(plan, path: path, destinationModel: destination, versionHashes: versionHashes)
        return true
    }

    func cachedModel(at path: String) throws(ObjectGraphError) -> ManagedObjectModel? { try SQLiteStore.cachedModel(at: path) }

    func files(at path: String) -> [String] { path.isEmpty ? [] : ["", "-wal", "-shm", "-journal"].map { path + $0 } }

    /// Through SQLite's backup API: it reads the write-ahead log too, and never opens a
    /// descriptor of its own on the file, whose closing would drop this process's locks.
    func copyStore(at path: String, to destination: String) throws(ObjectGraphError) {
        let from = try SQLiteConnection(path: path, readOnly: true)
        defer { from.close() }
        let to = try SQLiteConnection(path: destination)
        defer { to.close() }
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw to.lastError(sqlite3_errcode(to.handle))
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw to.lastError(rc) }
    }
}
