import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Connects contexts to stores: owns the (frozen) model and the stores, and serialises
/// every store operation, so contexts on different threads can share it. With several
/// stores it routes: fetches to every store whose configuration holds the entity, faults
/// and relationships to the object's own store, new objects to their assigned store
/// (`StoreRouting.swift`).
public final class PersistentStoreCoordinator: @unchecked Sendable {
    public let managedObjectModel: ManagedObjectModel
    let lock = RecursiveLock()
    /// The attached stores, in the order they were added.
    var attached: [AttachedStore] = [] {
        didSet {
            objectLevelStoreCount.store(attached.count { $0.store is ObjectLevelStore }, ordering: .relaxed)
            syncCommitWatches()
        }
    }
    /// How many attached stores are `ObjectLevelStore`s: read without the lock, so that
    /// saves and relationship faults of every other coordinator skip asking them.
    let objectLevelStoreCount = Atomic<Int>(0)
    /// The next store slot; slots are never reused, so a context's registration keys
    /// never confuse a removed store with a later one.
    private var nextSlot: Int32 = 0
    /// The newest rows the coordinator saw (optimistic locking, staleness); under `lock`.
    var rowCache = RowCache()
    /// A number unique in the process, naming this coordinator in saved changes.
    let serial = PersistentStoreCoordinator.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<Int>(0)
    /// Root contexts that merge the saves of the others automatically.
    let autoMergingContexts = WeakSet<AnyObject>()
    /// Live contexts whose store is this coordinator (not those whose store is a parent):
    /// while a saving context is the only one and the row cache is empty, no context holds
    /// a row the save could make stale, and recording its rows would cost it for nothing.
    let rootContexts = Atomic<Int>(0)

    /// One attached store and what the coordinator knows of it.
    struct AttachedStore {
        let store: PersistentStore
        /// A small number naming the store in contexts' registration keys.
        let slot: Int32
        let configuration: String?
        /// The configuration's entities; nil for the default configuration (every entity).
        let members: Set<ObjectIdentifier>?
        var options: [String: PropertyListValue]
        var readOnly: Bool
        /// The UUIDs of the stores this one replaced (`migratePersistentStore`): object IDs
        /// made before the copy still reach their rows through it.
        var formerIdentifiers: [String] = []

        /// Whether an object ID's store UUID names this store.
        func answers(to identifier: String?) -> Bool {
            guard let identifier else { return false }
            return store.identifier == identifier || formerIdentifiers.contains(identifier)
        }

        func holds(_ entity: EntityDescription) -> Bool { members?.contains(ObjectIdentifier(entity)) ?? true }
        /// The shared form of the store's UUID (see `StoreRef.name`).
        let names = StoreNameCache()
        var ref: StoreRef { StoreRef(slot: slot, name: names.name(for: store.identifier)) }
    }

    /// The attached stores, in the order they were added (`persistentStores`).
    public var persistentStores: [PersistentStore] { lock.withLock { attached.map(\.store) } }

    /// Other versions of the model, where automatic migration looks for the model a store
    /// was written with when the store keeps none (Core Data's bundle search). Under `lock`.
    var modelVersionsValue: [ManagedObjectModel] = []
    /// Mapping models automatic migration may use. Under `lock`.
    var mappingModelsValue: [MappingModel] = []

    /// Validates the model and makes it immutable. `models` and `mappings` play the part
    /// of Apple's bundle search for automatic migration: older versions of the model,
    /// and mapping models between versions.
    public init(model: ManagedObjectModel, models: [ManagedObjectModel] = [], mappings: [MappingModel] = []) throws(ObjectGraphError) {
        try model.freeze()
        self.managedObjectModel = model
        self.modelVersionsValue = models
        self.mappingModelsValue = mappings
    }

    /// The other model versions automatic migration may take a store's source model from.
    public var modelVersions: [ManagedObjectModel] {
        get { lock.withLock { modelVersionsValue } }
        set { lock.withLock { modelVersionsValue = newValue } }
    }

    /// The mapping models automatic migration may use.
    public var mappingModels: [MappingModel] {
        get { lock.withLock { mappingModelsValue } }
        set { lock.withLock { mappingModelsValue = newValue } }
    }

    /// Remote-change observers and the watches of the stores that post to them.
    let remoteChanges = RemoteChangeCenter()

    deinit {
        remoteChanges.stopAll()
        for record in attached { record.store.close() }
    }

    /// Adds a store of `type` at `path`, created when missing and opened when present.
    @discardableResult
    public func addPersistentStore(type: String, path: String, readOnly: Bool = false) throws(ObjectGraphError) -> PersistentStore {
        try addPersistentStore(type: type, configuration: nil, path: path, options: readOnly ? [StoreOptionKey.readOnly: .boolean(true)] : [:])
    }

    /// Adds a store (`addPersistentStoreWithType:configuration:URL:options:error:`) holding
    /// the entities of `configuration` (nil: the default configuration, every entity),
    /// with `options` (`StoreOptionKey`; unknown keys are kept but ignored).
    /// Errors: 134000 for an unknown type; 140002 for a configuration the model lacks, for
    /// mixing the default configuration with named ones (§2.19), or for a bad option
    /// value; 134080 when a store with the same UUID is attached already; and the
    /// store's own errors on opening (134100 for other version hashes, ...).
    @discardableResult
    public func addPersistentStore(type: String, configuration: String?, path: String, options: [String: PropertyListValue] = [:])
        throws(ObjectGraphError) -> PersistentStore
    {
        try lock.withLock { () throws(ObjectGraphError) -> PersistentStore in
            let setup = try checkedSetup(type: type, configuration: configuration, path: path, options: options, replacing: nil)
            // A read-only store is never rewritten: opened with other hashes it fails (134100).
            let parsed = setup.parsedOptions
            if parsed.migrateAutomatically && !parsed.readOnly { try migrateIfNeeded(type: type, setup: setup) }
            let store = try makeStore(type: type, setup: setup)
            return try attach(store, setup: setup, slot: nil)
        }
    }

    /// Checks what a new store would be added with, and returns its setup.
    func checkedSetup(type: String, configuration: String?, path: String, options: [String: PropertyListValue], replacing: PersistentStore?)
        throws(ObjectGraphError) -> StoreSetup
    {
        _ = try StoreTypes.require(type)
        if let configuration, managedObjectModel.entities(forConfiguration: configuration) == nil {
            let known = managedObjectModel.configurations.map { "'\($0)'" }.joined(separator: ", ")
            throw .invalidArgument("the model has no configuration '\(configuration)'\(known.isEmpty ? " (it has none)" : "; its configurations: \(known)")")
        }
        // §2.19 rule 2: the default configuration excludes every other one.
        for record in attached where record.store !== replacing {
            if configuration == nil, let other = record.configuration {
                throw .invalidArgument("a store of the default configuration cannot join a coordinator that has a store of configuration '\(other)' ('\(record.store.path)')")
            }
            if let configuration, record.configuration == nil {
                throw .invalidArgument("a store of configuration '\(configuration)' cannot join a coordinator that has a store of the default configuration ('\(record.store.path)')")
            }
        }
        _ = try StoreOptions(options)
        return StoreSetup(path: path, model: managedObjectModel, configurationName: configuration, options: options)
    }

    func makeStore(type: String, setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        try StoreTypes.require(type).makeStore(setup)
    }

    /// Attaches a store made from `setup`, in slot `slot` (a fresh one when nil).
    func attach(_ store: PersistentStore, setup: StoreSetup, slot: Int32?) throws(ObjectGraphError) -> PersistentStore {
        if let twin = attached.first(where: { $0.store.identifier == store.identifier && $0.slot != slot }) {
            store.close()
            throw ObjectGraphError(
                code: ErrorCode.storeOpen,
                message: "the store '\(setup.path)' has the UUID \(store.identifier) of the attached store '\(twin.store.path)' (a copy of it?); object IDs could not tell them apart",
                userInfo: [(ErrorUserInfoKey.filePath, setup.path)])
        }
        let members = setup.configurationName == nil ? nil : Set(setup.entities.map { ObjectIdentifier($0) })
        let options = (try? StoreOptions(setup.options)) ?? StoreOptions()
        let record = AttachedStore(
            store: store, slot: slot ?? nextSlot, configuration: setup.configurationName, members: members,
            options: setup.options, readOnly: options.readOnly)
        if let slot, let i = attached.firstIndex(where: { $0.slot == slot }) {
            var replacement = record
            replacement.formerIdentifiers = attached[i].formerIdentifiers + [attached[i].store.identifier]
            attached[i] = replacement
        } else {
            nextSlot += 1
            attached.append(record)
        }
        return store
    }

    /// Detaches `store` (`removePersistentStore:error:`) and closes it. Objects already
    /// fetched from it stay in their contexts, but their faults can no longer fire and
    /// their changes cannot be saved.
    public func removePersistentStore(_ store: PersistentStore) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            guard let index = attached.firstIndex(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            rowCache.removeAll(store: attached[index].slot)
            attached.remove(at: index)
            store.close()
        }
    }

    /// Whether saving to `store` is refused.
    public func isReadOnly(_ store: PersistentStore) -> Bool {
        lock.withLock { attached.first { $0.store === store }?.readOnly ?? false }
    }

    /// Makes `store` read-only or writable (`setReadOnly:`): a save that would write to a
    /// read-only store fails with 134070 and writes nothing.
    public func setReadOnly(_ flag: Bool, for store: PersistentStore) {
        lock.withLock {
            if let i = attached.firstIndex(where: { $0.store === store }) { attached[i].readOnly = flag }
        }
    }

    /// The store attached with identifier (`NSStoreUUID`) `identifier`, or nil.
    public func persistentStore(withIdentifier identifier: String) -> PersistentStore? {
        lock.withLock { attached.first { $0.store.identifier == identifier }?.store }
    }

    /// Makes a store of one type: from its path and the coordinator's model.
    public typealias StoreFactory = (_ path: String, _ model: ManagedObjectModel) throws(ObjectGraphError) -> PersistentStore
    /// Makes a store of one type from everything it is added with (configuration, options).
    public typealias StoreSetupFactory = PersistentStoreFactory

    /// The registered store types, in name order (`registeredStoreTypes`).
    public static var registeredStoreTypes: [String] { StoreTypes.names }

    /// Registers `factory` under `type` (`registerStoreClass:forStoreType:`); nil unregisters it.
    /// A type must be registered before a store of it can be added. Such a store is told
    /// its configuration and options after it is made (atomic stores record them);
    /// `makeStore:` factories receive them before. Built-in types cannot be replaced.
    public static func registerStoreType(_ type: String, factory: StoreFactory?) {
        guard let factory else { return registerStoreType(type, makeStore: nil) }
        registerStoreType(type, makeStore: { (setup) throws(ObjectGraphError) in
            let store = try factory(setup.path, setup.model)
            store.adopt(configurationName: setup.configurationName, options: setup.options)
            return store
        })
    }

    /// Registers a factory that receives the store's whole setup; nil unregisters the type.
    /// Built-in types cannot be replaced or unregistered (nothing changes).
    public static func registerStoreType(_ type: String, makeStore: StoreSetupFactory?) {
        if let makeStore {
            try? StoreTypes.register(FactoryStoreType(name: type, make: makeStore))
        } else {
            try? StoreTypes.unregister(type)
        }
    }

    func entity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let e = managedObjectModel.entity(named: name) else { throw .unknownEntity(name) }
        return e
    }

    /// Rows by primary key from one attached store (batch faulting and prefetching).
    func fetchRows(entity: EntityDescription, primaryKeys: [Int64], in store: StoreRef) throws(ObjectGraphError) -> [RowSnapshot] {
        try lock.withLock { () throws(ObjectGraphError) in
            try attachedStore(store).store.fetchRows(entity: entity, primaryKeys: primaryKeys)
        }
    }

    /// The members of a to-many relationship for many owners of one store (prefetching).
    func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription, in store: StoreRef) throws(ObjectGraphError) -> MemberRows {
        try lock.withLock { () throws(ObjectGraphError) in
            try attachedStore(store).store.fetchMembers(ofAny: owners, through: relationship)
        }
    }

    private func attachedStore(_ ref: StoreRef) throws(ObjectGraphError) -> AttachedStore {
        // Slots are never reused: the slot alone names the store, even after a copy took its place.
        guard let record = attached.first(where: { $0.slot == ref.slot }) else {
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(ref.identifier)' is no longer attached to this coordinator")
        }
        return record
    }
}

