import CSQLite

extension SQLiteStore {
    /// The metadata of the store open on `db` (a migration reads it inside its transaction).
    static func metadata(_ db: SQLiteConnection, path: String) throws(ObjectGraphError) -> (uuid: String, plist: [String: PropertyListValue]) {
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
