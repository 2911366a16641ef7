import CSQLite

extension SQLiteStore {
    /// The metadata of the store open on `db` (a migration reads it inside its transaction).
    static func metadata(_ db: SQLiteConnection, path: String) throws(ObjectGraphError) -> (uuid: String, plist: [String: PropertyListValue]) {
        let s: SQLiteStatement
        do { s = try db.prepare("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") } catch {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is an SQLite database but not a Core Data store (it has no Z_METADATA table)")
        }
        guard let (uuid, bytes) = try s.firstRow({ ($0.text(0), $0.bytes(1)) }) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: Z_METADATA is empty")
        }
        guard case .dictionary(var plist)? = try? BinaryPropertyList.decode(bytes) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid store: its metadata cannot be read")
        }
        if plist[StoreMetadataKey.storeUUID] == nil { plist[StoreMetadataKey.storeUUID] = .string(uuid) }
        return (uuid, plist)
    }
}
