import FoundationEssentials

/// The properties of an Xcode 3 entity: `XDPMAttribute`, `XDPMRelationship` and
/// `XDPMFetchedProperty` objects in its owned-attribute bucket. What every property has
/// is in stereotype `XD_PPropStereotype`; what each kind adds is in `XD_PAtt_Stereotype`,
/// `XD_PR_Stereotype` or `XD_PFP_Stereotype`. Settings an older Xcode never wrote take
/// Core Data's defaults (docs/model-format.md, "Xcode 3 models").
extension Xcode3ModelReader {
    static let propertyClasses: Set<String> = ["XDPMAttribute", "XDPMRelationship", "XDPMFetchedProperty"]

    mutating func properties(of entity: EntityDescription, _ ref: Ref, model: ManagedObjectModel) throws(ObjectGraphError) {
        let entityAt = file.with(entity: entity.name)
        var listed: [(name: String, ref: Ref)] = []
        for (key, value) in try archive.entries(archive.field(ref, "XDBucketForOwnedAttributesstorage"), "the properties", at: entityAt) {
            let at = file.with(entity: entity.name, property: key)
            guard let p = try archive.object(value, "the property", of: Self.propertyClasses, at: at) else { throw at.error("the property is nil") }
            listed.append((try archive.string(archive.field(p, "_name"), "its _name", at: at) ?? key, p))
        }
        var indexed: [String] = []
        for (name, p) in listed.sorted(by: { $0.name < $1.name }) {
            let at = file.with(entity: entity.name, property: name)
            do throws(ObjectGraphError) {
                let common = try Xcode3Settings(archive, of: p, stereotype: "XD_PPropStereotype", at: at)
                let property: PropertyDescription
                switch archive.className(p) {
                case "XDPMAttribute":
                    property = try attribute(p, name: name, in: entity, common: common, at: at)
                    if try common.bool("XD_PPSK_isIndexed") ?? false { indexed.append(name) }
                case "XDPMRelationship":
                    property = try relationship(p, name: name, in: entity, at: at)
                default:
                    property = try fetchedProperty(p, name: name, in: entity, at: at)
                }
                try self.common(property, common)
                propertyObjects[p] = property
            } catch { throw at.wrap(error) }
        }
        // An attribute marked indexed is an index named after it, as the XML reader and
        // Core Data read it. Relationships are always indexed; their flag changes nothing.
        do throws(ObjectGraphError) { try entity.setFetchIndexes(stored: [], indexedProperties: indexed) } catch { throw entityAt.wrap(error) }
    }

    /// Settings every property has. Optional is absent on fetched properties, which
    /// Core Data makes optional; the other flags are absent in older files and false.
    /// A fetched property's transient flag (always set: it stores nothing) is left out,
    /// as the XML reader leaves it, since `contents` has no place for it: a model then
    /// reads the same from `elements` and from its conversion.
    private mutating func common(_ p: PropertyDescription, _ s: Xcode3Settings) throws(ObjectGraphError) {
        try p.setOptional(try s.bool("XD_PPSK_isOptional") ?? true)
        if !(p is FetchedPropertyDescription) { try p.setTransient(try s.bool("XD_PPSK_isTransient") ?? false) }
        try p.setIndexedBySpotlight(try s.bool("XD_PPSK_isSpotlightIndexed") ?? false)
        try p.setStoredInExternalRecord(try s.bool("XD_PPSK_isStoredInTruthFile") ?? false)
        try p.setVersionHashModifier(nonEmpty(try s.string("XD_PPSK_versionHashModifier")))
        try p.setRenamingIdentifier(nonEmpty(try s.string("XD_PPSK_elementID")))
        let info = try s.userInfo("XD_PPSK_userInfo", skipped: &warnings)
        try p.setUserInfo(info)
        p.xcodeAttributes = Self.syncable(info)
    }

    /// `XD_PAtt_Stereotype`: the type as Core Data's NSAttributeType code, and the
    /// default and bounds as the text typed in Xcode, read as the XML reader reads
    /// `defaultValueString` and its bounds.
    private mutating func attribute(_ p: Ref, name: String, in entity: EntityDescription, common: Xcode3Settings,
                                    at: ModelLocation) throws(ObjectGraphError) -> AttributeDescription {
        let s = try Xcode3Settings(archive, of: p, stereotype: "XD_PAtt_Stereotype", at: at)
        let code = try s.integer("XD_PAttK_attributeType") ?? AttributeType.undefined.rawValue
        guard let type = AttributeType(rawValue: code) else { throw at.error("XD_PAttK_attributeType \(code) is not a Core Data attribute type") }
        let a = try entity.addAttribute(named: name, type: type, optional: try common.bool("XD_PPSK_isOptional") ?? true)
        try a.setValueTransformerName(nonEmpty(try s.string("XD_PAttK_valueTransformerName")))
        try a.setAllowsExternalBinaryDataStorage(try s.bool("XD_PAttK_allowsExternalBinaryDataStorage") ?? false)
        try a.setRegularExpression(nonEmpty(try s.string("XD_PAttK_regularExpressionString")))
        var text = XcodeAttributeText()
        try text.setDefault(try s.string("XD_PAttK_defaultValueAsString"), "XD_PAttK_defaultValueAsString", on: a, at: at)
        try text.setBounds(min: nonEmpty(try s.string("XD_PAttK_minValueString")), max: nonEmpty(try s.string("XD_PAttK_maxValueString")),
                           names: ("XD_PAttK_minValueString", "XD_PAttK_maxValueString"), on: a, at: at)
        warnings += text.warnings
        return a
    }

    /// `XD_PR_Stereotype`. Counts are integers or NSDecimalNumbers; a to-one stores
    /// minimum 1 whether it is optional or not, as the XML does. Absent settings: to-many
    /// when the maximum is not 1, minimum 0, maximum 0 (unbounded) for a to-many and 1 for
    /// a to-one, Nullify. The inverse is an archived relationship, resolved later.
    private mutating func relationship(_ p: Ref, name: String, in entity: EntityDescription, at: ModelLocation) throws(ObjectGraphError)
        -> RelationshipDescription
    {
        let s = try Xcode3Settings(archive, of: p, stereotype: "XD_PR_Stereotype", at: at)
        guard let destinationRef = try s.object("XD_PRK_destination", of: ["XDPMEntity"]) else {
            throw at.error("the relationship has no destination (XD_PRK_destination)")
        }
        let destination = try self.entity(destinationRef, "the destination", at: at)
        let storedMax = try s.integer("XD_PRK_maxCount")
        let toMany = try s.bool("XD_PRK_isToMany") ?? (storedMax.map { $0 != 1 } ?? false)
        let minCount = try s.integer("XD_PRK_minCount") ?? 0
        let maxCount = storedMax ?? (toMany ? 0 : 1)
        if !toMany && maxCount != 1 { throw at.error("a to-one relationship (XD_PRK_isToMany NO) must have XD_PRK_maxCount 1, not \(maxCount)") }
        if toMany && maxCount == 1 { throw at.error("a to-many relationship (XD_PRK_isToMany YES) cannot have XD_PRK_maxCount 1") }
        if minCount < 0 || maxCount < 0 { throw at.error("XD_PRK_minCount and XD_PRK_maxCount must not be negative (\(minCount), \(maxCount))") }
        let ruleCode = try s.integer("XD_PRK_deleteRule") ?? DeleteRule.nullify.rawValue
        guard let rule = DeleteRule(rawValue: ruleCode) else { throw at.error("XD_PRK_deleteRule \(ruleCode) is not a delete rule (0 to 3)") }
        let r = try entity.addRelationship(named: name, destination: destination, toMany: toMany, deleteRule: rule)
        try r.setCounts(min: minCount, max: maxCount)
        if try s.bool("XD_PRK_ordered") ?? false {
            if toMany { try r.setOrdered(true) } else { warnings.append("\(at.prefix)XD_PRK_ordered is set on a to-one relationship; ignored") }
        }
        if let inverse = try s.object("XD_PRK_inverseRelationship", of: ["XDPMRelationship"]) {
            pendingInverses.append((r, inverse, at))
        }
        return r
    }

    /// The inverse is an archived relationship object: the one created from it, whichever
    /// entity declares it.
    func resolveInverse(_ r: RelationshipDescription, _ inverse: Ref, at: ModelLocation) throws(ObjectGraphError) {
        guard let found = propertyObjects[inverse] as? RelationshipDescription else {
            throw at.error("the inverse (object #\(inverse.index)) is not a relationship of any entity in the model")
        }
        r.setInverseOneSided(found)
    }

    /// `XD_PFP_Stereotype`: one fetch request (`XD_PFP_fetchRequestKey`) naming the
    /// destination entity and the predicate.
    private func fetchedProperty(_ p: Ref, name: String, in entity: EntityDescription, at: ModelLocation) throws(ObjectGraphError)
        -> FetchedPropertyDescription
    {
        let s = try Xcode3Settings(archive, of: p, stereotype: "XD_PFP_Stereotype", at: at)
        guard let request = try s.object("XD_PFP_fetchRequestKey", of: ["XDPMFetchRequest"]) else {
            throw at.error("the fetched property has no fetch request (XD_PFP_fetchRequestKey)")
        }
        return try entity.addFetchedProperty(named: name, fetchRequest: try fetchRequest(request, what: "its fetch request", at: at))
    }
}
