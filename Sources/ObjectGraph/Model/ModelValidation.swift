extension ManagedObjectModel {
    /// Checks what a coordinator relies on, and what Core Data's model compiler checks:
    /// hierarchies without cycles, relationships with a destination in this model and an
    /// inverse that points back, consistent counts, defaults and bounds that suit their
    /// types, transformers only where values are transformed, configurations, templates,
    /// constraints and indexes that name what exists. Errors name the entity and property.
    public func validate() throws(ObjectGraphError) {
        try validateNames()
        for entity in entities {
            let at = ModelLocation(entity: entity.name)
            var seen: Set<ObjectIdentifier> = []
            var ancestor: EntityDescription? = entity
            while let a = ancestor {
                guard seen.insert(ObjectIdentifier(a)).inserted else { throw at.error("inheritance cycle through '\(a.name)'") }
                ancestor = a.superentity
            }
            if let parent = entity.superentity, parent.model !== self { throw at.error("superentity '\(parent.name)' is not in the model") }
            for property in entity.ownProperties {
                let pat = at.with(entity: entity.name, property: property.name)
                if EntityDescription.reservedNames.contains(property.name) { throw pat.error("'\(property.name)' is a reserved name") }
                if let attribute = property as? AttributeDescription {
                    try validate(attribute, pat)
                } else if let relationship = property as? RelationshipDescription {
                    try validate(relationship, pat)
                } else if let fetched = property as? FetchedPropertyDescription {
                    if self.entity(named: fetched.fetchRequest.entityName) == nil {
                        throw pat.error("fetched property fetches the unknown entity '\(fetched.fetchRequest.entityName)'")
                    }
                }
            }
            let names = Set(entity.allProperties.map(\.name))
            for constraint in entity.uniquenessConstraints {
                if constraint.isEmpty { throw at.error("an empty uniqueness constraint") }
                for name in constraint where !names.contains(name) {
                    throw at.error("uniqueness constraint names the unknown property '\(name)'")
                }
            }
            for index in entity.fetchIndexes {
                for element in index.elements {
                    guard let property = entity.property(named: element.property) else {
                        throw at.error("fetch index '\(index.name)' names the unknown property '\(element.property)'")
                    }
                    try validate(element, of: index, property, at)
                }
            }
        }
        for name in configurations {
            for member in configurationEntityNames(name) where entity(named: member) == nil {
                throw ModelLocation().error("configuration '\(name)' names the unknown entity '\(member)'")
            }
        }
        for (name, template) in fetchRequestTemplatesByName where entity(named: template.entityName) == nil {
            throw ModelLocation().error("fetch request template '\(name)' names the unknown entity '\(template.entityName)'")
        }
    }

    /// Every name a store turns into SQL, or a file can carry, is a plain identifier
    /// (`ModelName.isValid`): entities, properties, configurations, fetch indexes and the
    /// property names of uniqueness constraints and fetch-index elements. Checked before
    /// anything else, so that no later message or statement ever holds a hostile name.
    func validateNames() throws(ObjectGraphError) {
        for entity in entities {
            if let why = ModelName.problem(entity.name) {
                throw ModelName.error(ModelLocation(), "entity", entity.name, why)
            }
        }
        for entity in entities {
            let at = ModelLocation(entity: entity.name)
            for property in entity.ownProperties {
                if let why = ModelName.problem(property.name) {
                    throw ModelName.error(at, "property", property.name, why)
                }
            }
            for constraint in entity.uniquenessConstraints {
                for name in constraint {
                    if let why = ModelName.problem(name) { throw ModelName.error(at, "property in a uniqueness constraint", name, why) }
                }
            }
            for index in entity.fetchIndexes {
                if let why = ModelName.problem(index.name) { throw ModelName.error(at, "fetch index", index.name, why) }
                for element in index.elements {
                    if let why = ModelName.problem(element.property) {
                        throw ModelName.error(at, "property in fetch index '\(index.name)'", element.property, why)
                    }
                }
            }
        }
        for name in configurations {
            if let why = ModelName.problem(name) { throw ModelName.error(ModelLocation(), "configuration", name, why) }
        }
        // Fetch request templates are looked up by name and never reach SQL: any text will
        // do but none (Xcode cannot save a template without a name).
        for name in fetchRequestTemplatesByName.keys where name.isEmpty {
            throw ModelName.error(ModelLocation(), "fetch request template", name, "a name cannot be empty")
        }
    }

    private func validate(_ attribute: AttributeDescription, _ at: ModelLocation) throws(ObjectGraphError) {
        let type = attribute.attributeType
        if !attribute.isTransient && (type == .undefined || type == .objectID) {
            throw at.error("attribute has type \(type.name), which only transient attributes may have")
        }
        if (type == .undefined || type == .objectID) && !attribute.defaultValue.isNull {
            throw at.error("attribute has type \(type.name), which has no default value")
        }
        do throws(ObjectGraphError) {
            _ = try attribute.defaultValue.coerced(to: type, key: attribute.name, entity: attribute.entity?.name ?? "?")
        } catch { throw at.error("default value \(attribute.defaultValue) does not suit type \(type.name): \(error.message)") }
        if attribute.valueTransformerName != nil && type != .transformable {
            throw at.error("only transformable attributes take a value transformer; this one is \(type.name)")
        }
        // A transformable of a custom class without a transformer name is valid: Xcode and
        // Core Data then use the default transformer.
        if let lo = attribute.minValue.sortKey, let hi = attribute.maxValue.sortKey, lo > hi {
            throw at.error("minimum value \(attribute.minValue) is above the maximum \(attribute.maxValue)")
        }
        if let lo = attribute.minLength, let hi = attribute.maxLength, lo > hi {
            throw at.error("minimum length \(lo) is above the maximum length \(hi)")
        }
        if let pattern = attribute.regularExpression {
            if type != .string { throw at.error("only string attributes take a regular expression") }
            do { _ = try Regex(pattern) } catch { throw at.error("regular expression '\(pattern)' is not valid") }
        }
    }

    /// What Core Data accepts in a fetch index: attributes and to-one relationships, and
    /// R-tree elements only over numbers.
    private func validate(_ element: FetchIndexDescription.Element, of index: FetchIndexDescription, _ property: PropertyDescription,
                          _ at: ModelLocation) throws(ObjectGraphError) {
        let what = "fetch index '\(index.name)': '\(element.property)'"
        if property is FetchedPropertyDescription { throw at.error("\(what) is a fetched property, which cannot be indexed") }
        if let r = property as? RelationshipDescription, r.isToMany { throw at.error("\(what) is a to-many relationship, which cannot be indexed") }
        if element.collation == .rtree, !((property as? AttributeDescription)?.attributeType.isNumeric ?? false) {
            throw at.error("\(what) is not a number, and an R-tree element indexes numbers")
        }
    }

    private func validate(_ relationship: RelationshipDescription, _ at: ModelLocation) throws(ObjectGraphError) {
        guard let destination = relationship.destinationEntity, destination.model === self,
            entity(named: destination.name) === destination
        else { throw at.error("the destination entity is not in the model") }
        if let inverse = relationship.inverseRelationship {
            guard inverse.inverseRelationship === relationship, let inverseOwner = inverse.entity,
                destination.isKind(of: inverseOwner) || inverseOwner.isKind(of: destination)
            else { throw at.error("its inverse '\(inverse.qualifiedName)' does not point back at it") }
        }
        if relationship.minCount < 0 || relationship.maxCount < -1 { throw at.error("counts must not be negative") }
        if relationship.maxCount > 0 && relationship.minCount > relationship.maxCount {
            throw at.error("min count \(relationship.minCount) is above max count \(relationship.maxCount)")
        }
        if relationship.isOrdered && !relationship.isToMany { throw at.error("a to-one relationship cannot be ordered") }
    }
}

extension AttributeValue {
    /// A number for comparing bounds of numbers and dates; nil for other values.
    var sortKey: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .decimal(let d): Double(d.description)
        case .date(let d): d.timeIntervalSinceReferenceDate
        default: nil
        }
    }
}

/// The names a model may give its entities, properties, configurations, fetch indexes and
/// constraints: what Xcode's model editor accepts, letters, digits and underscores, not
/// starting with a digit. Core Data's Xcode conventions on case (entities start with an
/// uppercase letter, properties with a lowercase one) are not enforced: Core Data's
/// runtime accepts models built in code without them. No such name holds a quote, a
/// space, a control character or a NUL, so it is safe in SQL, file names and messages.
public enum ModelName {
    /// Whether `name` is a valid model name.
    public static func isValid(_ name: String) -> Bool { problem(name) == nil }

    /// Why `name` is not a valid model name, or nil when it is.
    static func problem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a name cannot be empty" }
        if ("0"..."9").contains(first) { return "a name cannot start with a digit" }
        for c in name.unicodeScalars where !(c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_") {
            return "only letters, digits and underscores are allowed"
        }
        return nil
    }

    /// The invalid-model error (140009) naming the invalid name, shown escaped.
    static func error(_ at: ModelLocation, _ what: String, _ name: String, _ why: String) -> ObjectGraphError {
        var e = at.error("\(shown(name)) is not a valid name for a \(what): \(why)")
        e.userInfo.append((ErrorUserInfoKey.invalidName, name))
        return e
    }

    /// A name as a message shows it: in single quotes, with control characters, quotes and
    /// backslashes escaped, at most 80 characters.
    static func shown(_ name: String) -> String {
        var out = ""
        for (i, c) in name.unicodeScalars.enumerated() {
            if i == 80 { out += "…"; break }
            switch c {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if c.value < 0x20 || (0x7F...0x9F).contains(c.value) || c.properties.generalCategory == .format {
                    out += "\\u{\(String(c.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return "'" + out + "'"
    }
}
