extension ManagedObjectModel {
    /// Checks what a coordinator relies on: relationships have a destination in this
    /// model, inverses point back, to-ones have max count 1, defaults suit their types,
    /// persistent attributes have a storable type. Errors name the entity and property.
    public func validate() throws(ObjectGraphError) {
        for entity in entities {
            for property in entity.ownProperties {
                let where_ = "'\(entity.name).\(property.name)'"
                if let attribute = property as? AttributeDescription {
                    if !attribute.isTransient && (attribute.attributeType == .undefined || attribute.attributeType == .objectID) {
                        throw .invalidModel("attribute \(where_) has type \(attribute.attributeType.name), which only transient attributes may have")
                    }
                    _ = try attribute.defaultValue.coerced(to: attribute.attributeType, key: property.name, entity: entity.name)
                }
                guard let relationship = property as? RelationshipDescription else { continue }
                guard let destination = relationship.destinationEntity, destination.model === self,
                    self.entity(named: destination.name) === destination
                else {
                    throw .invalidModel("relationship \(where_) has a destination entity that is not in the model")
                }
                if let inverse = relationship.inverseRelationship {
                    guard inverse.inverseRelationship === relationship,
                        let inverseOwner = inverse.entity, destination.isKind(of: inverseOwner) || inverseOwner.isKind(of: destination)
                    else {
                        throw .invalidModel("relationship \(where_): its inverse '\(inverse.qualifiedName)' does not point back at it")
                    }
                }
                if relationship.maxCount != 0 && relationship.minCount > relationship.maxCount {
                    throw .invalidModel("relationship \(where_) has a min count above its max count")
                }
            }
        }
    }
}
