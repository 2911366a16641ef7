import FoundationEssentials
import Synchronization

/// A managed object model: the entities an object graph may hold, named configurations
/// (entity subsets), fetch request templates, a localization dictionary and version
/// information. Editable until a coordinator starts to use it; from then on immutable
/// and safe to share between threads.
public final class ManagedObjectModel: @unchecked Sendable {
    public private(set) var entities: [EntityDescription] = []
    public private(set) var isEditable = true
    /// Held while freezing: coordinators made at once on several threads over one new model
    /// would otherwise rebuild its entities' layouts at the same time.
    private let freezing = Mutex(())
    /// Developer-defined version identifiers: a debugging hint the framework never uses.
    public internal(set) var versionIdentifiers: [String] = []
    /// Entity names per configuration, in the order they were set.
    var configurationMembers: [(name: String, entities: [String])] = []
    public internal(set) var fetchRequestTemplatesByName: [String: FetchRequestTemplate] = [:]
    /// Localized names: keys `Entity/<Name>`, `Property/<Name>`,
    /// `Property/<Name>/Entity/<EntityName>`, `ErrorString/<String>`.
    public internal(set) var localizationDictionary: [String: String] = [:]
    /// What reading the model file skipped or kept without understanding it.
    public internal(set) var loadWarnings: [String] = []
    /// Attributes of Xcode's `<model>` element, kept for writing the model back.
    var xcodeAttributes: [(String, String)] = []
    /// Elements of Xcode's format this library does not model, kept and written back.
    var preservedXML: [XMLElement] = []

    public init() {}

    func checkEditable(_ what: String) throws(ObjectGraphError) {
        guard isEditable else { throw .modelImmutable(what) }
    }

    // MARK: Entities

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
        try checkEditable("the entities")
        try EntityDescription.checkName(name, what: "entity")
        guard entity(named: name) == nil else { throw .invalidModel("the model already has an entity named '\(name)'") }
        let entity = EntityDescription(name: name)
        entity.model = self
        entities.append(entity)
        return entity
    }

    /// Removes an entity: its subentities lose their parent, relationships pointing at it
    /// are removed, and configurations forget it.
    public func removeEntity(named name: String) throws(ObjectGraphError) {
        try checkEditable("the entities")
        guard let entity = entity(named: name) else { throw .unknownEntity(name) }
        for sub in entity.subentities { try sub.setSuperentity(nil) }
        try entity.setSuperentity(nil)
        for other in entities where other !== entity {
            for case let r as RelationshipDescription in other.ownProperties where r.destinationEntity === entity {
                try other.removeProperty(named: r.name)
            }
        }
        entities.removeAll { $0 === entity }
        entity.model = nil
        for i in configurationMembers.indices { configurationMembers[i].entities.removeAll { $0 == name } }
        invalidateLayouts()
    }

    func setEntities(_ list: [EntityDescription]) {
        entities = list
        invalidateLayouts()
    }

    func invalidateLayouts() {
        for e in entities { e.invalidateLayout() }
    }

    public func setVersionIdentifiers(_ identifiers: [String]) throws(ObjectGraphError) {
        try checkEditable("the version identifiers")
        versionIdentifiers = identifiers
    }

    // MARK: Configurations

    /// Configuration names, in the order they were defined.
    public var configurations: [String] { configurationMembers.map(\.name) }

    /// The entities of configuration `name`; every entity for nil (the default configuration).
    public func entities(forConfiguration name: String?) -> [EntityDescription]? {
        guard let name else { return entities }
        guard let members = configurationMembers.first(where: { $0.name == name })?.entities else { return nil }
        return members.compactMap { entity(named: $0) }
    }

    /// Defines or replaces configuration `name` (`setEntities:forConfiguration:`).
    /// Configurations may overlap. The entities must belong to this model.
    public func setEntities(_ list: [EntityDescription], forConfiguration name: String) throws(ObjectGraphError) {
        try checkEditable("configuration '\(name)'")
        guard !name.isEmpty else { throw .invalidModel("a configuration needs a name") }
        for e in list where e.model !== self {
            throw .invalidModel("configuration '\(name)': entity '\(e.name)' belongs to another model")
        }
        var names: [String] = []
        for e in list where !names.contains(e.name) { names.append(e.name) }
        if let i = configurationMembers.firstIndex(where: { $0.name == name }) {
            configurationMembers[i].entities = names
        } else {
            configurationMembers.append((name, names))
        }
    }

    /// Entity names as a configuration lists them, unknown ones included (for validation).
    func configurationEntityNames(_ name: String) -> [String] {
        configurationMembers.first(where: { $0.name == name })?.entities ?? []
    }

    /// Records a configuration by entity names, before the entities are checked (readers).
    func setConfigurationNames(_ names: [String], forConfiguration name: String) {
        if let i = configurationMembers.firstIndex(where: { $0.name == name }) {
            configurationMembers[i].entities = names
        } else {
            configurationMembers.append((name, names))
        }
    }

    // MARK: Fetch request templates

    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplatesByName[name]
    }

    /// Stores a named template (`setFetchRequestTemplate:forName:`); nil removes it.
    public func setFetchRequestTemplate(_ template: FetchRequestTemplate?, forName name: String) throws(ObjectGraphError) {
        try checkEditable("fetch request template '\(name)'")
        guard !name.isEmpty else { throw .invalidModel("a fetch request template needs a name") }
        if let template, entity(named: template.entityName) == nil {
            throw .invalidModel("fetch request template '\(name)': unknown entity '\(template.entityName)'")
        }
        fetchRequestTemplatesByName[name] = template
    }

    /// A copy of template `name` with every substitution variable replaced
    /// (`fetchRequestFromTemplateWithName:substitutionVariables:`). Every variable must be
    /// supplied; pass `.null` to test against nil.
    public func fetchRequestFromTemplate(named name: String, substitutionVariables: [String: AttributeValue]) throws(ObjectGraphError)
        -> FetchRequestTemplate
    {
        guard let template = fetchRequestTemplatesByName[name] else {
            throw .invalidArgument("the model has no fetch request template named '\(name)'")
        }
        return try template.substituting(substitutionVariables, templateName: name)
    }

    // MARK: Localization

    public func setLocalizationDictionary(_ dictionary: [String: String]) throws(ObjectGraphError) {
        try checkEditable("the localization dictionary")
        localizationDictionary = dictionary
    }

    /// The localized name of an entity, or nil.
    public func localizedName(ofEntity entity: String) -> String? { localizationDictionary["Entity/\(entity)"] }

    /// The localized name of a property: the per-entity key first, then the general one.
    public func localizedName(ofProperty property: String, entity: String) -> String? {
        localizationDictionary["Property/\(property)/Entity/\(entity)"] ?? localizationDictionary["Property/\(property)"]
    }

    // MARK: Freezing and versions

    /// Validates the model and makes it immutable; coordinators call this.
    public func freeze() throws(ObjectGraphError) {
        try freezing.withLock { _ throws(ObjectGraphError) in
            if !isEditable { return }
            try validate()
            // Rebuilt now, so what layouts derive from the properties' rules is final.
            invalidateLayouts()
            for e in entities { _ = e.layout }
            isEditable = false
        }
    }

    /// The version hash of every entity, by name (`entityVersionHashesByName`).
    public var entityVersionHashesByName: [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for e in entities { out[e.name] = e.versionHash }
        return out
    }

    /// Whether a store with `metadata` holds exactly configuration `name`'s entities (all
    /// entities for nil), each with the hash this model gives it.
    public func isConfiguration(_ name: String?, compatibleWithStoreMetadata metadata: [String: PropertyListValue]) -> Bool {
        guard let stored = metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue,
            let members = entities(forConfiguration: name)
        else { return false }
        guard Set(stored.keys) == Set(members.map(\.name)) else { return false }
        return members.allSatisfy { stored[$0.name]?.dataValue == $0.versionHash }
    }
}
