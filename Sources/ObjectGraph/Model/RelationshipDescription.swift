/// A relationship to another entity; to-many when `maxCount != 1` (0 means unbounded).
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    public private(set) var destinationEntity: EntityDescription? {
        get { destinationRef?.entity }
        set { destinationRef = newValue?.ref }
    }
    private var destinationRef: EntityRef?
    public private(set) weak var inverseRelationship: RelationshipDescription?
    public private(set) var minCount: Int = 0
    /// 0 means unbounded (-1 too: Core Data records that for models built in code).
    public private(set) var maxCount: Int = 1
    public private(set) var deleteRule: DeleteRule = .nullify
    /// An ordered to-many keeps its destinations in a list (an extension Apple later shipped).
    public private(set) var isOrdered = false

    public init(name: String, destination: EntityDescription) {
        self.destinationRef = destination.ref
        super.init(name: name)
    }

    public var isToMany: Bool { maxCount != 1 }

    /// Always true, as Core Data reports it: a to-one is indexed by its foreign key's
    /// index, a to-many by its inverse's or its join table's.
    public override var isIndexed: Bool { true }

    /// Accepted and without effect: a relationship is always indexed.
    public override func setIndexed(_ indexed: Bool) throws(ObjectGraphError) {
        try checkEditable()
    }

    public func setDestination(_ destination: EntityDescription) throws(ObjectGraphError) {
        try checkEditable()
        destinationEntity = destination
    }

    public func setToMany(_ toMany: Bool) throws(ObjectGraphError) {
        try checkEditable()
        maxCount = toMany ? 0 : 1
        if !toMany { isOrdered = false }
    }

    public func setCounts(min: Int, max: Int) throws(ObjectGraphError) {
        try checkEditable()
        guard min >= 0, max >= -1, max <= 0 || min <= max else {
            throw .invalidModel("relationship '\(qualifiedName)': invalid counts min \(min), max \(max)")
        }
        minCount = min
        maxCount = max
    }

    public func setMinCount(_ count: Int) throws(ObjectGraphError) { try setCounts(min: count, max: maxCount) }

    public func setMaxCount(_ count: Int) throws(ObjectGraphError) { try setCounts(min: minCount, max: count) }

    public func setDeleteRule(_ rule: DeleteRule) throws(ObjectGraphError) {
        try checkEditable()
        deleteRule = rule
    }

    public func setOrdered(_ ordered: Bool) throws(ObjectGraphError) {
        try checkEditable()
        guard !ordered || isToMany else {
            throw .invalidModel("relationship '\(qualifiedName)' is to-one, so it cannot be ordered")
        }
        isOrdered = ordered
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

    /// Sets one side only: readers use it to record an inverse before validation checks
    /// that both sides agree.
    func setInverseOneSided(_ inverse: RelationshipDescription?) {
        inverseRelationship = inverse
    }

    /// A copy pointing at `destination`; the inverse is linked by the caller.
    func copy(destination: EntityDescription) -> RelationshipDescription {
        let c = RelationshipDescription(name: name, destination: destination)
        copyCommon(to: c)
        c.minCount = minCount
        c.maxCount = maxCount
        c.deleteRule = deleteRule
        c.isOrdered = isOrdered
        return c
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
