import FoundationEssentials

/// The in-memory store ("InMemory"): rows live in memory for the life of the store and
/// are never written anywhere. Fetches return the rows of the entity and leave the
/// predicate, order and window to the caller (`isExact` false); saves apply fully or not at all.
public final class InMemoryStore: PersistentStore, @unchecked Sendable {
    public let type = StoreType.inMemory
    public let path: String
    public let identifier: String
    public private(set) var metadata: [String: PropertyListValue]
    let model: ManagedObjectModel
    var state = MemoryRows()

    /// A new, empty store. `path` is only a name here (it may be empty): nothing is read or written.
    public init(path: String = "", model: ManagedObjectModel) {
        self.path = path
        self.model = model
        self.identifier = UUID().uuidString
        self.metadata = [
            StoreMetadataKey.storeType: .string(StoreType.inMemory),
            StoreMetadataKey.storeUUID: .string(identifier),
            StoreMetadataKey.modelVersionHashes: .dictionary(model.entityVersionHashesByName.mapValues { .data($0) }),
        ]
    }

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
        let tx = MemorySaveTransaction(state)
        try body(tx)
        state = tx.state
    }

    public func close() {}
}
