import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A store as contexts name it: its slot (a small number in registration keys) and its
/// UUID (in object IDs). Resolved once per fetch, not per row.
struct StoreRef: Equatable {
    let slot: Int32
    /// The UUID, shared: a fetched object keeps it for its ID in one word, not a string's two.
    let name: StoreName
    var identifier: String { name.identifier }

    init(slot: Int32, name: StoreName) {
        self.slot = slot
        self.name = name
    }

    init(slot: Int32, identifier: String) {
        self.init(slot: slot, name: StoreName(identifier))
    }

    static func == (a: StoreRef, b: StoreRef) -> Bool { a.slot == b.slot && a.identifier == b.identifier }
}

/// A store's UUID as one shared object: each attached store hands out the same one while its
/// UUID stays (`AttachedStore.ref`), so the objects fetched from it share it.
final class StoreName: Sendable {
    let identifier: String
    init(_ identifier: String) { self.identifier = identifier }
}

/// The `StoreName` an attached store hands out, made again only when the store's UUID changes
/// (a store may take a new one through its metadata).
final class StoreNameCache: Sendable {
    private let last = Mutex<StoreName?>(nil)

    func name(for identifier: String) -> StoreName {
        last.withLock { last in
            if let known = last, known.identifier == identifier { return known }
            let made = StoreName(identifier)
            last = made
            return made
        }
    }
}

/// Which store answers what (§1.13): a fetch goes to every store whose configuration holds
/// the entity (or the request's `affectedStores`); a fault, a relationship and a count of
/// an object's members go to the object's own store (the UUID in its ID); a new object
/// goes to its assigned store or the first writable store that holds its entity (§2.4).
extension PersistentStoreCoordinator {
    /// The store named by `identifier` (an object ID's store UUID), if attached.
    func storeRef(forIdentifier identifier: String?) -> StoreRef? {
        guard let identifier else { return nil }
        return lock.withLock { attached.first { $0.answers(to: identifier) }?.ref }
    }

    /// The store of a permanent ID; 134070 when it is not attached (removed, or another coordinator's).
    func record(for id: ManagedObjectID) throws(ObjectGraphError) -> AttachedStore {
        guard id.entity.model === managedObjectModel else {
            throw .invalidArgument("entity '\(id.entity.name)' belongs to another model than this coordinator's; object IDs cannot move between coordinators of different models")
        }
        guard let record = attached.first(where: { $0.answers(to: id.storeIdentifier) }) else {
            throw ObjectGraphError(
                code: ErrorCode.storeOperation,
                message: "the store of \(id.uriRepresentation) is not attached to this coordinator (it was removed, or the ID comes from another stack)")
        }
        return record
    }

    /// The stores a fetch of `entity` reads: those whose configuration holds the entity (or,
    /// with subentities, one of its descendants), limited to `request.affectedStores` when set.
    func fetchStores(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [AttachedStore] {
        guard entity.model === managedObjectModel else {
            throw .invalidArgument("entity '\(entity.name)' belongs to another model than this coordinator's")
        }
        return try lock.withLock { () throws(ObjectGraphError) -> [AttachedStore] in
            guard !attached.isEmpty else {
                throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the coordinator has no persistent store: add one before fetching or saving")
            }
            var candidates = attached
            if let wanted = request.affectedStores, !wanted.isEmpty {
                for store in wanted where !attached.contains(where: { $0.store === store }) {
                    throw .invalidArgument("the fetch request's affected store '\(store.path)' is not attached to this coordinator")
                }
                candidates = attached.filter { record in wanted.contains { $0 === record.store } }
            }
            if candidates.allSatisfy({ $0.members == nil }) { return candidates }
            let fetched = request.includesSubentities ? entity.selfAndDescendants : [entity]
            return candidates.filter { record in record.members == nil || fetched.contains { record.holds($0) } }
        }
    }

    func fetchRows(_ request: FetchRequest, entity: EntityDescription, from record: AttachedStore) throws(ObjectGraphError) -> StoreFetchResult {
        try lock.withLock { () throws(ObjectGraphError) in try record.store.fetchRows(request, entity: entity) }
    }

    func explainFetch(_ request: FetchRequest, entity: EntityDescription, from record: AttachedStore) throws(ObjectGraphError) -> StoreFetchExplanation {
        try lock.withLock { () throws(ObjectGraphError) in try record.store.explainFetch(request, entity: entity) }
    }

    func countRows(_ request: FetchRequest, entity: EntityDescription, from record: AttachedStore) throws(ObjectGraphError) -> Int? {
        try lock.withLock { () throws(ObjectGraphError) in try record.store.countRows(request, entity: entity) }
    }

    /// The row of `id`, from the row cache when it is younger than `staleness` seconds
    /// (negative: any age; 0: never), else from the store, which then refreshes the cache.
    func fetchRow(_ id: ManagedObjectID, staleness: Double = 0) throws(ObjectGraphError) -> RowSnapshot? {
        try lock.withLock { () throws(ObjectGraphError) in
            let record = try record(for: id)
            let key = RowCache.key(id.entity, id.primaryKey, record.ref)
            if staleness != 0, let entry = rowCache.entry(key), let row = entry.row, row.entity.isKind(of: id.entity),
                staleness < 0 || RowCache.now() - entry.time <= staleness
            {
                return row
            }
            let row = try record.store.fetchRow(entity: id.entity, primaryKey: id.primaryKey)
            if let row { rowCache.record(key, row: row, version: row.version) }
            return row
        }
    }

    func fetchMembers(of id: ManagedObjectID, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try lock.withLock { () throws(ObjectGraphError) in
            try record(for: id).store.fetchMembers(of: id.primaryKey, through: relationship)
        }
    }

    /// Whether an attached store answers in terms of objects (`ObjectLevelStore`).
    var hasObjectLevelStores: Bool { objectLevelStoreCount.load(ordering: .relaxed) > 0 }

    /// The members of `id`'s to-many `relationship` as identities, when its store is an
    /// `ObjectLevelStore`; nil for a store that answers with rows.
    func memberKeys(of id: ManagedObjectID, through relationship: RelationshipDescription) throws(ObjectGraphError)
        -> [(entity: EntityDescription, primaryKey: Int64)]?
    {
        try lock.withLock { () throws(ObjectGraphError) in
            try (record(for: id).store as? ObjectLevelStore)?.memberKeys(of: id.primaryKey, through: relationship)
        }
    }

    func fetchRows(pointingAt id: ManagedObjectID, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try lock.withLock { () throws(ObjectGraphError) in
            try record(for: id).store.fetchRows(pointingAt: id.primaryKey, through: inverse)
        }
    }

    // MARK: Assignment

    /// The store a new object of `entity` is saved to: `assigned` when given (it must be
    /// attached and hold the entity), else the first writable store holding the entity,
    /// else the first holding it. None holds it: 134020.
    func storeForNewObject(_ entity: EntityDescription, assigned: PersistentStore?) throws(ObjectGraphError) -> AttachedStore {
        try lock.withLock { () throws(ObjectGraphError) -> AttachedStore in
            if let assigned {
                guard let record = attached.first(where: { $0.store === assigned }) else {
                    throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(assigned.path)' an object of '\(entity.name)' was assigned to is no longer attached")
                }
                return record
            }
            let holding = attached.filter { $0.holds(entity) }
            guard let record = holding.first(where: { !$0.readOnly }) ?? holding.first else {
                if attached.isEmpty {
                    throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the coordinator has no persistent store: add one before fetching or saving")
                }
                throw ObjectGraphError(
                    code: ErrorCode.storeIncompatibleSchema,
                    message: "no attached store holds entity '\(entity.name)': the configurations of the stores do not include it",
                    userInfo: [(ErrorUserInfoKey.entity, entity.name)])
            }
            return record
        }
    }

    /// Checks that `store` can take a new object of `entity` (`assignObject:toPersistentStore:`).
    func checkAssignable(_ entity: EntityDescription, to store: PersistentStore) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            guard let record = attached.first(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this context's coordinator")
            }
            guard record.holds(entity) else {
                throw .invalidArgument("the store '\(store.path)' (configuration '\(record.configuration ?? "")') does not hold entity '\(entity.name)'")
            }
        }
    }

    // MARK: Saving

    /// Runs `body` with one open transaction per store of `records` (in that order). Every
    /// transaction is open before `body` runs, and they commit one after another once it
    /// returns; anything that fails before the first commit rolls every store back.
    /// `afterCommit` runs once everything committed, still under the coordinator's lock (it
    /// updates the row cache before any other save can check against it).
    func save(_ records: [AttachedStore], afterCommit: () -> Void = {}, _ body: ([StoreSaveTransaction]) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            for record in records {
                guard let current = attached.first(where: { $0.store === record.store }) else {
                    throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(record.store.path)' is no longer attached: the save was refused and nothing was written")
                }
                if current.readOnly {
                    throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the store '\(record.store.path)' is read-only: the save was refused and nothing was written")
                }
            }
            try nest(records[...], [], body)
            afterCommit()
        }
    }

    /// Opens the first store's transaction and, inside it, the rest; the innermost runs `body`.
    private func nest(_ rest: ArraySlice<AttachedStore>, _ open: [StoreSaveTransaction],
                      _ body: ([StoreSaveTransaction]) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        guard let first = rest.first else { return try body(open) }
        try first.store.save { tx throws(ObjectGraphError) in try nest(rest.dropFirst(), open + [tx], body) }
    }
}

/// Finding and moving stores, and their metadata (§1.13).
extension PersistentStoreCoordinator {
    /// The attached store at `path` (`persistentStoreForURL:`), or nil.
    public func persistentStore(for path: String) -> PersistentStore? {
        lock.withLock {
            attached.first { $0.store.path == path }?.store
                ?? attached.first { !$0.store.path.isEmpty && Self.samePath($0.store.path, path) }?.store
        }
    }

    /// The path of an attached store (`URLForPersistentStore:`).
    public func path(for store: PersistentStore) throws(ObjectGraphError) -> String {
        try lock.withLock { () throws(ObjectGraphError) -> String in
            guard attached.contains(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            return store.path
        }
    }

    /// Moves a store (`setURL:forPersistentStore:`). An atomic store (and the in-memory
    /// store, whose path is only a name) writes its next save at `path`. An SQLite store
    /// closes and reopens at `path`, where the same store (same UUID) must already be;
    /// on failure it stays where it was.
    public func setPath(_ path: String, for store: PersistentStore) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            guard attached.contains(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            try store.move(to: path)
        }
    }

    /// The metadata of an attached store, as stored or as it will be at the next save
    /// (`metadataForPersistentStore:`).
    public func metadata(for store: PersistentStore) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try lock.withLock { () throws(ObjectGraphError) -> [String: PropertyListValue] in
            guard attached.contains(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            return store.metadata
        }
    }

    /// Sets the metadata written at the store's next save (`setMetadata:forPersistentStore:`).
    /// `NSStoreType` and `NSStoreUUID` are kept. A different `NSStoreUUID` is refused
    /// (140002): the IDs of the store's objects carry it; change a file's UUID with
    /// `setMetadata(_:forPersistentStoreOfType:at:)` while it is not attached.
    public func setMetadata(_ metadata: [String: PropertyListValue], for store: PersistentStore) throws(ObjectGraphError) {
        try lock.withLock { () throws(ObjectGraphError) in
            guard attached.contains(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            if let uuid = metadata[StoreMetadataKey.storeUUID], uuid != .string(store.identifier) {
                throw .invalidArgument("the UUID of the attached store '\(store.path)' cannot change: its object IDs carry it")
            }
            try store.setMetadata(metadata)
        }
    }

    static func samePath(_ a: String, _ b: String) -> Bool {
        guard let x = realpath(a, nil) else { return false }
        defer { free(x) }
        guard let y = realpath(b, nil) else { return false }
        defer { free(y) }
        return strcmp(x, y) == 0
    }

    /// The attached, writable stores that take saves as requests (`ObjectLevelStore`):
    /// every save of a root context sends each of them one.
    func objectLevelStores() -> [AttachedStore] {
        guard hasObjectLevelStores else { return [] }
        return lock.withLock { attached.filter { !$0.readOnly && $0.store is ObjectLevelStore } }
    }
}
