import FoundationEssentials

/// Reads the `contents` XML of an Xcode `.xcdatamodel`: entities with their attributes,
/// relationships, fetched properties, user info, uniqueness constraints and fetch
/// indexes; configurations; fetch request templates. Elements this library does not
/// model are kept (and written back) with a warning; Xcode's diagram layout is kept silently.
struct XcodeModelReader {
    let source: String
    var warnings: [String] = []

    static func read(_ bytes: [UInt8], source: String) throws(ObjectGraphError) -> ManagedObjectModel {
        var reader = XcodeModelReader(source: source)
        let model = try reader.model(bytes)
        model.loadWarnings = reader.warnings
        return model
    }

    private var file: ModelLocation { ModelLocation(file: source) }

    private mutating func warn(_ message: String) { warnings.append("\(source): \(message)") }

    /// Xcode's YES/NO flags; anything else is an error naming the attribute.
    private func flag(_ e: XMLTag, _ attribute: String, _ at: ModelLocation, default d: Bool = false) throws(ObjectGraphError) -> Bool {
        guard let v = e[attribute] else { return d }
        switch v {
        case "YES": return true
        case "NO": return false
        default: throw at.error("\(attribute)=\"\(v)\" must be YES or NO (line \(e.line))")
        }
    }

    private func integer(_ e: XMLTag, _ attribute: String, _ at: ModelLocation) throws(ObjectGraphError) -> Int? {
        guard let v = e[attribute] else { return nil }
        guard let i = Int(v) else { throw at.error("\(attribute)=\"\(v)\" is not an integer (line \(e.line))") }
        return i
    }

    private static func kept(_ e: XMLTag, known: Set<String>) -> [(String, String)] {
        e.attributes.filter { !known.contains($0.name) }.map { ($0.name, $0.value) }
    }

    private mutating func model(_ bytes: [UInt8]) throws(ObjectGraphError) -> ManagedObjectModel {
        let root: XMLTag
        do { root = try XMLDocumentParser.parse(bytes) } catch { throw file.error("not well-formed XML: \(error)") }
        guard root.name == "model" else { throw file.error("the root element is <\(root.name)>, not <model>: not a Core Data model") }
        let model = ManagedObjectModel()
        if let id = root["userDefinedModelVersionIdentifier"], !id.isEmpty { model.versionIdentifiers = [id] }
        model.xcodeAttributes = root.attributes.map { ($0.name, $0.value) }

        let entityElements = root.children("entity")
        var created: [(EntityDescription, XMLTag)] = []
        for (index, e) in entityElements.enumerated() {
            guard let name = e["name"], !name.isEmpty else { throw file.error("entity #\(index + 1) (line \(e.line)) has no name") }
            do throws(ObjectGraphError) { created.append((try model.addEntity(named: name), e)) } catch { throw file.with(entity: name).wrap(error) }
        }
        for (entity, e) in created {
            let at = file.with(entity: entity.name)
            do throws(ObjectGraphError) {
                if let parentName = e["parentEntity"] {
                    guard let parent = model.entity(named: parentName) else { throw at.error("unknown parent entity '\(parentName)'") }
                    try entity.setSuperentity(parent)
                }
                try entity.setAbstract(try flag(e, "isAbstract", at))
                if let c = e["representedClassName"] { try entity.setManagedObjectClassName(c) }
                try entity.setRenamingIdentifier(e["elementID"])
                try entity.setVersionHashModifier(e["versionHashModifier"])
                entity.xcodeAttributes = Self.kept(e, known: ["name", "parentEntity", "isAbstract", "representedClassName", "elementID", "versionHashModifier"])
            } catch { throw at.wrap(error) }
        }
        var inverses: [(RelationshipDescription, XMLTag)] = []
        for (entity, e) in created {
            try properties(of: entity, from: e, model: model, inverses: &inverses)
        }
        for (relationship, e) in inverses {
            let at = file.with(entity: relationship.entity?.name, property: relationship.name)
            guard let inverseName = e["inverseName"] else { continue }
            let ownerName = e["inverseEntity"] ?? relationship.destinationEntity?.name ?? ""
            guard let owner = model.entity(named: ownerName) else { throw at.error("unknown inverse entity '\(ownerName)'") }
            guard let inverse = owner.property(named: inverseName) as? RelationshipDescription else {
                throw at.error("inverse '\(inverseName)' is not a relationship of '\(ownerName)'")
            }
            relationship.setInverseOneSided(inverse)
        }
        for e in root.children {
            switch e.name {
            case "entity": continue
            case "configuration":
                guard let name = e["name"], !name.isEmpty else { throw file.error("a configuration (line \(e.line)) has no name") }
                let members = e.children("memberEntity").compactMap { $0["name"] }
                for m in members where model.entity(named: m) == nil {
                    throw file.error("configuration '\(name)' names an unknown entity '\(m)'")
                }
                model.setConfigurationNames(members, forConfiguration: name)
            case "fetchRequest":
                guard let name = e["name"], !name.isEmpty else { throw file.error("a fetch request template (line \(e.line)) has no name") }
                let template = try fetchRequest(e, at: file, what: "fetch request template '\(name)'")
                guard model.entity(named: template.entityName) != nil else {
                    throw file.error("fetch request template '\(name)' names an unknown entity '\(template.entityName)'")
                }
                model.fetchRequestTemplatesByName[name] = template
            case "localization":  // ObjectGraph's extension: the localization dictionary
                for entry in e.children("entry") {
                    if let k = entry["key"], let v = entry["value"] { model.localizationDictionary[k] = v }
                }
            case "elements":  // Xcode's diagram layout
                model.preservedXML.append(e.copy())
            default:
                warn("kept the unknown element <\(e.name)> (line \(e.line)) without using it")
                model.preservedXML.append(e.copy())
            }
        }
        do throws(ObjectGraphError) { try model.validate() } catch { throw file.wrap(error) }
        return model
    }

    private mutating func properties(of entity: EntityDescription, from e: XMLTag, model: ManagedObjectModel,
                                     inverses: inout [(RelationshipDescription, XMLTag)]) throws(ObjectGraphError) {
        let entityAt = file.with(entity: entity.name)
        var storedIndexes: [FetchIndexDescription] = []
        var indexedAttributes: [String] = []
        for c in e.children {
            switch c.name {
            case "attribute", "relationship", "fetchedProperty":
                guard let name = c["name"], !name.isEmpty else { throw entityAt.error("a \(c.name) (line \(c.line)) has no name") }
                let at = file.with(entity: entity.name, property: name)
                do throws(ObjectGraphError) {
                    let p: PropertyDescription
                    if c.name == "attribute" {
                        p = try attribute(c, name: name, in: entity, at: at)
                        if try flag(c, "indexed", at) { indexedAttributes.append(name) }
                    } else if c.name == "relationship" {
                        let r = try relationship(c, name: name, in: entity, model: model, at: at)
                        inverses.append((r, c))
                        p = r
                    } else {
                        guard let request = c.child("fetchRequest") else { throw at.error("fetched property has no <fetchRequest>") }
                        let template = try fetchRequest(request, at: at, what: "its fetch request")
                        guard model.entity(named: template.entityName) != nil else {
                            throw at.error("fetched property names an unknown entity '\(template.entityName)'")
                        }
                        p = try entity.addFetchedProperty(named: name, fetchRequest: template)
                        try p.setOptional(try flag(c, "optional", at))
                    }
                    try common(p, c, at: at)
                } catch { throw at.wrap(error) }
            case "userInfo":
                try entity.setUserInfo(try userInfo(c, at: entityAt))
            case "uniquenessConstraints":
                var constraints: [[String]] = []
                for u in c.children("uniquenessConstraint") {
                    constraints.append(u.children("constraint").compactMap { $0["value"] })
                }
                try entity.setUniquenessConstraints(constraints)
            case "fetchIndex":
                storedIndexes.append(try fetchIndex(c, at: entityAt))
            default:
                warn("entity '\(entity.name)': kept the unknown element <\(c.name)> (line \(c.line)) without using it")
                entity.preservedXML.append(c.copy())
            }
        }
        // An attribute marked indexed is an index named after it, as Core Data reads it.
        try entity.setFetchIndexes(stored: storedIndexes, indexedProperties: indexedAttributes)
    }

    /// `<fetchIndex name partialIndexPredicate>` with its `<fetchIndexElement property
    /// type="Binary|RTree" order="ascending|descending">` children; Xcode writes every
    /// attribute, and an absent one means binary and ascending.
    private func fetchIndex(_ c: XMLTag, at: ModelLocation) throws(ObjectGraphError) -> FetchIndexDescription {
        var elements: [FetchIndexDescription.Element] = []
        for x in c.children("fetchIndexElement") {
            guard let property = x["property"] else { throw at.error("a fetch index element (line \(x.line)) names no property") }
            let collation: FetchIndexDescription.Collation
            switch x["type"] ?? "Binary" {
            case "Binary": collation = .binary
            case "RTree": collation = .rtree
            case let other: throw at.error("fetch index element type=\"\(other)\" must be Binary or RTree (line \(x.line))")
            }
            elements.append(.init(property: property, ascending: x["order"] != "descending", collation: collation))
        }
        return FetchIndexDescription(name: c["name"] ?? "", elements: elements, partialPredicate: c["partialIndexPredicate"])
    }

    /// What every property element may carry.
    private func common(_ p: PropertyDescription, _ c: XMLTag, at: ModelLocation) throws(ObjectGraphError) {
        try p.setVersionHashModifier(c["versionHashModifier"])
        try p.setRenamingIdentifier(c["elementID"])
        try p.setIndexedBySpotlight(try flag(c, "spotlightIndexingEnabled", at))
        try p.setStoredInExternalRecord(try flag(c, "storedInTruthFile", at))
        if let info = c.child("userInfo") { try p.setUserInfo(try userInfo(info, at: at)) }
        var predicates: [String] = [], warnings: [String] = []
        for rule in c.children("validationPredicate") {  // ObjectGraph's extension
            guard let predicate = rule["predicate"] else { throw at.error("a validation predicate (line \(rule.line)) has no predicate") }
            predicates.append(predicate)
            warnings.append(rule["warning"] ?? "")
        }
        if !predicates.isEmpty { try p.setValidationPredicates(predicates, warnings: warnings) }
    }

    private func userInfo(_ e: XMLTag, at: ModelLocation) throws(ObjectGraphError) -> [String: String] {
        var out: [String: String] = [:]
        for entry in e.children("entry") {
            guard let k = entry["key"] else { throw at.error("a user info entry (line \(entry.line)) has no key") }
            out[k] = entry["value"] ?? ""
        }
        return out
    }

    private static let attributeKnown: Set<String> = [
        "name", "optional", "transient", "indexed", "attributeType", "customClassName", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "valueTransformerName", "allowsExternalBinaryDataStorage", "spotlightIndexingEnabled",
        "storedInTruthFile", "elementID", "versionHashModifier", "derived", "derivationExpression", "preserveAfterDeletion",
    ]

    /// An `<attribute>`. Xcode leaves out what is at its default: `optional` (NO),
    /// `transient` (NO), and `attributeType` for an attribute of type Undefined, which
    /// only transient attributes may have.
    private mutating func attribute(_ c: XMLTag, name: String, in entity: EntityDescription, at: ModelLocation) throws(ObjectGraphError)
        -> AttributeDescription
    {
        let typeName = c["attributeType"] ?? "Undefined"
        guard let type = XcodeNames.attributeType(typeName) else { throw at.error("unknown attributeType '\(typeName)'") }
        let a = try entity.addAttribute(named: name, type: type, optional: try flag(c, "optional", at))
        try a.setTransient(try flag(c, "transient", at))
        try a.setValueTransformerName(c["valueTransformerName"])
        // Xcode's "Custom Class" of a transformable: the class of its values.
        try a.setAttributeValueClassName(c["customClassName"])
        try a.setAllowsExternalBinaryDataStorage(try flag(c, "allowsExternalBinaryDataStorage", at))
        try a.setRegularExpression(c["regularExpressionString"])
        try a.setPreservesValueInHistoryOnDeletion(try flag(c, "preserveAfterDeletion", at))
        if try flag(c, "derived", at) { try a.setDerivationExpression(c["derivationExpression"] ?? "") }
        var text = XcodeAttributeText()
        if type == .date {
            if let d = c["defaultDateTimeInterval"] { try a.setDefaultValue(text.dateValue(d, "defaultDateTimeInterval", at)) }
            let lo = c["minDateTimeInterval"].map { text.dateValue($0, "minDateTimeInterval", at) } ?? .null
            let hi = c["maxDateTimeInterval"].map { text.dateValue($0, "maxDateTimeInterval", at) } ?? .null
            try a.setValueBounds(min: lo, max: hi)
            if let d = c["defaultValueString"] { text.ignored(d, "defaultValueString", type, at) }
        } else {
            try text.setDefault(c["defaultValueString"], "defaultValueString", on: a, at: at)
            try text.setBounds(min: c["minValueString"], max: c["maxValueString"], names: ("minValueString", "maxValueString"), on: a, at: at)
        }
        for w in text.warnings { warn(w) }
        a.xcodeAttributes = Self.kept(c, known: Self.attributeKnown)
        return a
    }

    private static let relationshipKnown: Set<String> = [
        "name", "optional", "transient", "minCount", "maxCount", "toMany", "ordered", "deletionRule",
        "destinationEntity", "inverseName", "inverseEntity", "elementID", "versionHashModifier", "spotlightIndexingEnabled",
        "storedInTruthFile",
    ]

    private func relationship(_ c: XMLTag, name: String, in entity: EntityDescription, model: ManagedObjectModel,
                              at: ModelLocation) throws(ObjectGraphError) -> RelationshipDescription {
        guard let destinationName = c["destinationEntity"] else { throw at.error("relationship has no destinationEntity") }
        guard let destination = model.entity(named: destinationName) else { throw at.error("unknown destination entity '\(destinationName)'") }
        var rule = DeleteRule.nullify
        if let ruleName = c["deletionRule"] {
            guard let r = XcodeNames.deleteRule(ruleName) else { throw at.error("unknown deletionRule '\(ruleName)'") }
            rule = r
        }
        let toMany = try flag(c, "toMany", at)
        let minCount = try integer(c, "minCount", at) ?? 0
        let maxCount = try integer(c, "maxCount", at) ?? (toMany ? 0 : 1)
        if !toMany && maxCount != 1 {
            throw at.error("a to-one relationship must have maxCount 1, not \(maxCount) (set toMany=\"YES\" for a to-many)")
        }
        if toMany && maxCount == 1 { throw at.error("a to-many relationship cannot have maxCount 1") }
        if minCount < 0 || maxCount < -1 { throw at.error("minCount and maxCount must not be negative") }
        let r = try entity.addRelationship(named: name, destination: destination, toMany: toMany, deleteRule: rule)
        try r.setCounts(min: minCount, max: maxCount)
        try r.setOptional(try flag(c, "optional", at))
        try r.setTransient(try flag(c, "transient", at))
        _ = try flag(c, "indexed", at)  // a relationship is always indexed; the flag is kept for writing back
        try r.setOrdered(try flag(c, "ordered", at))
        r.xcodeAttributes = Self.kept(c, known: Self.relationshipKnown)
        return r
    }

    private func fetchRequest(_ e: XMLTag, at: ModelLocation, what: String) throws(ObjectGraphError) -> FetchRequestTemplate {
        guard let entityName = e["entity"] else { throw at.error("\(what) (line \(e.line)) names no entity") }
        var t = FetchRequestTemplate(entityName: entityName, predicateFormat: e["predicateString"])
        t.fetchLimit = try integer(e, "fetchLimit", at) ?? 0
        t.fetchOffset = try integer(e, "fetchOffset", at) ?? 0
        t.fetchBatchSize = try integer(e, "fetchBatchSize", at) ?? 0
        t.resultType = try integer(e, "resultType", at) ?? 0
        t.includesSubentities = try flag(e, "includeSubentities", at, default: true)
        t.returnsDistinctResults = try flag(e, "returnDistinctResults", at)
        t.returnsObjectsAsFaults = try flag(e, "returnObjectsAsFaults", at, default: true)
        t.includesPropertyValues = try flag(e, "includePropertyValues", at, default: true)
        for s in e.children("sortDescriptor") {  // ObjectGraph's extension
            guard let key = s["key"] else { throw at.error("a sort descriptor (line \(s.line)) has no key") }
            t.sortKeys.append(SortKey(key, ascending: try flag(s, "ascending", at, default: true)))
        }
        return t
    }
}

/// Xcode's spellings of attribute types, delete rules and default values.
enum XcodeNames {
    static let attributeTypes: [(String, AttributeType)] = [
        ("Undefined", .undefined), ("Integer 16", .integer16), ("Integer 32", .integer32), ("Integer 64", .integer64),
        ("Decimal", .decimal), ("Double", .double), ("Float", .float), ("String", .string), ("Boolean", .boolean),
        ("Date", .date), ("Binary", .binaryData), ("UUID", .uuid), ("URI", .uri), ("Transformable", .transformable),
        ("ObjectID", .objectID),
    ]

    static func attributeType(_ name: String) -> AttributeType? { attributeTypes.first { $0.0 == name }?.1 }

    static func name(of type: AttributeType) -> String { attributeTypes.first { $0.1 == type }!.0 }

    static let deleteRules: [(String, DeleteRule)] = [("No Action", .noAction), ("Nullify", .nullify), ("Cascade", .cascade), ("Deny", .deny)]

    static func deleteRule(_ name: String) -> DeleteRule? { deleteRules.first { $0.0 == name }?.1 }

    static func name(of rule: DeleteRule) -> String { deleteRules.first { $0.1 == rule }!.0 }

    /// Xcode's spelling of a default or bound value (dates are written as intervals).
    static func string(_ v: AttributeValue) -> String? {
        switch v {
        case .null, .data, .date, .transformable: nil
        case .integer(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(format1(d)) : String(d)
        case .boolean(let b): b ? "YES" : "NO"
        case .string(let s): s
        case .decimal(let d): d.description
        case .uuid(let u): u.uuidString
        case .uri(let u): u
        }
    }

    /// `2.0` for whole doubles, as Xcode writes them.
    private static func format1(_ d: Double) -> String { String(Int64(d)) + ".0" }
}
