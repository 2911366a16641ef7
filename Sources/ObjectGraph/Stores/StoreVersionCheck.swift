extension StoreSetup {
    /// Checks the version hashes a store's `metadata` records against this setup's
    /// entities (§2.20): 134100 when they differ, unless versioning is ignored, in which
    /// case the metadata takes the current hashes. True when `metadata` changed (it is to
    /// be written at the next save).
    func checkVersionHashes(_ metadata: inout [String: PropertyListValue], ignoringVersioning: Bool, path: String) throws(ObjectGraphError) -> Bool {
        let stored = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue ?? [:]
        guard ignoringVersioning else {
            if let error = incompatibility(withStored: stored, path: path) { throw error }
            return false
        }
        guard stored != versionHashes else { return false }
        metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(versionHashes)
        return true
    }

    /// Why a store whose metadata records `stored` version hashes cannot be opened with
    /// this setup's entities (134100, naming the first entity that differs), or nil when
    /// every entity has exactly the hash the store recorded (§2.20).
    public func incompatibility(withStored stored: [String: PropertyListValue], path: String) -> ObjectGraphError? {
        var current: [String: [UInt8]] = [:]
        for e in entities { current[e.name] = e.versionHash }
        func incompatible(_ entity: String, _ why: String) -> ObjectGraphError {
            ObjectGraphError(
                code: ErrorCode.storeIncompatibleVersionHash,
                message: "the model used to open the store '\(path)' is incompatible with the one used to create it: entity '\(entity)' \(why)",
                userInfo: [(ErrorUserInfoKey.entity, entity), (ErrorUserInfoKey.filePath, path)])
        }
        for name in current.keys.sorted() {
            guard let hash = stored[name] else { return incompatible(name, "is not in the store") }
            if hash.dataValue != current[name] { return incompatible(name, "differs from the version that wrote the store") }
        }
        for name in stored.keys.sorted() where current[name] == nil {
            return incompatible(name, "is in the store but not in the model")
        }
        return nil
    }
}
