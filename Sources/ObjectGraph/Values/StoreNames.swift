/// Store type names, with Core Data's values.
public enum StoreType {
    public static let sqlite = "SQLite"
    public static let inMemory = "InMemory"
    public static let binary = "Binary"
}

/// Keys of store metadata, with Core Data's values.
public enum StoreMetadataKey {
    public static let storeType = "NSStoreType"
    public static let storeUUID = "NSStoreUUID"
    public static let modelVersionHashes = "NSStoreModelVersionHashes"
    public static let modelVersionIdentifiers = "NSStoreModelVersionIdentifiers"
    public static let modelVersionHashesVersion = "NSStoreModelVersionHashesVersion"
    public static let persistenceFrameworkVersion = "NSPersistenceFrameworkVersion"
    /// The SQLite auto-vacuum mode a store was created with, as text (`"2"`: incremental).
    public static let autoVacuumLevel = "_NSAutoVacuumLevel"
}
