import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension PersistentStoreCoordinator {
    /// The metadata of the store file at `path`, read without a stack
    /// (`metadataForPersistentStoreOfType:URL:error:`). A nil `type` is detected from the
    /// file's first bytes. The result always has `NSStoreType` and `NSStoreUUID`.
    public static func metadataForPersistentStore(ofType type: String?, at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        switch try detectType(type, path) {
        case StoreType.sqlite:
            var metadata = try sqliteMetadata(path).plist
            metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(StoreType.sqlite)
            return metadata
        default:
            var metadata = try BinaryStore.metadata(at: path)
            metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(StoreType.binary)
            return metadata
        }
    }

    /// The model the store file at `path` keeps of itself, read without a stack: SQLite
    /// stores (Apple's and ours) cache the compiled model that last wrote them in `Z_MODELCACHE`.
    /// Lets a store be opened or inspected without its model file. Errors: 134130 when
    /// the store keeps no model (Binary stores never do), and the errors of reading it.
    public static func cachedModel(ofPersistentStoreAt path: String, type: String? = nil) throws(ObjectGraphError) -> ManagedObjectModel {
        switch try detectType(type, path) {
        case StoreType.sqlite:
            return try SQLiteStore.cachedModel(at: path)
        default:
            throw ObjectGraphError(
                code: ErrorCode.migrationMissingSourceModel, message: "the store '\(path)' keeps no model of its own (only SQLite stores do)",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
    }

    /// Replaces the metadata of the store file at `path` without a stack
    /// (`setMetadata:forPersistentStoreOfType:URL:error:`). `NSStoreType` and `NSStoreUUID`
    /// are kept from the file when the dictionary does not supply them.
    public static func setMetadata(_ metadata: [String: PropertyListValue], forPersistentStoreOfType type: String?, at path: String) throws(ObjectGraphError) {
        let kind = try detectType(type, path)
        let old = try metadataForPersistentStore(ofType: kind, at: path)
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(kind)
        if new[StoreMetadataKey.storeUUID] == nil { new[StoreMetadataKey.storeUUID] = old[StoreMetadataKey.storeUUID] }
        switch kind {
        case StoreType.sqlite:
            let db = try SQLiteConnection(path: path)
            defer { db.close() }
            let s = try db.prepare("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?")
            db.bind(s, 1, text: new[StoreMetadataKey.storeUUID]?.stringValue ?? "")
            db.bind(s, 2, bytes: BinaryPropertyList.encode(.dictionary(new)))
            try db.run(s)
        default:
            try BinaryStore.setMetadata(new, at: path)
        }
    }

    /// The store type of the file at `path`: `type` when given (checked against the file),
    /// else found from the file's first bytes.
    static func detectType(_ type: String?, _ path: String) throws(ObjectGraphError) -> String {
        // The first bytes, read through SQLite's file layer: the file may be an SQLite store
        // this process has open, whose locks a descriptor of our own would drop on close.
        guard access(path, R_OK) == 0 else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no readable store at '\(path)'", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        let head = SQLiteStore.headerBytes(path)
        let found: String?
        if head == Array("SQLite format 3\0".utf8) {
            found = StoreType.sqlite
        } else if head.count >= 8, Array(head.prefix(8)) == BinaryStore.signature {
            found = StoreType.binary
        } else {
            found = nil
        }
        guard let found else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a store of a type that can be read without a stack (SQLite or Binary)", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        if let type, type != found {
            throw ObjectGraphError(code: ErrorCode.storeTypeMismatch, message: "'\(path)' is a \(found) store, not \(type)", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        return found
    }

    static func sqliteMetadata(_ path: String) throws(ObjectGraphError) -> (uuid: String, plist: [String: PropertyListValue]) {
        let db = try SQLiteConnection(path: path, readOnly: true)
        defer { db.close() }
        return try sqliteMetadata(db, path: path)
    }

    /// The metadata of the store open on `db` (a migration reads it inside its transaction).
    static func sqliteMetadata(_ db: SQLiteConnection, path: String) throws(ObjectGraphError) -> (uuid: String, plist: [String: PropertyListValue]) {
        let s: OpaquePointer
        do { s = try db.prepare("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") } catch {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is an SQLite database but not a Core Data store (it has no Z_METADATA table)")
        }
        guard sqlite3_step(s) == SQLITE_ROW else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: Z_METADATA is empty")
        }
        let uuid = sqlite3_column_text(s, 0).map { String(cString: $0) } ?? ""
        let count = Int(sqlite3_column_bytes(s, 1))
        let bytes = count > 0 ? Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(s, 1), count: count)) : []
        sqlite3_reset(s)
        guard case .dictionary(var plist)? = try? BinaryPropertyList.decode(bytes) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: its metadata cannot be read")
        }
        if plist[StoreMetadataKey.storeUUID] == nil { plist[StoreMetadataKey.storeUUID] = .string(uuid) }
        return (uuid, plist)
    }
}
