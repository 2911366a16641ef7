/// Lightweight migration: the mapping Core Data infers between two versions of a model
/// (`inferredMappingModelForSourceModel:destinationModel:error:`).
///
/// Entities and properties are matched by name or renaming identifier. Each destination
/// entity gets a mapping (`IEM_Copy_…` when its version hash is unchanged, `IEM_Transform_…`
/// when it changed, `IEM_Add_…` when it is new); each source entity left over gets
/// `IEM_Remove_…`. Attribute mappings read the matched source attribute; relationship
/// mappings carry the matched source relationship over through the manager.
extension MappingModel {
    /// The inferred mapping from `source` to `destination`. Errors: 134190
    /// (`NSInferredMappingModelError`) with user info `reason`, `entity` and `property` for
    /// a change that cannot be inferred: a required attribute or relationship added without
    /// a default, an attribute whose type changes to one its values cannot become, a
    /// relationship whose destination is no longer the entity its objects migrate to.
    public static func inferred(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws(ObjectGraphError) -> MappingModel {
        let matches = matchEntities(source: source, destination: destination)
        var mappings: [EntityMapping] = []
        for d in destination.entitiesSortedByName {
            guard let s = matches[ObjectIdentifier(d)] else {
                mappings.append(EntityMapping(
                    name: "IEM_Add_\(d.name)", kind: .add, destinationEntityName: d.name, destinationEntityVersionHash: d.versionHash))
                continue
            }
            let kind: EntityMappingKind = s.versionHash == d.versionHash ? .copy : .transform
            let mapping = EntityMapping(
                name: "IEM_\(kind.inferredNameWord)_\(s.name)", kind: kind, sourceEntityName: s.name, destinationEntityName: d.name,
                sourceExpression: EntityMapping.defaultSourceExpression(forEntityNamed: s.name),
                sourceEntityVersionHash: s.versionHash, destinationEntityVersionHash: d.versionHash)
            for property in d.properties where !property.isTransient {
                let old = matchProperty(property, in: s)
                if let a = property as? AttributeDescription {
                    try checkAttribute(a, source: old as? AttributeDescription, entity: d)
                    let value = (old as? AttributeDescription).map { "FUNCTION($source, \"valueForKey:\", \(quoted($0.name)))" }
                    mapping.attributeMappings.append(PropertyMapping(name: a.name, valueExpression: value))
                } else if let r = property as? RelationshipDescription {
                    let oldRelationship = old as? RelationshipDescription
                    try checkRelationship(r, source: oldRelationship, entity: d, matches: matches)
                    let value = oldRelationship.map {
                        "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \(quoted($0.name)), FUNCTION($source, \"valueForKey:\", \(quoted($0.name))))"
                    }
                    mapping.relationshipMappings.append(PropertyMapping(name: r.name, valueExpression: value))
                }
            }
            mappings.append(mapping)
        }
        let matched = Set(matches.values.map { ObjectIdentifier($0) })
        for s in source.entitiesSortedByName where !matched.contains(ObjectIdentifier(s)) {
            mappings.append(EntityMapping(name: "IEM_Remove_\(s.name)", kind: .remove, sourceEntityName: s.name, sourceEntityVersionHash: s.versionHash))
        }
        return MappingModel(entityMappings: mappings)
    }

    /// Destination entity → the source entity it migrates from. A destination entity's
    /// renaming identifier names its source entity, or both carry the same identifier.
    static func matchEntities(source: ManagedObjectModel, destination: ManagedObjectModel) -> [ObjectIdentifier: EntityDescription] {
        var out: [ObjectIdentifier: EntityDescription] = [:]
        var taken = Set<ObjectIdentifier>()
        let candidates = source.entitiesSortedByName
        for d in destination.entitiesSortedByName {
            let s = candidates.first { !taken.contains(ObjectIdentifier($0)) && $0.name == d.renamingIdentifier }
                ?? candidates.first { !taken.contains(ObjectIdentifier($0)) && $0.renamingIdentifier == d.renamingIdentifier }
            if let s {
                out[ObjectIdentifier(d)] = s
                taken.insert(ObjectIdentifier(s))
            }
        }
        return out
    }

    /// The property of `source` that `property` migrates from, of the same kind.
    static func matchProperty(_ property: PropertyDescription, in source: EntityDescription) -> PropertyDescription? {
        let sameKind = source.properties.filter { !$0.isTransient && type(of: $0) == type(of: property) }
        return sameKind.first { $0.name == property.renamingIdentifier } ?? sameKind.first { $0.renamingIdentifier == property.renamingIdentifier }
    }

    private static func checkAttribute(_ a: AttributeDescription, source: AttributeDescription?, entity: EntityDescription) throws(ObjectGraphError) {
        guard let source else {
            if !a.isOptional && a.defaultValue.isNull && a.derivationExpression == nil {
                throw notInferable("the required attribute is new and has no default value", entity: entity, property: a.name)
            }
            return
        }
        if source.attributeType != a.attributeType, !AttributeConversion.canConvert(source.attributeType, to: a.attributeType) {
            throw notInferable(
                "the attribute's type changes from \(source.attributeType.name) to \(a.attributeType.name), which its values cannot become",
                entity: entity, property: a.name)
        }
    }

    private static func checkRelationship(
        _ r: RelationshipDescription, source: RelationshipDescription?, entity: EntityDescription, matches: [ObjectIdentifier: EntityDescription]
    ) throws(ObjectGraphError) {
        guard let source else {
            if !r.isOptional && (r.minCount > 0 || !r.isToMany) {
                throw notInferable("the required relationship is new", entity: entity, property: r.name)
            }
            return
        }
        guard let newDestination = r.destinationEntity, let oldDestination = source.destinationEntity else { return }
        // The objects the old relationship held must migrate to the new destination or a subentity of it.
        let migratesTo = matches.first { $0.value === oldDestination }.map(\.key)
        let fits = newDestination.selfAndDescendants.contains { ObjectIdentifier($0) == migratesTo }
        if !fits {
            throw notInferable(
                "the relationship's destination changes from \(oldDestination.name) to \(newDestination.name), which \(oldDestination.name) objects do not migrate to",
                entity: entity, property: r.name)
        }
    }

    static func notInferable(_ reason: String, entity: EntityDescription, property: String?) -> ObjectGraphError {
        var userInfo: [(String, String)] = [("reason", reason), (ErrorUserInfoKey.entity, entity.name)]
        if let property { userInfo.append((ErrorUserInfoKey.property, property)) }
        let subject = property.map { "'\(entity.name).\($0)'" } ?? "entity '\(entity.name)'"
        return ObjectGraphError(
            code: ErrorCode.inferredMappingModel, message: "cannot infer a mapping model: \(subject): \(reason)", userInfo: userInfo)
    }
}
