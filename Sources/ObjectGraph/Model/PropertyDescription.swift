/// What every property of an entity has: a name, optionality, transience. Attributes and
/// relationships refine it. Setters fail once the model is in use by a coordinator.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    public let name: String
    public internal(set) weak var entity: EntityDescription?
    public private(set) var isOptional: Bool = true
    public private(set) var isTransient: Bool = false
    public private(set) var versionHashModifier: String?
    public var userInfo: [String: String] = [:]
    /// The slot of this property in every object of its entity and of its subentities.
    public internal(set) var slot: Int = -1

    init(name: String) {
        self.name = name
    }

    func checkEditable() throws(ObjectGraphError) {
        if let model = entity?.model, !model.isEditable { throw .modelImmutable("property '\(name)'") }
    }

    public func setOptional(_ optional: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isOptional = optional
    }

    public func setTransient(_ transient: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isTransient = transient
    }

    public func setVersionHashModifier(_ modifier: String?) throws(ObjectGraphError) {
        try checkEditable()
        versionHashModifier = modifier
    }

    /// `Entity.name`, for messages.
    public var qualifiedName: String { "\(entity?.name ?? "?").\(name)" }

    public var description: String { qualifiedName }
}

/// An attribute: a typed value with an optional default.
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    public private(set) var attributeType: AttributeType
    public private(set) var defaultValue: AttributeValue = .null

    public init(name: String, type: AttributeType) {
        self.attributeType = type
        super.init(name: name)
    }

    public func setAttributeType(_ type: AttributeType) throws(ObjectGraphError) {
        try checkEditable()
        attributeType = type
        defaultValue = .null
    }

    /// Sets the value new objects start with; it must suit the attribute's type.
    public func setDefaultValue(_ value: AttributeValue) throws(ObjectGraphError) {
        try checkEditable()
        defaultValue = try value.coerced(to: attributeType, key: name, entity: entity?.name ?? "?")
    }
}

/// A relationship to another entity; to-many when `maxCount != 1`.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    public private(set) weak var destinationEntity: EntityDescription?
    public private(set) weak var inverseRelationship: RelationshipDescription?
    public private(set) var minCount: Int = 0
    /// 0 means unbounded.
    public private(set) var maxCount: Int = 1
    public private(set) var deleteRule: DeleteRule = .nullify

    public init(name: String, destination: EntityDescription) {
        self.destinationEntity = destination
        super.init(name: name)
    }

    public var isToMany: Bool { maxCount != 1 }

    public func setDestination(_ destination: EntityDescription) throws(ObjectGraphError) {
        try checkEditable()
        destinationEntity = destination
    }

    public func setToMany(_ toMany: Bool) throws(ObjectGraphError) {
        try checkEditable()
        maxCount = toMany ? 0 : 1
    }

    public func setCounts(min: Int, max: Int) throws(ObjectGraphError) {
        try checkEditable()
        guard min >= 0, max >= 0, max == 0 || min <= max else {
            throw .invalidArgument("relationship '\(qualifiedName)': invalid counts min \(min), max \(max)")
        }
        minCount = min
        maxCount = max
    }

    public func setDeleteRule(_ rule: DeleteRule) throws(ObjectGraphError) {
        try checkEditable()
        deleteRule = rule
    }

    /// Makes `inverse` and this relationship each other's inverse. `nil` clears both sides.
    public func setInverse(_ inverse: RelationshipDescription?) throws(ObjectGraphError) {
        try checkEditable()
        guard let inverse else {
            if let old = inverseRelationship, old.inverseRelationship === self { old.inverseRelationship = nil }
            inverseRelationship = nil
            return
        }
        try inverse.checkEditable()
        guard let destination = destinationEntity, let inverseOwner = inverse.entity,
            inverseOwner.isKind(of: destination) || destination.isKind(of: inverseOwner)
        else {
            throw .invalidModel(
                "relationship '\(qualifiedName)' cannot have '\(inverse.qualifiedName)' as inverse: it does not belong to the destination '\(destinationEntity?.name ?? "?")'"
            )
        }
        guard let owner = entity, let back = inverse.destinationEntity, owner.isKind(of: back) || back.isKind(of: owner)
        else {
            throw .invalidModel(
                "relationship '\(inverse.qualifiedName)' does not point back at '\(entity?.name ?? "?")', so it cannot be the inverse of '\(qualifiedName)'"
            )
        }
        if let old = inverseRelationship, old !== inverse, old.inverseRelationship === self { old.inverseRelationship = nil }
        if let old = inverse.inverseRelationship, old !== self, old.inverseRelationship === inverse { old.inverseRelationship = nil }
        inverseRelationship = inverse
        inverse.inverseRelationship = self
    }
}

/// What deleting an object does to the objects a relationship points at (`NSDeleteRule`).
public enum DeleteRule: Int, Sendable, CaseIterable {
    case noAction = 0
    case nullify = 1
    case cascade = 2
    case deny = 3

    public var name: String {
        switch self {
        case .noAction: "noAction"
        case .nullify: "nullify"
        case .cascade: "cascade"
        case .deny: "deny"
        }
    }

    public init?(name: String) {
        guard let match = DeleteRule.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}
