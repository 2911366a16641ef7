import Synchronization

/// A store type whose stores are instances of an `IncrementalStore` subclass
/// (`registerStoreClass:forStoreType:`). Its path is whatever the subclass makes of it (a
/// URL, a file, a name): the engine copies, moves and migrates none of its files.
///
///     try StoreTypes.register(IncrementalStoreType(name: "CSV", storeClass: CSVStore.self), replacing: false)
///     let store = try coordinator.addPersistentStore(type: "CSV", path: "people.csv")
public final class IncrementalStoreType: PersistentStoreType, @unchecked Sendable {
    public let name: String
    private let make: (StoreSetup) throws(ObjectGraphError) -> IncrementalStore
    /// The stores of this type that are open: a type in use cannot be unregistered.
    private let openStores = Atomic<Int>(0)

    /// Stores of `storeClass`, made with `init(setup:type:)`.
    public convenience init(name: String, storeClass: IncrementalStore.Type) {
        self.init(name: name) { setup in storeClass.init(setup: setup, type: name) }
    }

    /// Stores made by `make` (which gets the setup; the type's name is `name`).
    public init(name: String, make: @escaping (StoreSetup) throws(ObjectGraphError) -> IncrementalStore) {
        self.name = name
        self.make = make
    }

    public var capabilities: StoreTypeCapabilities { [] }

    public var isInUse: Bool { openStores.load(ordering: .relaxed) > 0 }

    public func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        let store = try make(setup)
        guard store.registeredType == name else {
            throw ObjectGraphError(code: ErrorCode.storeTypeMismatch, message: "the store type '\(name)' made a store of type '\(store.registeredType)'")
        }
        try store.open()
        openStores.add(1, ordering: .relaxed)
        store.onClose = { [weak self] in self?.openStores.subtract(1, ordering: .relaxed) }
        return store
    }

    public func hasStore(at path: String) -> Bool { false }
    public func files(at path: String) -> [String] { [] }
    public func removeStore(at path: String) {}
}
