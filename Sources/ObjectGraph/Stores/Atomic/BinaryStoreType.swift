/// The Binary store type (`NSBinaryStoreType`): an atomic store in one file, written
/// whole by atomic rename.
final class BinaryStoreType: PersistentStoreType {
    let name = StoreType.binary
    var capabilities: StoreTypeCapabilities { [.files, .automaticMigration, .recognizableFiles] }

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        try setup.refuseDerivedAttributes(name)
        return try BinaryStore(setup: setup)
    }

    func recognizes(header: [UInt8]) -> Bool { header.count >= 8 && Array(header.prefix(8)) == BinaryStore.signature }

    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        var metadata = try BinaryStore.metadata(at: path)
        metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(name)
        return metadata
    }

    func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        try BinaryStore.setMetadata(metadata, at: path)
    }
}

/// Makes a store of one type from everything it is added with (path, model, configuration, options).
public typealias PersistentStoreFactory = (_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore

/// A store type an application registers with a function that makes its stores
/// (`PersistentStoreCoordinator.registerStoreType`): custom atomic stores, from Swift or
/// through the C interface. Its files are whatever its stores read and write; the
/// engine knows nothing more of them.
public final class FactoryStoreType: PersistentStoreType, @unchecked Sendable {
    public let name: String
    private let make: PersistentStoreFactory

    public init(name: String, make: @escaping PersistentStoreFactory) {
        self.name = name
        self.make = make
    }

    public var capabilities: StoreTypeCapabilities { [] }

    public func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore { try make(setup) }
}
