/// An entity: a named kind of object with attributes and relationships, optionally
/// inheriting from a superentity. Properties get dense slot numbers, the superentity's
/// first, so an object stores its values in one array indexed by slot.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    public let name: String
    public internal(set) weak var model: ManagedObjectModel?
    public private(set) weak var superentity: EntityDescription?
    public private(set) var subentities: [EntityDescription] = []
    public private(set) var isAbstract = false
    public private(set) var versionHashModifier: String?
    /// The class registered for this entity's objects (Swift subclasses of `ManagedObject`).
    public var managedObjectClassName: String = "ManagedObject"
    public var userInfo: [String: String] = [:]
    /// Properties declared by this entity, in declaration order.
    public private(set) var ownProperties: [PropertyDescription] = []

    /// Slot layout, rebuilt after any change to the model; fixed once the model is frozen.
    private var layoutCache: Layout?

    /// A class, so that reading the layout on every value access costs one retain, not one per array.
    final class Layout {
        let properties: [PropertyDescription]
        let slotByName: [String: Int]
        /// What each slot holds, so accessors need no dynamic casts.
        let kinds: [SlotKind]
        /// Each attribute slot's default value (`.null` elsewhere): what an insert starts with.
        let defaults: [AttributeValue]

        init(properties: [PropertyDescription], slotByName: [String: Int], kinds: [SlotKind], defaults: [AttributeValue]) {
            self.properties = properties
            self.slotByName = slotByName
            self.kinds = kinds
            self.defaults = defaults
        }
    }

    enum SlotKind {
        case attribute(AttributeType)
        case toOne(RelationshipDescription)
        case toMany(RelationshipDescription)
    }

    init(name: String) {
        self.name = name
    }

    public var description: String { name }

    func checkEditable() throws(ObjectGraphError) {
        if let model, !model.isEditable { throw .modelImmutable("entity '\(name)'") }
    }

    // MARK: Inheritance

    public func setSuperentity(_ parent: EntityDescription?) throws(ObjectGraphError) {
        try checkEditable()
        if let parent {
            guard parent.model === model else {
                throw .invalidModel("entity '\(parent.name)' belongs to another model than '\(name)'")
            }
            var ancestor: EntityDescription? = parent
            while let a = ancestor {
                if a === self { throw .invalidModel("making '\(parent.name)' the superentity of '\(name)' would create an inheritance cycle") }
                ancestor = a.superentity
            }
            for own in ownProperties where parent.property(named: own.name) != nil {
                throw .invalidModel("entity '\(name)' declares '\(own.name)', which its superentity '\(parent.name)' already has")
            }
        }
        superentity?.subentities.removeAll { $0 === self }
        superentity = parent
        parent?.subentities.append(self)
        model?.invalidateLayouts()
    }

    /// Whether this entity is `other` or inherits from it (`isKindOfEntity:`).
    public func isKind(of other: EntityDescription) -> Bool {
        var e: EntityDescription? = self
        while let current = e {
            if current === other { return true }
            e = current.superentity
        }
        return false
    }

    /// The root of this entity's inheritance hierarchy (the entity that owns the table).
    public var rootEntity: EntityDescription {
        var e = self
        while let parent = e.superentity { e = parent }
        return e
    }

    public func setAbstract(_ abstract: Bool) throws(ObjectGraphError) {
        try checkEditable()
        isAbstract = abstract
    }

    public func setVersionHashModifier(_ modifier: String?) throws(ObjectGraphError) {
        try checkEditable()
        versionHashModifier = modifier
    }

    // MARK: Properties

    @discardableResult
    public func addAttribute(named name: String, type: AttributeType, optional: Bool = true,
                             defaultValue: AttributeValue = .null) throws(ObjectGraphError) -> AttributeDescription {
        let attribute = AttributeDescription(name: name, type: type)
        try add(attribute)
        try attribute.setOptional(optional)
        try attribute.setDefaultValue(defaultValue)
        return attribute
    }

    @discardableResult
    public func addRelationship(named name: String, destination: EntityDescription, toMany: Bool = false,
                                deleteRule: DeleteRule = .nullify) throws(ObjectGraphError) -> RelationshipDescription {
        guard destination.model === model else {
            throw .invalidModel("relationship '\(self.name).\(name)': destination '\(destination.name)' belongs to another model")
        }
        let relationship = RelationshipDescription(name: name, destination: destination)
        try add(relationship)
        try relationship.setToMany(toMany)
        try relationship.setDeleteRule(deleteRule)
        return relationship
    }

    /// Names a property may not have: they would shadow what every managed object has.
    static let reservedNames: Set<String> = [
        "description", "entity", "objectID", "managedObjectContext", "isFault", "isInserted", "isUpdated",
        "isDeleted", "hasChanges", "changedValues", "self", "class", "hash",
    ]

    func add(_ property: PropertyDescription) throws(ObjectGraphError) {
        try checkEditable()
        try Self.checkName(property.name, what: "property of entity '\(name)'")
        guard !Self.reservedNames.contains(property.name) else {
            throw .invalidModel("'\(name).\(property.name)': '\(property.name)' is a reserved name")
        }
        guard self.property(named: property.name) == nil, !hasSubentityProperty(named: property.name) else {
            throw .invalidModel("entity '\(name)' already has a property named '\(property.name)'")
        }
        property.entity = self
        ownProperties.append(property)
        model?.invalidateLayouts()
    }

    private func hasSubentityProperty(named name: String) -> Bool {
        subentities.contains { sub in sub.ownProperties.contains { $0.name == name } || sub.hasSubentityProperty(named: name) }
    }

    static func checkName(_ name: String, what: String) throws(ObjectGraphError) {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_",
            name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
        else {
            throw .invalidModel("'\(name)' is not a valid name for a \(what): use letters, digits and '_', starting with a letter")
        }
    }

    // MARK: Slots

    var layout: Layout {
        if let layoutCache { return layoutCache }
        let all = (superentity?.layout.properties ?? []) + ownProperties
        var byName: [String: Int] = [:]
        for (i, p) in all.enumerated() { byName[p.name] = i }
        let kinds: [SlotKind] = all.map { p in
            if let a = p as? AttributeDescription { return .attribute(a.attributeType) }
            let r = p as! RelationshipDescription
            return r.isToMany ? .toMany(r) : .toOne(r)
        }
        let defaults = all.map { ($0 as? AttributeDescription)?.defaultValue ?? .null }
        let built = Layout(properties: all, slotByName: byName, kinds: kinds, defaults: defaults)
        // Slots are per hierarchy: a property keeps its slot in every subentity.
        for p in ownProperties { p.slot = byName[p.name]! }
        layoutCache = built
        return built
    }

    func invalidateLayout() { layoutCache = nil }

    /// Every property, inherited ones first, in slot order.
    public var properties: [PropertyDescription] { layout.properties }

    public func slot(forKey key: String) -> Int? { layout.slotByName[key] }

    public func property(named name: String) -> PropertyDescription? {
        let l = layout
        return l.slotByName[name].map { l.properties[$0] }
    }

    public var attributesByName: [String: AttributeDescription] {
        var out: [String: AttributeDescription] = [:]
        for case let a as AttributeDescription in properties { out[a.name] = a }
        return out
    }

    public var relationshipsByName: [String: RelationshipDescription] {
        var out: [String: RelationshipDescription] = [:]
        for case let r as RelationshipDescription in properties { out[r.name] = r }
        return out
    }

    /// The entity's version hash (32 bytes): what a store records to recognise the entity.
    public var versionHash: [UInt8] { VersionHash.entityHash(self) }

    /// This entity and every entity that inherits from it, parents before children.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.sorted { $0.name < $1.name }.flatMap { $0.selfAndDescendants }
    }
}
