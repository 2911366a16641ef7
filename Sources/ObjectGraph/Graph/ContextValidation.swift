/// Validation at save: required properties, relationship counts, deny rules. Every
/// failure becomes an error carrying the object, key and value; several become 1560.
extension ManagedObjectContext {
    func validatePendingChanges() throws(ObjectGraphError) {
        var errors: [ObjectGraphError] = []
        for o in inserted.objects + updated.objects where !o.isDeleted {
            for (slot, property) in o.entity.properties.enumerated() where !property.isTransient {
                switch o.entity.layout.kinds[slot] {
                case .attribute:
                    if !property.isOptional, try o.attribute(at: slot, key: property.name, self).isNull {
                        errors.append(missing(o, property))
                    }
                case .toOne(let r):
                    if !property.isOptional, try o.toOne(r, self) == nil { errors.append(missing(o, property)) }
                case .toMany(let r):
                    guard r.minCount > 0 || r.maxCount > 1 || !r.isOptional else { continue }
                    let n = try o.toMany(r, self).members.filter { !$0.isDeleted }.count
                    if n == 0 && !r.isOptional && r.minCount == 0 {
                        errors.append(missing(o, property))
                    } else if n < r.minCount && (n > 0 || !r.isOptional) {
                        errors.append(failure(o, property, ErrorCode.validationRelationshipLacksMinimumCount,
                                              "'\(property.qualifiedName)' has \(n) objects, fewer than its minimum of \(r.minCount)"))
                    } else if r.maxCount > 1 && n > r.maxCount {
                        errors.append(failure(o, property, ErrorCode.validationRelationshipExceedsMaximumCount,
                                              "'\(property.qualifiedName)' has \(n) objects, more than its maximum of \(r.maxCount)"))
                    }
                }
            }
        }
        for o in deleted.objects {
            for case let r as RelationshipDescription in o.entity.properties where r.deleteRule == .deny {
                if try destinations(of: o, r).contains(where: { !$0.isDeleted }) {
                    errors.append(failure(o, r, ErrorCode.validationRelationshipDeniedDelete,
                                          "\(o) cannot be deleted: its relationship '\(r.name)' is not empty and its delete rule is deny"))
                }
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw ObjectGraphError(
                code: ErrorCode.validationMultiple,
                message: "\(errors.count) validation errors: " + errors.map(\.message).joined(separator: "; "),
                details: errors)
        }
    }

    private func missing(_ o: ManagedObject, _ p: PropertyDescription) -> ObjectGraphError {
        failure(o, p, ErrorCode.validationMissingMandatoryProperty, "'\(p.qualifiedName)' is required but \(o) has no value for it")
    }

    private func failure(_ o: ManagedObject, _ p: PropertyDescription, _ code: Int, _ message: String) -> ObjectGraphError {
        ObjectGraphError(
            code: code, message: message,
            userInfo: [
                (ErrorUserInfoKey.validationObject, o.objectID.uriRepresentation),
                (ErrorUserInfoKey.validationKey, p.name),
            ])
    }
}
