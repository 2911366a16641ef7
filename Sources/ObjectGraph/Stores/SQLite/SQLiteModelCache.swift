import CSQLite

/// The model a store keeps of itself: Core Data writes the compiled model that last wrote
/// an SQLite store, DEFLATE-compressed, into its `Z_MODELCACHE` table, and so do we.
/// Reading it lets a store be inspected without its model file, and gives migration its
/// source model.
extension SQLiteStore {
    /// The model cached in the SQLite store at `path`, read without a stack and without
    /// changing the file. Errors: 134080 when the file cannot be opened, 134000 when it is
    /// not a store, and 134130 (`NSMigrationMissingSourceModelError`) when it has no cached
    /// model or the cache cannot be read (the message says which).
    public static func cachedModel(at path: String) throws(ObjectGraphError) -> ManagedObjectModel {
        try checkHeader(path)
        guard fileSize(path) ?? 0 > 0 else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no store at '\(path)'", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        let db = try SQLiteConnection(path: path, readOnly: true, snapshot: true)
        defer { db.close() }
        let blob: [UInt8]
        do throws(ObjectGraphError) {
            let tables = Set(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
            guard tables.contains("Z_METADATA") else {
                throw ObjectGraphError(
                    code: ErrorCode.storeInvalidType, message: "'\(path)' is an SQLite database but not a Core Data store",
                    userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            guard tables.contains("Z_MODELCACHE") else { throw missing(path, "it has no Z_MODELCACHE table") }
            let s = try db.prepare("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
            guard let content = try s.firstRow({ $0.bytes(0) }) else { throw missing(path, "its Z_MODELCACHE table is empty") }
            blob = content
        } catch {
            throw describe(error, path: path)
        }
        let compiled: [UInt8]
        do throws(Inflate.Failure) { compiled = try Inflate.decompress(blob) } catch {
            throw missing(path, "its cached model cannot be decompressed (\(error))")
        }
        do throws(ObjectGraphError) {
            return try CompiledModelReader.read(compiled, source: "\(path) (Z_MODELCACHE)")
        } catch {
            var e = missing(path, "its cached model cannot be read: \(error.message)")
            e.details = [error]
            throw e
        }
    }

    /// Makes `model` the model the store keeps of itself: creates `Z_MODELCACHE` as Core
    /// Data does when it is missing, and replaces its one row with the compiled model,
    /// DEFLATE-compressed. Runs inside the caller's transaction (store creation, migration).
    static func writeModelCache(_ model: ManagedObjectModel, db: SQLiteConnection) throws(ObjectGraphError) {
        let tables = Set(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
        if !tables.contains("Z_MODELCACHE") { try db.execute(createModelCacheTable) }
        try db.execute("DELETE FROM Z_MODELCACHE")
        let insert = try db.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
        insert.bind(1, bytes: Deflate.compress(CompiledModelWriter.write(model)))
        try insert.run()
    }

    /// The table as Core Data creates it.
    static let createModelCacheTable = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"

    private static func missing(_ path: String, _ why: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.migrationMissingSourceModel, message: "the store '\(path)' has no model of its own: \(why)",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }
}
