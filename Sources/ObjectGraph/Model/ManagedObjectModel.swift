import FoundationEssentials

/// A managed object model: the entities an object graph may hold. Editable until a
/// coordinator starts to use it; from then on immutable and safe to share between threads.
public final class ManagedObjectModel: @unchecked Sendable {
    public private(set) var entities: [EntityDescription] = []
    public private(set) var isEditable = true
    public var versionIdentifiers: [String] = []

    public init() {}

    /// Entities sorted by name.
    public var entitiesSortedByName: [EntityDescription] { entities.sorted { $0.name < $1.name } }

    public var entitiesByName: [String: EntityDescription] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    @discardableResult
    public func addEntity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard isEditable else { throw .modelImmutable("the entities") }
        try EntityDescription.checkName(name, what: "entity")
        guard entity(named: name) == nil else { throw .invalidModel("the model already has an entity named '\(name)'") }
        let entity = EntityDescription(name: name)
        entity.model = self
        entities.append(entity)
        return entity
    }

    func setEntities(_ list: [EntityDescription]) {
        entities = list
        invalidateLayouts()
    }

    func invalidateLayouts() {
        for e in entities { e.invalidateLayout() }
    }

    /// Validates the model and makes it immutable; coordinators call this.
    public func freeze() throws(ObjectGraphError) {
        if !isEditable { return }
        try validate()
        for e in entities { _ = e.layout }
        isEditable = false
    }

    /// The version hash of every entity, by name (`entityVersionHashesByName`).
    public var entityVersionHashesByName: [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for e in entities { out[e.name] = e.versionHash }
        return out
    }
}
