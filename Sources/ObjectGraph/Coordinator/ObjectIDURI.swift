/// Object IDs from their URI form (`managedObjectIDForURIRepresentation:`).
extension PersistentStoreCoordinator {
    /// The permanent object ID a URI names, `x-coredata://<store UUID>/<Entity>/p<key>`;
    /// nil for a temporary ID's URI, an unknown store or entity, or text of another shape.
    public func managedObjectID(forURIRepresentation uri: String) -> ManagedObjectID? {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[2].first == "p",
            let key = Int64(parts[2].dropFirst()), key > 0,
            let entity = managedObjectModel.entity(named: String(parts[1])),
            let store = persistentStores.first(where: { $0.identifier == String(parts[0]) })
        else { return nil }
        return ManagedObjectID(entity: entity, primaryKey: key, storeIdentifier: store.identifier)
    }
}
