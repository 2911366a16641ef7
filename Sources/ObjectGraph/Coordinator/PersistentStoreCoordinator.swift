import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Connects contexts to stores: owns the (frozen) model and the stores, and serialises
/// every store operation, so contexts on different threads can share it.
public final class PersistentStoreCoordinator: @unchecked Sendable {
    public let managedObjectModel: ManagedObjectModel
    public private(set) var persistentStores: [PersistentStore] = []
    private let lock = RecursiveLock()
    /// Stores added or marked read-only (`NSReadOnlyPersistentStoreOption`, `setReadOnly:`).
    private var readOnlyStores = Set<ObjectIdentifier>()

    /// Validates the model and makes it immutable.
    public init(model: ManagedObjectModel) throws(ObjectGraphError) {
        try model.freeze()
        self.managedObjectModel = model
    }

    deinit {
        for store in persistentStores { store.close() }
    }

    /// Adds a store of `type` at `path`, created when missing and opened when present.
    @discardableResult
    public func addPersistentStore(type: String, path: String, readOnly: Bool = false) throws(ObjectGraphError) -> PersistentStore {
        try lock.withLock { () throws(ObjectGraphError) -> PersistentStore in
            guard let factory = Self.factory(for: type) else {
                let known = Self.registeredStoreTypes.joined(separator: ", ")
                throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "unknown store type '\(type)'; known types: \(known)")
            }
            let store = try factory(path, managedObjectModel)
            persistentStores.append(store)
            if readOnly { readOnlyStores.insert(ObjectIdentifier(store)) }
            return store
        }
    }

    /// Detaches `store` (`removePersistentStore:error:`) and closes it. Objects already
    /// fetched from it stay in their contexts, but their faults can no longer fire and
    /// their changes cannot be saved.
    public func removePersistentStore(_ store: PersistentStore) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            guard let index = persistentStores.firstIndex(where: { $0 === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            persistentStores.remove(at: index)
            readOnlyStores.remove(ObjectIdentifier(store))
            store.close()
        }
    }

    /// Whether saving to `store` is refused.
    public func isReadOnly(_ store: PersistentStore) -> Bool {
        lock.withLock { readOnlyStores.contains(ObjectIdentifier(store)) }
    }

    /// Makes `store` read-only or writable (`setReadOnly:`): a save that would write to a
    /// read-only store fails with 134070 and writes nothing.
    public func setReadOnly(_ flag: Bool, for store: PersistentStore) {
        lock.withLock {
            if flag { readOnlyStores.insert(ObjectIdentifier(store)) } else { readOnlyStores.remove(ObjectIdentifier(store)) }
        }
    }

    /// The store attached with identifier (`NSStoreUUID`) `identifier`, or nil.
    public func persistentStore(withIdentifier identifier: String) -> PersistentStore? {
        lock.withLock { persistentStores.first { $0.identifier == identifier } }
    }

    /// Makes a store of one type: from its path and the coordinator's model.
    public typealias StoreFactory = (_ path: String, _ model: ManagedObjectModel) throws(ObjectGraphError) -> PersistentStore

    private static let registryLock = RecursiveLock()
    nonisolated(unsafe) private static var registry: [String: StoreFactory] = [
        StoreType.sqlite: { (path, model) throws(ObjectGraphError) in
            guard !path.isEmpty else { throw .invalidArgument("an SQLite store needs the path of its file") }
            return try SQLiteStore(path: path, model: model)
        },
        StoreType.inMemory: { (path, model) throws(ObjectGraphError) in InMemoryStore(path: path, model: model) },
        StoreType.binary: { (path, model) throws(ObjectGraphError) in try BinaryStore(path: path, model: model) },
    ]

    /// The registered store types, in name order (`registeredStoreTypes`).
    public static var registeredStoreTypes: [String] {
        registryLock.withLock { registry.keys.sorted() }
    }

    /// Registers `factory` under `type` (`registerStoreClass:forStoreType:`); nil unregisters it.
    /// A type must be registered before a store of it can be added.
    public static func registerStoreType(_ type: String, factory: StoreFactory?) {
        registryLock.withLock { registry[type] = factory }
    }

    static func factory(for type: String) -> StoreFactory? {
        registryLock.withLock { registry[type] }
    }

    /// The store that holds objects of `entity` (the first store, while there is one store per coordinator).
    func store(for entity: EntityDescription) throws(ObjectGraphError) -> PersistentStore {
        guard let store = persistentStores.first else {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the coordinator has no persistent store: add one before fetching or saving")
        }
        return store
    }

    func entity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let e = managedObjectModel.entity(named: name) else { throw .unknownEntity(name) }
        return e
    }

    func withStore<T>(for entity: EntityDescription, _ body: (PersistentStore) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        // Stores map only this model's entities; an ID or entity of another model is refused here.
        guard entity.model === managedObjectModel else {
            throw .invalidArgument("entity '\(entity.name)' belongs to another model than this coordinator's; object IDs cannot move between coordinators of different models")
        }
        return try lock.withLock { () throws(ObjectGraphError) -> T in try body(try store(for: entity)) }
    }

    func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.fetchRows(request, entity: entity) }
    }

    func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.countRows(request, entity: entity) }
    }

    func fetchRow(_ id: ManagedObjectID) throws(ObjectGraphError) -> RowSnapshot? {
        try withStore(for: id.entity) { s throws(ObjectGraphError) in try s.fetchRow(entity: id.entity, primaryKey: id.primaryKey) }
    }

    func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot] {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.fetchRows(entity: entity, primaryKeys: primaryKeys) }
    }

    func fetchMembers(ofAny owners: [Int64], of entity: EntityDescription, through relationship: RelationshipDescription) throws(ObjectGraphError)
        -> [(owner: Int64, row: RowSnapshot)]
    {
        try withStore(for: entity) { s throws(ObjectGraphError) in try s.fetchMembers(ofAny: owners, through: relationship) }
    }

    func fetchMembers(of id: ManagedObjectID, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try withStore(for: id.entity) { s throws(ObjectGraphError) in try s.fetchMembers(of: id.primaryKey, through: relationship) }
    }

    func fetchRows(pointingAt id: ManagedObjectID, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try withStore(for: id.entity) { s throws(ObjectGraphError) in try s.fetchRows(pointingAt: id.primaryKey, through: inverse) }
    }

    func save(entity: EntityDescription, _ body: (PersistentStore, StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        try withStore(for: entity) { store throws(ObjectGraphError) in
            if readOnlyStores.contains(ObjectIdentifier(store)) {
                throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(store.path)' is read-only: the save was refused and nothing was written")
            }
            try store.save { tx throws(ObjectGraphError) in try body(store, tx) }
        }
    }
}

/// A re-entrant lock on pthreads (NSRecursiveLock is not in FoundationEssentials).
final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
