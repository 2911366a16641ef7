import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One record of an atomic store (`NSAtomicStoreCacheNode`): its entity, reference
/// object (the primary key, unique in the entity's hierarchy), version, one value per
/// slot of the entity (a to-one holds the destination's key, to-many slots `.null`),
/// and the member keys of to-many relationships kept as lists (many-to-many,
/// inverse-less and ordered ones; a to-many with a to-one inverse is known from its
/// members' to-one values).
public final class AtomicStoreCacheNode {
    public let entity: EntityDescription
    public let referenceObject: Int64
    public var version: Int64
    public var values: [AttributeValue]
    public var members: [String: [Int64]]

    public init(entity: EntityDescription, referenceObject: Int64, version: Int64 = 1, values: [AttributeValue]? = nil, members: [String: [Int64]] = [:]) {
        self.entity = entity
        self.referenceObject = referenceObject
        self.version = version
        self.values = values ?? entity.layout.defaults
        self.members = members
    }

    /// The value of the attribute or to-one `key` (a to-one as the destination's key).
    public func value(forKey key: String) -> AttributeValue? {
        guard let slot = entity.layout.slotByName[key], slot < values.count else { return nil }
        return values[slot]
    }

    /// Sets the attribute or to-one `key`; false when the entity has no such property.
    @discardableResult
    public func setValue(_ value: AttributeValue, forKey key: String) -> Bool {
        guard let slot = entity.layout.slotByName[key], slot < values.count else { return false }
        values[slot] = value
        return true
    }
}

/// The base of stores that hold their whole data set in memory and read and write it as
/// a whole (`NSAtomicStore`). A subclass overrides `load()` (read the file, then
/// `addCacheNodes` and `metadata`) and `save()` (write `cacheNodes` and `metadata`);
/// it may override `newReferenceObjects(for:count:)` and `willRemove(_:)`. Fetches run
/// in memory. A save applies the context's changes to the nodes and then calls `save()`;
/// when that throws, the nodes are as they were before.
///
/// Several processes (or stores) may share one file: each holds the data set it read, so
/// a save must not replace a file another writer saved since. The Binary store's own
/// file I/O checks this (see `BinaryStore`) and its `save()` then throws 134050
/// (`NSPersistentStoreSaveConflictsError`). Only there does the library know the file's
/// identity: a subclass that reads and writes the file itself, or a callback store whose
/// callbacks keep the document, must check on its own, and may throw 134050 from
/// `save()` (a C save callback returns 2), which this save path passes on unchanged with
/// the nodes restored.
open class AtomicStore: PersistentStore, KeyCounterReading, @unchecked Sendable {
    public let type: String
    /// Where the next save writes (`setURL:forPersistentStore:` moves it).
    public internal(set) var path: String {
        // A store moved elsewhere takes over what is there at its next save.
        didSet { knownDocument = nil }
    }
    public let model: ManagedObjectModel
    public var identifier: String
    /// The metadata saved with the data; `NSStoreType` and `NSStoreUUID` are kept in it.
    public var metadata: [String: PropertyListValue]
    public internal(set) var configurationName: String?
    public internal(set) var options: [String: PropertyListValue]
    let setup: StoreSetup
    var state = MemoryRows()
    /// The document at `path` as this store last read or wrote it, for the Binary store's
    /// own file (`BinaryStore.readDocument`, `writeDocument`): a save is refused (134050)
    /// when the file no longer holds it. `.empty` for a store that found no file; nil once
    /// the store has moved (`path` set), when its next save takes over whatever is there.
    var knownDocument: DocumentDigest? = .empty

    /// Opens the store at `path`: a missing or empty file means a new store; otherwise
    /// `load()` reads it. The model must match the version hashes the metadata records.
    public init(type: String, path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        let setup = StoreSetup(path: path, model: model)
        (self.type, self.path, self.model, self.setup) = (type, path, model, setup)
        (self.configurationName, self.options) = (nil, [:])
        self.identifier = UUID().uuidString
        self.metadata = [:]
        try openStoredData()
    }

    /// Opens the store `setup` describes. It holds only its configuration's entities:
    /// their version hashes are checked (unless versioning is ignored) and records of
    /// other entities are refused when loading.
    public init(type: String, setup: StoreSetup) throws(ObjectGraphError) {
        (self.type, self.path, self.model, self.setup) = (type, setup.path, setup.model, setup)
        (self.configurationName, self.options) = (setup.configurationName, setup.options)
        self.identifier = setup.identifier ?? UUID().uuidString
        self.metadata = [:]
        try openStoredData()
    }

    private func openStoredData() throws(ObjectGraphError) {
        metadata = freshMetadata()
        for (key, value) in setup.initialMetadata where metadata[key] == nil { metadata[key] = value }
        if hasStoredData() {
            try load()
            if let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue { identifier = uuid }
            metadata[StoreMetadataKey.storeType] = .string(type)
            metadata[StoreMetadataKey.storeUUID] = .string(identifier)
            try checkVersionHashes()
            try checkConfiguration()
        }
    }

    /// Metadata of a new store: type, UUID and the version hashes of its entities.
    public func freshMetadata() -> [String: PropertyListValue] {
        [
            StoreMetadataKey.storeType: .string(type),
            StoreMetadataKey.storeUUID: .string(identifier),
            StoreMetadataKey.modelVersionHashes: .dictionary(setup.versionHashes),
            StoreMetadataKey.modelVersionIdentifiers: .array(model.versionIdentifiers.map { .string($0) }),
            StoreMetadataKey.modelVersionHashesVersion: .integer(3),
        ]
    }

    /// A loaded record of an entity outside the store's configuration is refused (134020).
    func checkConfiguration() throws(ObjectGraphError) {
        guard configurationName != nil else { return }
        let members = Set(setup.entities.map { ObjectIdentifier($0) })
        for row in state.allRows where !members.contains(ObjectIdentifier(row.entity)) {
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleSchema,
                message: "the store '\(path)' holds records of '\(row.entity.name)', which configuration '\(configurationName ?? "")' does not include",
                userInfo: [(ErrorUserInfoKey.entity, row.entity.name), (ErrorUserInfoKey.filePath, path)])
        }
    }

    /// Keeps `metadata` (with this store's type and UUID) for the next save.
    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(type)
        new[StoreMetadataKey.storeUUID] = .string(identifier)
        self.metadata = new
    }

    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64 { state.maxKey(root) }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    /// A store written with another version of the model is refused (134100), unless
    /// versioning is ignored: then the hashes are brought up to date for the next save.
    func checkVersionHashes() throws(ObjectGraphError) {
        guard let stored = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue else { return }
        if setup.parsedOptions.ignoreVersioning {
            metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(setup.versionHashes)
            return
        }
        var current: [String: [UInt8]] = [:]
        for e in setup.entities { current[e.name] = e.versionHash }
        for name in Set(stored.keys).union(current.keys).sorted() where stored[name]?.dataValue != current[name] {
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleVersionHash,
                message: "the model used to open the store '\(path)' is incompatible with the one used to create it: entity '\(name)' differs",
                userInfo: [(ErrorUserInfoKey.entity, name), (ErrorUserInfoKey.filePath, path)])
        }
    }

    // MARK: To override

    /// Whether there is a store to load: by default, a file at `path` that is not empty
    /// (a missing or zero-length file means a new store).
    open func hasStoredData() -> Bool { Self.fileSize(path) > 0 }

    /// Reads the file at `path` into nodes (`addCacheNodes`) and `metadata`. Called only
    /// when the file exists and is not empty.
    open func load() throws(ObjectGraphError) {}

    /// Writes every node (`cacheNodes`) and `metadata` to `path`, whole.
    open func save() throws(ObjectGraphError) {}

    /// The first of `count` new, consecutive reference objects (primary keys) for new
    /// objects of `entity`, unique in its hierarchy. The default counts up from the
    /// largest key the hierarchy has used.
    open func newReferenceObjects(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        try PrimaryKeys.first(after: state.maxKey(entity.rootEntity), count: count, root: entity, store: path)
    }

    /// Called in a save, before `save()`, with the nodes of the deleted objects.
    open func willRemove(_ nodes: [AtomicStoreCacheNode]) {}

    // MARK: Nodes

    /// Registers nodes read by `load()`.
    public func addCacheNodes(_ nodes: [AtomicStoreCacheNode]) throws(ObjectGraphError) {
        for node in nodes {
            guard node.entity.model === model else {
                throw .invalidArgument("a cache node of entity '\(node.entity.name)' belongs to another model than the store's")
            }
            guard node.values.count == node.entity.properties.count else {
                throw .invalidArgument("a cache node of '\(node.entity.name)' has \(node.values.count) values; the entity has \(node.entity.properties.count) slots")
            }
            state.load(RowSnapshot.make(entity: node.entity, primaryKey: node.referenceObject, version: node.version, values: node.values))
            for (name, list) in node.members {
                guard let r = node.entity.relationshipsByName[name], r.isToMany else {
                    throw .invalidArgument("'\(node.entity.name)' has no to-many relationship '\(name)'")
                }
                state.register(r)
                state.loadMembers(of: node.referenceObject, through: r, list)
            }
        }
    }

    /// Keeps `key` used in the hierarchy of `entity` (keys handed out but not saved).
    public func noteReferenceObject(_ key: Int64, for entity: EntityDescription) {
        state.loadMaxKey(entity, key)
    }

    /// The largest key used in the hierarchy of `entity`.
    public func largestReferenceObject(for entity: EntityDescription) -> Int64 { state.maxKey(entity) }

    /// Every node, hierarchy by hierarchy, in key order.
    public var cacheNodes: [AtomicStoreCacheNode] {
        var lists: [ObjectIdentifier: [Int64: [String: [Int64]]]] = [:]
        for (_, r) in state.relationships {
            guard let owner = r.entity?.rootEntity else { continue }
            for (pk, list) in state.recordedMembers(of: r) { lists[ObjectIdentifier(owner), default: [:]][pk, default: [:]][r.name] = list }
        }
        return state.allRows.map { row in
            let node = AtomicStoreCacheNode(entity: row.entity, referenceObject: row.primaryKey, version: row.version, values: row.values)
            for (name, list) in lists[ObjectIdentifier(row.entity.rootEntity)]?[row.primaryKey] ?? [:] where row.entity.relationshipsByName[name] != nil {
                node.members[name] = list
            }
            return node
        }
    }

    /// The node of `entity` with `referenceObject`, or nil.
    public func cacheNode(for entity: EntityDescription, referenceObject: Int64) -> AtomicStoreCacheNode? {
        guard let row = state.row(entity, referenceObject) else { return nil }
        let node = AtomicStoreCacheNode(entity: row.entity, referenceObject: row.primaryKey, version: row.version, values: row.values)
        for (_, r) in state.relationships where row.entity.isKind(of: r.entity ?? row.entity) && r.entity.map({ row.entity.isKind(of: $0) }) == true {
            if let list = state.recordedMembers(of: row.primaryKey, through: r) { node.members[r.name] = list }
        }
        return node
    }

    // MARK: PersistentStore

    public func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        state.fetch(request, entity: entity)
    }

    public func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        state.count(request, entity: entity)
    }

    public func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        state.row(entity, primaryKey)
    }

    public func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        state.fetchRows(pointingAt: primaryKey, through: inverse)
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        state.fetchMembers(of: primaryKey, through: relationship)
    }

    public func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        let tx = AtomicSaveTransaction(store: self, state: state)
        try body(tx)
        if !tx.deleted.isEmpty { willRemove(tx.deleted) }
        let before = state
        state = tx.state
        do throws(ObjectGraphError) {
            try save()
        } catch {
            state = before
            if error.code == ErrorCode.storeSave || error.code == ErrorCode.storeSaveConflicts { throw error }
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "the store '\(path)' could not save: \(error.message)", details: [error])
        }
    }

    open func close() {}

    /// Writes the next save at `path` (`setURL:forPersistentStore:`).
    open func move(to path: String) throws(ObjectGraphError) {
        guard !path.isEmpty else { throw .invalidArgument("a store's new path cannot be empty") }
        self.path = path
    }

    open func adopt(configurationName: String?, options: [String: PropertyListValue]) {
        (self.configurationName, self.options) = (configurationName, options)
    }
}

/// A save of an atomic store: the changes land on a copy of the nodes, with keys from
/// the store's `newReferenceObjects`.
final class AtomicSaveTransaction: StoreSaveTransaction, KeyCounterWriting {
    let store: AtomicStore
    let inner: MemorySaveTransaction
    var deleted: [AtomicStoreCacheNode] = []
    var state: MemoryRows { inner.state }

    init(store: AtomicStore, state: MemoryRows) {
        self.store = store
        self.inner = MemorySaveTransaction(state, store: store.path)
    }

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        let first = try store.newReferenceObjects(for: entity, count: count)
        let last = try PrimaryKeys.last(first: first, count: count, root: entity, store: store.path)
        for key in [first, last] where inner.state.row(entity.rootEntity, key) != nil {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "the store '\(store.path)' handed out reference object \(key) of '\(entity.rootEntity.name)', which is in use")
        }
        inner.state.loadMaxKey(entity, last)
        return first
    }

    func raiseKeyCounter(for root: EntityDescription, to key: Int64) throws(ObjectGraphError) {
        try inner.raiseKeyCounter(for: root, to: key)
    }

    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) { try inner.insert(row) }

    func update(_ row: StoreRowWrite) throws(ObjectGraphError) { try inner.update(row) }

    func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]? {
        try inner.currentVersions(of: entity, primaryKeys: primaryKeys)
    }

    func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        try inner.currentRow(of: entity, primaryKey: primaryKey)
    }

    func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]? {
        try inner.rows(of: entity, slots: slots, holding: values)
    }

    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) {
        if let row = inner.state.row(entity, primaryKey) {
            deleted.append(AtomicStoreCacheNode(entity: row.entity, referenceObject: primaryKey, version: row.version, values: row.values))
        }
        try inner.delete(entity: entity, primaryKey: primaryKey)
    }

    func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {
        try inner.setMembers(of: primaryKey, through: relationship, to: members)
    }
}
