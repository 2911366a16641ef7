extension PersistentStoreCoordinator {
    /// The metadata of the store file at `path`, read without a stack
    /// (`metadataForPersistentStoreOfType:URL:error:`). A nil `type` is found from the
    /// file's first bytes. The result always has `NSStoreType` and `NSStoreUUID`.
    public static func metadataForPersistentStore(ofType type: String?, at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try StoreTypes.type(ofStoreAt: path, named: type).metadata(at: path)
    }

    /// The model the store file at `path` keeps of itself, read without a stack: SQLite
    /// stores (Apple's and ours) cache the compiled model that last wrote them in `Z_MODELCACHE`.
    /// Lets a store be opened or inspected without its model file. Errors: 134130 when
    /// the store keeps no model (Binary stores never do), and the errors of reading it.
    public static func cachedModel(ofPersistentStoreAt path: String, type: String? = nil) throws(ObjectGraphError) -> ManagedObjectModel {
        let kind = try StoreTypes.type(ofStoreAt: path, named: type)
        guard let model = try kind.cachedModel(at: path) else {
            throw ObjectGraphError(
                code: ErrorCode.migrationMissingSourceModel, message: "the store '\(StoreTypes.displayPath(path, type: type))' keeps no model of its own (\(kind.name) stores do not)",
                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))])
        }
        return model
    }

    /// Replaces the metadata of the store file at `path` without a stack
    /// (`setMetadata:forPersistentStoreOfType:URL:error:`). `NSStoreType` and `NSStoreUUID`
    /// are kept from the file when the dictionary does not supply them.
    public static func setMetadata(_ metadata: [String: PropertyListValue], forPersistentStoreOfType type: String?, at path: String) throws(ObjectGraphError) {
        let kind = try StoreTypes.type(ofStoreAt: path, named: type)
        let old = try kind.metadata(at: path)
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(kind.name)
        if new[StoreMetadataKey.storeUUID] == nil { new[StoreMetadataKey.storeUUID] = old[StoreMetadataKey.storeUUID] }
        try kind.setMetadata(new, at: path)
    }
}
