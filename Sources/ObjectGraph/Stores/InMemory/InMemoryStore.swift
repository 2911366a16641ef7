import FoundationEssentials

/// The in-memory store ("InMemory"): rows live in memory for the life of the store and
/// are never written anywhere. Fetches return the rows of the entity and leave the
/// predicate, order and window to the caller (`isExact` false); saves apply fully or not at all.
public final class InMemoryStore: PersistentStore, KeyCounterReading, @unchecked Sendable {
    public let type = StoreType.inMemory
    public internal(set) var path: String
    public let identifier: String
    public private(set) var metadata: [String: PropertyListValue]
    public let configurationName: String?
    public let options: [String: PropertyListValue]
    let model: ManagedObjectModel
    var state = MemoryRows()

    /// Takes `path` as its name (it may be empty).
    public func move(to path: String) throws(ObjectGraphError) { self.path = path }

    /// A new, empty store. `path` is only a name here (it may be empty): nothing is read or written.
    public convenience init(path: String = "", model: ManagedObjectModel) {
        self.init(setup: StoreSetup(path: path, model: model))
    }

    /// A new, empty store for the configuration and options of `setup`.
    public init(setup: StoreSetup) {
        self.path = setup.path
        self.model = setup.model
        self.configurationName = setup.configurationName
        self.options = setup.options
        self.identifier = setup.identifier ?? UUID().uuidString
        var metadata = setup.initialMetadata
        metadata[StoreMetadataKey.storeType] = .string(StoreType.inMemory)
        metadata[StoreMetadataKey.storeUUID] = .string(identifier)
        metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(setup.versionHashes)
        self.metadata = metadata
    }

    /// Nothing is written anywhere, so the metadata simply changes.
    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(type)
        new[StoreMetadataKey.storeUUID] = .string(identifier)
        self.metadata = new
    }

    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64 { state.maxKey(root) }

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
        let tx = MemorySaveTransaction(state, store: path)
        try body(tx)
        state = tx.state
    }

    public func close() {}
}
