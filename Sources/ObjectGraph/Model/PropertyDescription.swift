/// What every property of an entity has: a name, flags, validation rules, user info and
/// versioning data. Attributes, relationships and fetched properties refine it. Every
/// setter fails once the model is in use by a coordinator.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    public internal(set) var name: String
    /// The entity the property belongs to (nil once that entity is gone).
    public internal(set) var entity: EntityDescription? {
        get { entityRef?.entity }
        set { entityRef = newValue?.ref }
    }
    private var entityRef: EntityRef?
    public private(set) var isOptional: Bool = true
    public private(set) var isTransient: Bool = false
    public private(set) var versionHashModifier: String?
    public private(set) var userInfo: [String: String] = [:]
    /// Predicates (format strings) a value must satisfy, and the warning each failure reports.
    public private(set) var validationPredicates: [String] = []
    public private(set) var validationWarnings: [String] = []
    /// Spotlight flags: kept as data, no effect on Linux.
    public private(set) var isIndexedBySpotlight: Bool = false
    public private(set) var isStoredInExternalRecord: Bool = false
    private var renamingIdentifierValue: String?
    /// Xcode attributes with no meaning here (`syncable`, `usesScalarValueType`, ...), kept
    /// so that a model read from Xcode's format is written back with them.
    var xcodeAttributes: [(String, String)] = []
    /// The slot of this property in every object of its entity and of its subentities
    /// (-1 for fetched properties, which have no stored value).
    public internal(set) var slot: Int = -1

    init(name: String) {
        self.name = name
    }

    func checkEditable() throws(ObjectGraphError) {
        if let model = entity?.model, !model.isEditable { throw .modelImmutable("property '\(qualifiedName)'") }
    }

    public func setOptional(_ optional: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isOptional = optional
    }

    public func setTransient(_ transient: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isTransient = transient
    }

    /// Core Data's `isIndexed`: whether the entity has a fetch index of this property
    /// alone (one ascending binary element, partial or not). Relationships say otherwise.
    public var isIndexed: Bool {
        entity?.fetchIndexes.contains { $0.indexesAlone(name) } ?? false
    }

    /// True adds a fetch index named after the property (when none indexes it yet); false
    /// removes every index that makes it indexed, as Core Data's `setIndexed:` does.
    public func setIndexed(_ indexed: Bool) throws(ObjectGraphError) {
        try checkEditable()
        guard let entity else {
            if indexed { throw .invalidArgument("'\(name)' belongs to no entity, so it cannot be indexed") }
            return
        }
        if indexed {
            if !isIndexed { try entity.setFetchIndexes(entity.fetchIndexes + [.named(after: name)]) }
        } else {
            try entity.setFetchIndexes(entity.fetchIndexes.filter { !$0.indexesAlone(name) })
        }
    }

    public func setVersionHashModifier(_ modifier: String?) throws(ObjectGraphError) {
        try checkEditable()
        versionHashModifier = modifier
    }

    public func setUserInfo(_ info: [String: String]) throws(ObjectGraphError) {
        try checkEditable()
        userInfo = info
    }

    /// The name this property had in an earlier model version (mapping and inference
    /// match properties by it); the property's name when none was set.
    public var renamingIdentifier: String { renamingIdentifierValue ?? name }
    /// The renaming identifier only when one was set explicitly.
    public var explicitRenamingIdentifier: String? { renamingIdentifierValue }

    public func setRenamingIdentifier(_ identifier: String?) throws(ObjectGraphError) {
        try checkEditable()
        renamingIdentifierValue = identifier == name ? nil : identifier
    }

    /// Sets the validation predicates (format strings) and their warnings, index by index.
    public func setValidationPredicates(_ predicates: [String], warnings: [String]) throws(ObjectGraphError) {
        try checkEditable()
        guard predicates.count == warnings.count else {
            throw .invalidArgument(
                "'\(qualifiedName)': \(predicates.count) validation predicates but \(warnings.count) warnings; they pair index by index")
        }
        validationPredicates = predicates
        validationWarnings = warnings
    }

    public func setIndexedBySpotlight(_ flag: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isIndexedBySpotlight = flag
    }

    public func setStoredInExternalRecord(_ flag: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isStoredInExternalRecord = flag
    }

    /// The property's version hash (32 bytes), as the entity hash uses it.
    public var versionHash: [UInt8] { VersionHash.propertyHash(self) }

    /// `Entity.name`, for messages.
    public var qualifiedName: String { "\(entity?.name ?? "?").\(name)" }

    public var description: String { qualifiedName }

    /// Copies what every property has onto `copy` (used by model copying).
    func copyCommon(to copy: PropertyDescription) {
        copy.isOptional = isOptional
        copy.isTransient = isTransient
        copy.versionHashModifier = versionHashModifier
        copy.userInfo = userInfo
        copy.validationPredicates = validationPredicates
        copy.validationWarnings = validationWarnings
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.isStoredInExternalRecord = isStoredInExternalRecord
        copy.renamingIdentifierValue = renamingIdentifierValue
    }
}
