import FoundationEssentials

extension ManagedObjectModel {
    /// Merges every model file directly inside `directory` (`.json`, `.xcdatamodel`,
    /// `.xcdatamodeld`, `.mom`, `.momd`; current versions): the Linux form of
    /// `mergedModelFromBundles:`, with a directory standing in for a bundle. Other files are ignored.
    public convenience init(mergingModelsInDirectory directory: String) throws(ObjectGraphError) {
        var models: [ManagedObjectModel] = []
        for path in try ModelDirectory.modelPaths(directory) { models.append(try ManagedObjectModel(contentsOf: path)) }
        try self.init(merging: models)
    }

    /// The model merged from the files in `directory` whose version hashes match the store
    /// metadata (`mergedModelFromBundles:forStoreMetadata:`): every version of each
    /// versioned folder is tried, so a store written by an older version finds it. Nil
    /// when no combination matches.
    public static func mergedModel(inDirectory directory: String, forStoreMetadata metadata: [String: PropertyListValue]) throws(ObjectGraphError)
        -> ManagedObjectModel?
    {
        let stored = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue ?? [:]
        var parts: [ManagedObjectModel] = []
        for path in try ModelDirectory.modelPaths(directory) {
            var candidates: [ManagedObjectModel] = []
            if let f = ModelFileFormat(path: path), f == .xcdatamodeld || f == .momd {
                for v in try versionNames(inBundle: path) { candidates.append(try ManagedObjectModel(contentsOf: path, version: v)) }
            } else {
                candidates.append(try ManagedObjectModel(contentsOf: path))
            }
            // A part fits when each of its entities has the hash the store recorded.
            if let fit = candidates.first(where: { m in
                m.entities.allSatisfy { stored[$0.name]?.dataValue == $0.versionHash }
            }) { parts.append(fit) }
        }
        return merging(parts, forStoreMetadata: metadata)
    }
}

enum ModelDirectory {
    static func modelPaths(_ directory: String) throws(ObjectGraphError) -> [String] {
        guard ModelFiles.isDirectory(directory) else {
            throw ModelLocation(file: directory).error("not a folder of model files")
        }
        return try ModelFiles.list(directory).filter { ModelFileFormat(path: $0) != nil && !$0.hasPrefix(".") }.map { directory + "/" + $0 }
    }
}
