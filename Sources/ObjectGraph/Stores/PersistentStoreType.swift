#if canImport(Glibc)
import Glibc
#endif

/// A kind of persistent store, and everything the rest of the engine needs to know about
/// it: the coordinator makes its stores and moves them, reads and writes a file's metadata
/// without adding it, migration copies, removes and moves its files, and the store tool
/// recognises them. Nothing outside `Stores/` names a concrete type: they all ask this
/// interface, through `StoreTypes` (the registry). The built-in types (SQLite, InMemory,
/// Binary) register through it exactly as an application's type does.
///
/// Every member but `name` and `makeStore` has a default, right for a type whose store is
/// one file it writes whole (an atomic store): override what differs. Members may be
/// called from any thread, several at once; a type keeps no state of its own per call.
public protocol PersistentStoreType: AnyObject, Sendable {
    /// The name stores of this type are added with (`NSSQLiteStoreType` is "SQLite").
    /// Unique among registered types; never changes.
    var name: String { get }

    /// What the type's stores do beyond fetching and saving rows.
    var capabilities: StoreTypeCapabilities { get }

    /// Makes a store for `setup` (a path, the coordinator's model, a configuration,
    /// options), creating its file when the type keeps one and it is missing. Called by
    /// `addPersistentStore` with the coordinator's lock held, after automatic migration.
    /// Must fail (never return a half-made store) when the file is not one of its stores
    /// or was written with another model (134100), and must write nothing on failure.
    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore

    /// Whether `header`, the first bytes of a file (16, fewer for a shorter file), begins
    /// a store file of this type. Called to find the type of a file opened without one
    /// (the store tool, metadata without a stack); false for a type that keeps no files
    /// or cannot tell its own from their first bytes.
    func recognizes(header: [UInt8]) -> Bool

    /// Whether `address` names a store of this type by its form alone (a PostgreSQL URL):
    /// how a store that is no file is found when no type is given (the store tool).
    func recognizes(address: String) -> Bool

    /// `path` as messages show it: a server's address without its password.
    func displayPath(_ path: String) -> String

    /// The metadata of the store at `path`, read without adding it
    /// (`metadataForPersistentStoreOfType:URL:`). Must not change any byte of the store's
    /// files. 134010 (`storeInvalidType`) when the type cannot read it without a store.
    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue]

    /// The same, with the options the store would be added with (a PostgreSQL store's
    /// schema). The default ignores them.
    func metadata(at path: String, options: StoreOptions) throws(ObjectGraphError) -> [String: PropertyListValue]

    /// Replaces the metadata of the store at `path`, which no coordinator of this process
    /// has attached (`setMetadata:forPersistentStoreOfType:URL:`); the records stay as they
    /// are. Called with `NSStoreType` and `NSStoreUUID` already set.
    func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError)

    /// The same, with the options the store would be added with. The default ignores them.
    func setMetadata(_ metadata: [String: PropertyListValue], at path: String, options: StoreOptions) throws(ObjectGraphError)

    /// The model the store at `path` keeps of itself (SQLite's `Z_MODELCACHE`), or nil when
    /// its type keeps none. Read without changing the files; lets a store be opened or
    /// migrated without its model file.
    func cachedModel(at path: String) throws(ObjectGraphError) -> ManagedObjectModel?

    /// The same, with the options the store would be added with. The default ignores them.
    func cachedModel(at path: String, options: StoreOptions) throws(ObjectGraphError) -> ManagedObjectModel?

    /// Whether a store with data exists at `path`: automatic migration and the store tool
    /// consider only those. A missing or empty file is no store yet.
    func hasStore(at path: String) -> Bool

    /// The same, with the options the store would be added with. The default ignores them.
    func hasStore(at path: String, options: StoreOptions) -> Bool

    /// The files that make up the store at `path`, the main one first, whether or not
    /// they exist now (SQLite's `-wal`, `-shm` and `-journal` beside its file).
    func files(at path: String) -> [String]

    /// Copies the store at `path` to a new store at `destination` consistently (SQLite
    /// reads its write-ahead log as part of the copy), without changing the source.
    /// Migration works on such a copy.
    func copyStore(at path: String, to destination: String) throws(ObjectGraphError)

    /// Removes every file of the store at `path`; missing files are no error.
    func removeStore(at path: String)

    /// Whether stores of this type are open now: a type in use cannot be unregistered.
    /// Types whose open stores keep working without their registration answer false.
    var isInUse: Bool { get }

    /// Migrates the store at `path`, written with `source`, to `destination` by `mapping`
    /// inside the store itself (SQL in the store's own database, in one transaction), when
    /// the mapping allows it: true when done, false (nothing changed) when the mapping needs
    /// objects and migration goes object by object instead. Afterwards the store records
    /// `versionHashes` and keeps its UUID and other metadata; on error its files are as
    /// they were. Called by automatic migration, one lightweight step at a time, only for
    /// types with `.sqlInPlaceMigration`.
    func migrateInPlace(
        at path: String, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool

    /// The same, with the options the store would be added with. The default ignores them.
    func migrateInPlace(
        at path: String, options: StoreOptions, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool

    /// Several lightweight steps in place, all in one transaction, each recording its
    /// `versionHashes`: true when done, false (nothing changed) when a step needs objects or
    /// the type migrates one step at a time (the default), so that automatic migration
    /// goes step by step on a copy instead.
    func migrateInPlace(at path: String, options: StoreOptions, chain: [InPlaceMigrationStep]) throws(ObjectGraphError) -> Bool

    /// Renames every file of the store at `path` to make it the store at `destination`
    /// (same directory: each rename is atomic), the main file last, replacing what is
    /// there. On failure the error names the reason.
    func moveStore(at path: String, to destination: String) throws(ObjectGraphError)
}

/// What a store type's stores can do beyond fetching and saving rows.
public struct StoreTypeCapabilities: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Its stores live in files, found by path: migration, copying and metadata without a
    /// stack apply to them.
    public static let files = StoreTypeCapabilities(rawValue: 1 << 0)
    /// A store written with another version of the model is migrated when it is added with
    /// `NSMigratePersistentStoresAutomaticallyOption`.
    public static let automaticMigration = StoreTypeCapabilities(rawValue: 1 << 1)
    /// Lightweight migration steps run inside the store's own database, in one
    /// transaction, instead of object by object (`migrateInPlace`).
    public static let sqlInPlaceMigration = StoreTypeCapabilities(rawValue: 1 << 2)
    /// Its files begin with bytes `recognizes(header:)` knows: a file it does not
    /// recognise is not one of its stores.
    public static let recognizableFiles = StoreTypeCapabilities(rawValue: 1 << 5)
    /// It keeps the model that wrote it (`cachedModel(at:)` answers).
    public static let cachedModel = StoreTypeCapabilities(rawValue: 1 << 3)
    /// Fetches are answered by the store's own query language (predicates and sorts it
    /// cannot express are finished in memory); without it, in memory.
    public static let queries = StoreTypeCapabilities(rawValue: 1 << 4)
    /// Batch insert, update and delete requests write to its stores directly, without
    /// objects (`NSBatchInsertRequest` and the others run on SQLite stores only).
    public static let batchRequests = StoreTypeCapabilities(rawValue: 1 << 6)
}

extension PersistentStoreType {
    public var capabilities: StoreTypeCapabilities { [.files] }

    public func recognizes(header: [UInt8]) -> Bool { false }

    public func recognizes(address: String) -> Bool { false }

    public func displayPath(_ path: String) -> String { path }

    public func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        throw ObjectGraphError(
            code: ErrorCode.storeInvalidType, message: "the metadata of a \(name) store cannot be read without adding it ('\(path)')",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    public func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        throw ObjectGraphError(
            code: ErrorCode.storeInvalidType, message: "the metadata of a \(name) store cannot be written without adding it ('\(path)')",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    public func cachedModel(at path: String) throws(ObjectGraphError) -> ManagedObjectModel? { nil }

    public func cachedModel(at path: String, options: StoreOptions) throws(ObjectGraphError) -> ManagedObjectModel? {
        try cachedModel(at: path)
    }

    public func migrateInPlace(
        at path: String, options: StoreOptions, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool {
        try migrateInPlace(at: path, from: source, to: destination, mapping: mapping, versionHashes: versionHashes)
    }

    public func migrateInPlace(at path: String, options: StoreOptions, chain: [InPlaceMigrationStep]) throws(ObjectGraphError) -> Bool { false }

    public func metadata(at path: String, options: StoreOptions) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try metadata(at: path)
    }

    public func setMetadata(_ metadata: [String: PropertyListValue], at path: String, options: StoreOptions) throws(ObjectGraphError) {
        try setMetadata(metadata, at: path)
    }

    public var isInUse: Bool { false }

    public func migrateInPlace(
        at path: String, from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel,
        versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) -> Bool { false }

    public func hasStore(at path: String) -> Bool {
        var info = stat()
        return !path.isEmpty && stat(path, &info) == 0 && info.st_size > 0
    }

    public func hasStore(at path: String, options: StoreOptions) -> Bool { hasStore(at: path) }

    public func files(at path: String) -> [String] { path.isEmpty ? [] : [path] }

    public func copyStore(at path: String, to destination: String) throws(ObjectGraphError) {
        try StoreFiles.copyBytes(of: path, to: destination)
    }

    public func removeStore(at path: String) {
        for file in files(at: path) { unlink(file) }
    }

    public func moveStore(at path: String, to destination: String) throws(ObjectGraphError) {
        let targets = files(at: destination)
        for (file, target) in zip(files(at: path), targets).reversed() where StoreFiles.exists(file) {
            guard rename(file, target) == 0 else {
                throw ObjectGraphError(
                    code: ErrorCode.storeOperation, message: "cannot move the store '\(path)' to '\(destination)': \(String(cString: strerror(errno)))",
                    userInfo: [(ErrorUserInfoKey.filePath, destination)])
            }
        }
    }
}

/// One step of a chain of lightweight migrations run in place (`migrateInPlace(at:options:chain:)`):
/// the models on either side, the mapping between them, and the version hashes the store
/// records when the step is done.
public struct InPlaceMigrationStep {
    public let source: ManagedObjectModel
    public let destination: ManagedObjectModel
    public let mapping: MappingModel
    public let versionHashes: [String: PropertyListValue]

    public init(source: ManagedObjectModel, destination: ManagedObjectModel, mapping: MappingModel, versionHashes: [String: PropertyListValue]) {
        self.source = source
        self.destination = destination
        self.mapping = mapping
        self.versionHashes = versionHashes
    }
}
