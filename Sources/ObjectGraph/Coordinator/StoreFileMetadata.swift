#if canImport(Glibc)
import Glibc
#endif

/// Store metadata read and written without adding the store, with the options the store
/// would be opened with (`+metadataForPersistentStoreOfType:URL:options:error:` and
/// `+setMetadata:forPersistentStoreOfType:URL:options:error:`).
extension PersistentStoreCoordinator {
    /// The whole metadata of the store file at `path`. Errors: 134080 when there is no
    /// readable store there, 134010 when it is a store of another type than `type`, 140002
    /// for an option of the wrong kind.
    public static func metadataForPersistentStore(ofType type: String?, at path: String,
                                                  options: [String: PropertyListValue]) throws(ObjectGraphError) -> [String: PropertyListValue] {
        let parsed = try StoreOptions(options)
        do {
            return try StoreTypes.type(ofStoreAt: path, named: type).metadata(at: path, options: parsed)
        } catch {
            throw noReadableStore(error, path)
        }
    }

    /// Writes the whole metadata of the store file at `path` now; the file's `NSStoreType`
    /// and `NSStoreUUID` are kept whatever `metadata` says. Errors: those of reading it, and 134070 when the file is
    /// read-only or the options open it read-only.
    public static func setMetadata(_ metadata: [String: PropertyListValue], forPersistentStoreOfType type: String?, at path: String,
                                   options: [String: PropertyListValue]) throws(ObjectGraphError) {
        let parsed = try StoreOptions(options)
        let kind: PersistentStoreType
        let old: [String: PropertyListValue]
        do {
            kind = try StoreTypes.type(ofStoreAt: path, named: type)
            old = try kind.metadata(at: path, options: parsed)
        } catch {
            throw noReadableStore(error, path)
        }
        if parsed.readOnly || (kind.capabilities.contains(.files) && !isWritableFile(path)) {
            throw ObjectGraphError(
                code: ErrorCode.storeOperation,
                message: "the store '\(StoreTypes.displayPath(path, type: nil))' is read-only: its metadata cannot be written",
                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: nil))])
        }
        // The file's identity is not the caller's to change.
        var kept = metadata
        kept[StoreMetadataKey.storeType] = .string(kind.name)
        kept[StoreMetadataKey.storeUUID] = old[StoreMetadataKey.storeUUID]
        try kind.setMetadata(kept, at: path, options: parsed)
    }

    /// A file that is not a store (or not one of ours) is, to these calls, no readable store.
    private static func noReadableStore(_ error: ObjectGraphError, _ path: String) -> ObjectGraphError {
        guard error.code == ErrorCode.storeInvalidType else { return error }
        return ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no readable store at '\(StoreTypes.displayPath(path, type: nil))': \(error.message)",
                                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: nil))])
    }

    /// Writable by this process and by its mode: a superuser may write anything, but a
    /// file with no write permission is still treated as read-only.
    private static func isWritableFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o222 != 0 && access(path, W_OK) == 0
    }
}
