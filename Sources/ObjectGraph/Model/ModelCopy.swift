import FoundationEssentials

extension ManagedObjectModel {
    /// An editable deep copy: the way to change a model that is in use. Entities and
    /// properties of the copy are new objects, keyed by name like the originals.
    public func copy() throws(ObjectGraphError) -> ManagedObjectModel {
        let target = ManagedObjectModel()
        try ModelCopier.copyEntities(of: self, into: target)
        target.versionIdentifiers = versionIdentifiers
        for name in configurations { target.setConfigurationNames(configurationEntityNames(name), forConfiguration: name) }
        target.fetchRequestTemplatesByName = fetchRequestTemplatesByName
        target.localizationDictionary = localizationDictionary
        target.xcodeAttributes = xcodeAttributes
        target.preservedXML = preservedXML
        target.loadWarnings = loadWarnings
        return target
    }

    /// Combines several models into one (`modelByMergingModels:`). Entity names must not
    /// repeat; configurations of the same name are joined; template names must not repeat;
    /// version identifiers are the union of the parts'.
    public convenience init(merging models: [ManagedObjectModel]) throws(ObjectGraphError) {
        self.init()
        for part in models {
            for e in part.entities where entity(named: e.name) != nil {
                throw .invalidModel("cannot merge models: both define an entity named '\(e.name)'")
            }
            for name in part.fetchRequestTemplatesByName.keys where fetchRequestTemplatesByName[name] != nil {
                throw .invalidModel("cannot merge models: both define a fetch request template named '\(name)'")
            }
            try ModelCopier.copyEntities(of: part, into: self)
            for id in part.versionIdentifiers where !versionIdentifiers.contains(id) { versionIdentifiers.append(id) }
            for name in part.configurations {
                setConfigurationNames(configurationEntityNames(name) + part.configurationEntityNames(name), forConfiguration: name)
            }
            fetchRequestTemplatesByName.merge(part.fetchRequestTemplatesByName) { a, _ in a }
            localizationDictionary.merge(part.localizationDictionary) { a, _ in a }
            loadWarnings += part.loadWarnings
        }
    }

    /// The merged model, when it matches the store metadata's version hashes
    /// (`modelByMergingModels:forStoreMetadata:`); nil otherwise.
    public static func merging(_ models: [ManagedObjectModel], forStoreMetadata metadata: [String: PropertyListValue]) -> ManagedObjectModel? {
        guard let merged = try? ManagedObjectModel(merging: models) else { return nil }
        return merged.isConfiguration(nil, compatibleWithStoreMetadata: metadata) ? merged : nil
    }
}

/// Copies entities between models, resolving superentities, destinations and inverses by name.
enum ModelCopier {
    static func copyEntities(of source: ManagedObjectModel, into target: ManagedObjectModel) throws(ObjectGraphError) {
        var pairs: [(EntityDescription, EntityDescription)] = []
        for e in source.entities {
            let c = try target.addEntity(named: e.name)
            try c.setAbstract(e.isAbstract)
            try c.setVersionHashModifier(e.versionHashModifier)
            try c.setManagedObjectClassName(e.managedObjectClassName)
            try c.setUserInfo(e.userInfo)
            try c.setRenamingIdentifier(e.explicitRenamingIdentifier)
            try c.setUniquenessConstraints(e.uniquenessConstraints)
            try c.setFetchIndexes(e.fetchIndexes)
            c.xcodeAttributes = e.xcodeAttributes
            c.preservedXML = e.preservedXML
            pairs.append((e, c))
        }
        for (e, c) in pairs {
            if let parent = e.superentity, let p = target.entity(named: parent.name) { try c.setSuperentity(p) }
        }
        var relationships: [(RelationshipDescription, RelationshipDescription)] = []
        for (e, c) in pairs {
            for p in e.ownProperties {
                let copy: PropertyDescription
                if let a = p as? AttributeDescription {
                    copy = a.copy()
                } else if let r = p as? RelationshipDescription {
                    guard let d = r.destinationEntity, let destination = target.entity(named: d.name) else {
                        throw .invalidModel("relationship '\(r.qualifiedName)' has a destination entity that is not in the model")
                    }
                    let rc = r.copy(destination: destination)
                    relationships.append((r, rc))
                    copy = rc
                } else if let f = p as? FetchedPropertyDescription {
                    copy = f.copy()
                } else {
                    continue
                }
                copy.xcodeAttributes = p.xcodeAttributes
                try c.add(copy)
            }
        }
        for (original, copy) in relationships {
            guard let inverse = original.inverseRelationship, let owner = inverse.entity,
                let target = copy.destinationEntity?.model?.entity(named: owner.name)?.property(named: inverse.name) as? RelationshipDescription
            else { continue }
            copy.setInverseOneSided(target)
        }
    }
}
