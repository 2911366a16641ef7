/// Renaming entities and properties before the model is used (`setName:`). Model objects
/// point at each other by reference (destinations, inverses, superentities), so those
/// follow by themselves; what refers to a name is rewritten here: configurations, fetch
/// request templates, fetched properties' requests, uniqueness constraints, fetch indexes
/// and localization keys. Version hashes are computed from the names when asked for.
extension EntityDescription {
    /// Errors: 140008 when the model is in use; 140002 when `newName` is empty or another
    /// entity of the model has it; 140009 when it is not a valid name.
    public func setName(_ newName: String) throws(ObjectGraphError) {
        try checkEditable()
        guard newName != name else { return }
        guard !newName.isEmpty else { throw .invalidArgument("an entity's name cannot be empty") }
        if let model, model.entity(named: newName) != nil {
            throw .invalidArgument("the model already has an entity named '\(newName)'")
        }
        try Self.checkName(newName, what: "entity")
        let old = name
        name = newName
        guard let model else { return }
        for i in model.configurationMembers.indices {
            model.configurationMembers[i].entities = model.configurationMembers[i].entities.map { $0 == old ? newName : $0 }
        }
        for (key, var template) in model.fetchRequestTemplatesByName where template.entityName == old {
            template.entityName = newName
            model.fetchRequestTemplatesByName[key] = template
        }
        for e in model.entities {
            for case let f as FetchedPropertyDescription in e.ownProperties where f.fetchRequest.entityName == old {
                f.fetchRequest.entityName = newName
            }
        }
        model.renameLocalizationKeys { key in
            if key == "Entity/\(old)" { return "Entity/\(newName)" }
            if key.hasPrefix("Property/"), key.hasSuffix("/Entity/\(old)") {
                return String(key.dropLast(old.count)) + newName
            }
            return key
        }
        model.invalidateLayouts()
    }
}

extension PropertyDescription {
    /// Errors: 140008 when the model is in use; 140002 when `newName` is empty, reserved,
    /// or already a property of the entity (its own or inherited) or of a subentity;
    /// 140009 when it is not a valid name.
    public func setName(_ newName: String) throws(ObjectGraphError) {
        try checkEditable()
        guard newName != name else { return }
        guard !newName.isEmpty else { throw .invalidArgument("a property's name cannot be empty") }
        if let entity {
            let owner = entity.name
            if EntityDescription.reservedNames.contains(newName) {
                throw .invalidArgument("'\(owner).\(newName)': '\(newName)' is a reserved name")
            }
            if entity.property(named: newName) != nil || Self.descendants(of: entity).contains(where: { $0.ownProperties.contains { $0.name == newName } }) {
                throw .invalidArgument("entity '\(owner)' already has a property named '\(newName)'")
            }
        }
        try EntityDescription.checkName(newName, what: "property")
        let old = name
        name = newName
        guard let entity else { return }
        // The entity and its subentities may name the property in constraints and indexes.
        for e in [entity] + Self.descendants(of: entity) {
            e.uniquenessConstraints = e.uniquenessConstraints.map { $0.map { $0 == old ? newName : $0 } }
            e.fetchIndexes = e.fetchIndexes.map { index in
                var renamed = index
                renamed.elements = index.elements.map { element in
                    var e = element
                    if e.property == old { e.property = newName }
                    return e
                }
                return renamed
            }
        }
        entity.model?.renameLocalizationKeys { key in
            if key == "Property/\(old)" { return "Property/\(newName)" }
            if key == "Property/\(old)/Entity/\(entity.name)" { return "Property/\(newName)/Entity/\(entity.name)" }
            return key
        }
        entity.model?.invalidateLayouts()
        entity.invalidateLayout()
    }

    private static func descendants(of entity: EntityDescription) -> [EntityDescription] {
        entity.subentities.flatMap { [$0] + descendants(of: $0) }
    }
}

extension ManagedObjectModel {
    func renameLocalizationKeys(_ rename: (String) -> String) {
        guard !localizationDictionary.isEmpty else { return }
        var renamed: [String: String] = [:]
        for (k, v) in localizationDictionary { renamed[rename(k)] = v }
        localizationDictionary = renamed
    }
}
