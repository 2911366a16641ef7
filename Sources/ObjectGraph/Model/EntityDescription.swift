import Synchronization

/// An entity: a named kind of object with attributes and relationships, optionally
/// inheriting from a superentity. Properties get dense slot numbers, the superentity's
/// first, so an object stores its values in one array indexed by slot.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    public internal(set) var name: String
    public internal(set) weak var model: ManagedObjectModel?
    public private(set) var superentity: EntityDescription? {
        get { superentityRef?.entity }
        set { superentityRef = newValue?.ref }
    }
    private var superentityRef: EntityRef?
    /// How other model objects point at this entity without a weak reference.
    let ref = EntityRef()
    public private(set) var subentities: [EntityDescription] = []
    public private(set) var isAbstract = false
    public private(set) var versionHashModifier: String?
    /// The class registered for this entity's objects (Swift subclasses of `ManagedObject`).
    public private(set) var managedObjectClassName: String = "ManagedObject"
    public private(set) var userInfo: [String: String] = [:]
    /// Properties declared by this entity, in declaration order (fetched properties included).
    public private(set) var ownProperties: [PropertyDescription] = []
    /// Sets of property names whose values must be unique together (Xcode's uniqueness constraints).
    public internal(set) var uniquenessConstraints: [[String]] = []
    /// Fetch indexes: named lists of properties a store may index together.
    public internal(set) var fetchIndexes: [FetchIndexDescription] = []
    private var renamingIdentifierValue: String?
    /// Xcode attributes with no meaning here (`syncable`, `codeGenerationType`, ...), kept
    /// so that a model read from Xcode's format is written back with them.
    var xcodeAttributes: [(String, String)] = []
    /// Child elements of Xcode's `<entity>` this library does not model, written back as read.
    var preservedXML: [XMLElement] = []

    /// Slot layout, rebuilt after any change to the model; fixed once the model is frozen.
    private var layoutCache: Layout?
    /// The layouts of this entity's rows by slot widths, made on first use and kept while
    /// the entity lives (its rows' blocks hold it), since rows point at them unretained.
    private let rowLayouts = Mutex<[[Bool]: RowCells]>([:])

    /// The layout of this entity's rows whose slots have `wide` widths.
    func rowCells(wide: [Bool]) -> RowCells {
        rowLayouts.withLock { all in
            if let known = all[wide] { return known }
            let made = RowCells(wide: wide, entity: self)
            all[wide] = made
            return made
        }
    }

    /// A class, so that reading the layout on every value access costs one retain, not one per array.
    final class Layout {
        let properties: [PropertyDescription]
        let slotByName: [String: Int]
        /// What each slot holds, so accessors need no dynamic casts.
        let kinds: [SlotKind]
        /// Each attribute slot's default value (`.null` elsewhere): what an insert starts with.
        let defaults: [AttributeValue]
        /// The slots whose property has a model validation rule (required, bounds, length,
        /// pattern, predicates, counts): the only ones a save must check when the object
        /// has no validator of its own. Exact once the model is frozen (layouts are rebuilt then).
        let ruledSlots: [Int]
        /// Slots of to-one and of to-many relationships: what a save walks for each object.
        let toOneSlots: [Int]
        let toManySlots: [Int]
        /// Slots of transformable attributes, whose values a save turns into bytes.
        let transformableSlots: [Int]
        /// Per slot, whether it is an attribute whose stored value is its value (not a
        /// relationship, not a transformable): what a read's fast path checks with one load.
        let readsDirectly: [Bool]
        /// How the entity's rows lay out their values.
        let cells: RowCells
        /// The layout of the entity's rows that hold no values (a store's identity-only
        /// reads), found here rather than through the entity's table of layouts per row.
        let identityCells: RowCells

        init(properties: [PropertyDescription], slotByName: [String: Int], kinds: [SlotKind], defaults: [AttributeValue],
             cells: RowCells, identityCells: RowCells) {
            self.properties = properties
            self.slotByName = slotByName
            self.kinds = kinds
            self.defaults = defaults
            self.ruledSlots = properties.indices.filter { Self.hasRules(properties[$0]) }
            self.toOneSlots = kinds.indices.filter { if case .toOne = kinds[$0] { true } else { false } }
            self.toManySlots = kinds.indices.filter { if case .toMany = kinds[$0] { true } else { false } }
            self.transformableSlots = kinds.indices.filter { if case .attribute(.transformable) = kinds[$0] { true } else { false } }
            self.readsDirectly = kinds.map { if case .attribute(let type) = $0 { type != .transformable } else { false } }
            self.cells = cells
            self.identityCells = identityCells
        }

        private static func hasRules(_ p: PropertyDescription) -> Bool {
            if let a = p as? AttributeDescription {
                return !a.isOptional || !a.minValue.isNull || !a.maxValue.isNull || a.minLength != nil || a.maxLength != nil
                    || a.regularExpression != nil || !a.validationPredicates.isEmpty
            }
            guard let r = p as? RelationshipDescription else { return true }
            if !r.isToMany { return !r.isOptional }
            return !r.isOptional || r.minCount > 0 || r.maxCount > 0
        }
    }

    enum SlotKind {
        case attribute(AttributeType)
        case toOne(RelationshipDescription)
        case toMany(RelationshipDescription)
    }

    init(name: String) {
        self.name = name
        ref.entity = self
    }

    deinit { ref.entity = nil }

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

    public func setManagedObjectClassName(_ name: String?) throws(ObjectGraphError) {
        try checkEditable()
        managedObjectClassName = name ?? "ManagedObject"
    }

    public func setUserInfo(_ info: [String: String]) throws(ObjectGraphError) {
        try checkEditable()
        userInfo = info
    }

    /// The name this entity had in an earlier model version; the entity's name when none was set.
    public var renamingIdentifier: String { renamingIdentifierValue ?? name }
    /// The renaming identifier only when one was set explicitly.
    public var explicitRenamingIdentifier: String? { renamingIdentifierValue }

    public func setRenamingIdentifier(_ identifier: String?) throws(ObjectGraphError) {
        try checkEditable()
        renamingIdentifierValue = identifier == name ? nil : identifier
    }

    public func setUniquenessConstraints(_ constraints: [[String]]) throws(ObjectGraphError) {
        try checkEditable()
        uniquenessConstraints = constraints
    }

    public func setFetchIndexes(_ indexes: [FetchIndexDescription]) throws(ObjectGraphError) {
        try checkEditable()
        fetchIndexes = indexes
    }

    /// Subentities by name.
    public var subentitiesByName: [String: EntityDescription] {
        Dictionary(subentities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Makes `list` exactly this entity's subentities (`setSubentities:`, the top-down way
    /// to build a hierarchy): each becomes a child, former children lose their parent.
    public func setSubentities(_ list: [EntityDescription]) throws(ObjectGraphError) {
        try checkEditable()
        for old in subentities where !list.contains(where: { $0 === old }) { try old.setSuperentity(nil) }
        for child in list where child.superentity !== self { try child.setSuperentity(self) }
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

    /// Adds a fetched property: a lazily fetched, one-way list of `request`'s results.
    @discardableResult
    public func addFetchedProperty(named name: String, fetchRequest request: FetchRequestTemplate) throws(ObjectGraphError)
        -> FetchedPropertyDescription
    {
        let property = FetchedPropertyDescription(name: name, fetchRequest: request)
        try add(property)
        return property
    }

    /// Removes a property this entity declares.
    public func removeProperty(named name: String) throws(ObjectGraphError) {
        try checkEditable()
        guard let index = ownProperties.firstIndex(where: { $0.name == name }) else {
            throw .unknownKey(name, entity: self.name)
        }
        let p = ownProperties.remove(at: index)
        if let r = p as? RelationshipDescription { try r.setInverse(nil) }
        p.entity = nil
        model?.invalidateLayouts()
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
        guard !(property is ExpressionDescription) else {
            throw .invalidModel("'\(name).\(property.name)': an expression description belongs in a fetch's properties, never in an entity")
        }
        try Self.checkName(property.name, what: "property of entity '\(name)'")
        guard !Self.reservedNames.contains(property.name) else {
            throw .invalidModel("'\(name).\(property.name)': '\(property.name)' is a reserved name")
        }
        // A subentity may redeclare a property it inherits (Core Data allows it): the
        // redeclaration takes the inherited one's slot. Its own names stay unique.
        guard !ownProperties.contains(where: { $0.name == property.name }) else {
            throw .invalidModel("entity '\(name)' already has a property named '\(property.name)'")
        }
        property.entity = self
        ownProperties.append(property)
        model?.invalidateLayouts()
    }

    /// The rule of `ModelName`, checked as a name is given.
    static func checkName(_ name: String, what: String) throws(ObjectGraphError) {
        if let why = ModelName.problem(name) {
            throw .invalidModel("\(ModelName.shown(name)) is not a valid name for a \(what): \(why)")
        }
    }

    // MARK: Slots

    var layout: Layout {
        if let layoutCache { return layoutCache }
        // Fetched properties hold no stored value, so they get no slot. A redeclared
        // property replaces the inherited one in its slot.
        var all = superentity?.layout.properties ?? []
        var byName: [String: Int] = [:]
        for (i, p) in all.enumerated() { byName[p.name] = i }
        for p in ownProperties where !(p is FetchedPropertyDescription) {
            if let i = byName[p.name] {
                all[i] = p
            } else {
                byName[p.name] = all.count
                all.append(p)
            }
        }
        let kinds: [SlotKind] = all.map { p in
            if let a = p as? AttributeDescription { return .attribute(a.attributeType) }
            let r = p as! RelationshipDescription
            return r.isToMany ? .toMany(r) : .toOne(r)
        }
        let defaults = all.map { ($0 as? AttributeDescription)?.defaultValue ?? .null }
        let built = Layout(properties: all, slotByName: byName, kinds: kinds, defaults: defaults,
                           cells: rowCells(wide: RowCells.wide(kinds: kinds)), identityCells: rowCells(wide: []))
        // Slots are per hierarchy: a property keeps its slot in every subentity.
        for p in ownProperties { p.slot = p is FetchedPropertyDescription ? -1 : (byName[p.name] ?? -1) }
        layoutCache = built
        return built
    }

    func invalidateLayout() { layoutCache = nil }

    /// Every attribute and relationship, inherited ones first, in slot order. Fetched
    /// properties have no slot: see `fetchedProperties` and `allProperties`.
    public var properties: [PropertyDescription] { layout.properties }

    /// Fetched properties, inherited ones first.
    public var fetchedProperties: [FetchedPropertyDescription] {
        let own = ownProperties.compactMap { $0 as? FetchedPropertyDescription }
        let redeclared = Set(ownProperties.map(\.name))
        return (superentity?.fetchedProperties ?? []).filter { !redeclared.contains($0.name) } + own
    }

    /// Attributes, relationships and fetched properties (`properties` in Core Data's sense).
    public var allProperties: [PropertyDescription] { properties + fetchedProperties }

    public var propertiesByName: [String: PropertyDescription] {
        Dictionary(allProperties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public var fetchedPropertiesByName: [String: FetchedPropertyDescription] {
        Dictionary(fetchedProperties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func slot(forKey key: String) -> Int? { layout.slotByName[key] }

    /// The attribute, relationship or fetched property `name`, inherited ones included.
    public func property(named name: String) -> PropertyDescription? { anyProperty(named: name) }

    private func anyProperty(named name: String) -> PropertyDescription? {
        var e: EntityDescription? = self
        while let current = e {
            if let p = current.ownProperties.first(where: { $0.name == name }) { return p }
            e = current.superentity
        }
        return nil
    }

    /// The relationships (inherited ones included) whose destination is `entity`.
    public func relationships(withDestination entity: EntityDescription) -> [RelationshipDescription] {
        properties.compactMap { $0 as? RelationshipDescription }.filter { $0.destinationEntity === entity }
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

    /// The first of this entity's descendants that declares `key` when the entity itself
    /// does not: a fetch of an entity may use a key only a subentity has (instances without
    /// it read nil there, as in Core Data's one table per hierarchy).
    public func subentity(declaring key: String) -> EntityDescription? {
        guard property(named: key) == nil else { return nil }
        return selfAndDescendants.dropFirst().first { $0.property(named: key) != nil }
    }

    /// Whether an entity of this one's hierarchy declares `key`.
    func hierarchyDeclares(_ key: String) -> Bool {
        rootEntity.selfAndDescendants.contains { $0.property(named: key) != nil }
    }

    /// This entity and every entity that inherits from it, parents before children.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.sorted { $0.name < $1.name }.flatMap { $0.selfAndDescendants }
    }
}
