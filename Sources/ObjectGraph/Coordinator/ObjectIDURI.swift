/// Object IDs from their URI form (`managedObjectIDForURIRepresentation:`).
extension PersistentStoreCoordinator {
    /// The permanent object ID a URI names, `x-coredata://<store UUID>/<Entity>/p<key>`;
    /// nil for a temporary ID's URI, an unknown store or entity, or text of another shape.
    /// For a store that names its objects by reference (an incremental store), the text
    /// after `p`, unescaped, is the reference, as a string.
    public func managedObjectID(forURIRepresentation uri: String) -> ManagedObjectID? {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        // The reference may hold slashes: only the first two separate.
        let parts = uri.dropFirst(prefix.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[2].first == "p",
            let entity = managedObjectModel.entity(named: String(parts[1])),
            let store = persistentStores.first(where: { $0.identifier == String(parts[0]) })
        else { return nil }
        if let references = StoreReferenceURIs.keys(ofStore: store.identifier) {
            guard let key = references.key(forURIText: parts[2].dropFirst(), in: entity) else { return nil }
            let concrete = references.reference(for: key, in: entity)?.entity ?? entity
            return ManagedObjectID(entity: concrete, primaryKey: key, storeIdentifier: store.identifier)
        }
        guard let key = Int64(parts[2].dropFirst()), key > 0 else { return nil }
        return ManagedObjectID(entity: entity, primaryKey: key, storeIdentifier: store.identifier)
    }
}
