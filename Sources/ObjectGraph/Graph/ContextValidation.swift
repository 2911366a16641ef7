import FoundationEssentials

/// Validation (§2.6): the model's rules for every property, in Core Data's order — nil
/// against optional, numeric and date bounds, string length, pattern, validation
/// predicates, relationship counts — then the object's own `validateValue(_:forKey:)`.
/// Each failure is an error carrying the object, key, value and (for predicates) the
/// predicate; at save, several become 1560 with the details.
extension ManagedObject {
    /// Validates one value against the model's rules for `key` and the object's own
    /// validator, without changing the object; returns the value to use.
    public final func validate(_ value: PredicateValue, forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        let context = try context()
        guard let property = entity.property(named: key) else { throw .unknownKey(key, entity: entity.name) }
        var errors: [ObjectGraphError] = []
        modelRules(property, value, context, into: &errors)
        if let first = errors.first { throw first }
        return try validateValue(value, forKey: key)
    }

    /// Every property's rules and validator; one failure as is, several as 1560.
    func validateProperties() throws(ObjectGraphError) {
        guard let context = managedObjectContext else { return }
        var errors: [ObjectGraphError] = []
        let layout = entity.layout
        // Without a validator of its own, only properties with model rules can fail.
        let checksEverything = type(of: self) != ManagedObject.self || context.hooks(for: entity)?.validateValue != nil
        let slots = checksEverything ? Array(layout.properties.indices) : layout.ruledSlots
        for slot in slots {
            let property = layout.properties[slot]
            let value: PredicateValue
            if !checksEverything, case .attribute(.transformable) = layout.kinds[slot], case .data(let bytes)? = loadedValue(slot) {
                // Stored bytes are a value; the model's rules need not decode them.
                value = .scalar(.data(bytes))
            } else {
                do { value = try predicateValue(forKey: property.name) } catch { errors.append(error); continue }
            }
            let before = errors.count
            modelRules(property, value, context, into: &errors)
            if errors.count == before {
                do { _ = try validateValue(value, forKey: property.name) } catch { errors.append(error) }
            }
        }
        try ValidationErrors.throwIfAny(errors)
    }

    func validateDenyRules() throws(ObjectGraphError) {
        guard let context = managedObjectContext else { return }
        var errors: [ObjectGraphError] = []
        for case let r as RelationshipDescription in entity.properties where r.deleteRule == .deny {
            if try context.destinations(of: self, r).contains(where: { !$0.isDeleted }) {
                errors.append(ValidationErrors.failure(self, r, nil, ErrorCode.validationRelationshipDeniedDelete,
                    "\(self) cannot be deleted: its relationship '\(r.name)' is not empty and its delete rule is deny"))
            }
        }
        try ValidationErrors.throwIfAny(errors)
    }

    private func modelRules(_ p: PropertyDescription, _ value: PredicateValue, _ context: ManagedObjectContext, into errors: inout [ObjectGraphError]) {
        if let r = p as? RelationshipDescription {
            relationshipRules(r, value, into: &errors)
            return
        }
        guard let a = p as? AttributeDescription, case .scalar(let v) = value else { return }
        if v.isNull {
            if !a.isOptional {
                errors.append(ValidationErrors.failure(self, a, nil, ErrorCode.validationMissingMandatoryProperty,
                    "'\(a.qualifiedName)' is required but \(self) has no value for it"))
            }
            return
        }
        // Numbers and dates against their bounds.
        if let n = ValueComparison.number(v), v.kindName != "date" {
            if let min = ValueComparison.number(a.minValue), n < min {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationNumberTooSmall,
                    "\(v) is smaller than the minimum \(a.minValue) of '\(a.qualifiedName)'"))
            }
            if let max = ValueComparison.number(a.maxValue), n > max {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationNumberTooLarge,
                    "\(v) is larger than the maximum \(a.maxValue) of '\(a.qualifiedName)'"))
            }
        }
        if case .date(let d) = v {
            if case .date(let min) = a.minValue, d < min {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationDateTooSoon,
                    "\(v) is earlier than the earliest date \(a.minValue) of '\(a.qualifiedName)'"))
            }
            if case .date(let max) = a.maxValue, d > max {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationDateTooLate,
                    "\(v) is later than the latest date \(a.maxValue) of '\(a.qualifiedName)'"))
            }
        }
        if case .string(let s) = v {
            let length = s.count
            if let min = a.minLength, length < min {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationStringTooShort,
                    "'\(a.qualifiedName)' is \(length) characters long, shorter than its minimum of \(min)"))
            }
            if let max = a.maxLength, length > max {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationStringTooLong,
                    "'\(a.qualifiedName)' is \(length) characters long, longer than its maximum of \(max)"))
            }
            if let pattern = a.regularExpression, !((try? StringMatching.matches(s, pattern, [])) ?? false) {
                errors.append(ValidationErrors.failure(self, a, v, ErrorCode.validationStringPatternMatching,
                    "'\(a.qualifiedName)' does not match the pattern \(pattern)"))
            }
        }
        predicateRules(a, value, into: &errors)
    }

    /// The property's validation predicates, evaluated with the value as SELF; a failure
    /// carries the predicate and the model's warning text.
    private func predicateRules(_ p: PropertyDescription, _ value: PredicateValue, into errors: inout [ObjectGraphError]) {
        for (i, format) in p.validationPredicates.enumerated() {
            let warning = i < p.validationWarnings.count ? p.validationWarnings[i] : "'\(p.qualifiedName)' does not satisfy \(format)"
            let holds: Bool
            do {
                holds = try ObjectPredicate(format: format).evaluate(with: value)
            } catch {
                holds = false
            }
            if !holds {
                var e = ValidationErrors.failure(self, p, value.scalarValue, ErrorCode.validation, warning)
                e.userInfo.append((ErrorUserInfoKey.validationPredicate, format))
                errors.append(e)
            }
        }
    }

    private func relationshipRules(_ r: RelationshipDescription, _ value: PredicateValue, into errors: inout [ObjectGraphError]) {
        if !r.isToMany {
            if value.isNull && !r.isOptional {
                errors.append(ValidationErrors.failure(self, r, nil, ErrorCode.validationMissingMandatoryProperty,
                    "'\(r.qualifiedName)' is required but \(self) has no value for it"))
            }
            return
        }
        // A to-many is never nil, so it is checked against its counts alone: an empty
        // non-optional one with a minimum of 0 is valid (Apple's stores hold such objects),
        // and an empty optional one is valid whatever its minimum.
        let members = (value.elements ?? []).filter { if case .object(let o) = $0 { !((o as? ManagedObject)?.isDeleted ?? false) } else { true } }
        let n = members.count
        if n < r.minCount && (n > 0 || !r.isOptional) {
            errors.append(ValidationErrors.failure(self, r, nil, ErrorCode.validationRelationshipLacksMinimumCount,
                "'\(r.qualifiedName)' has \(n) objects, fewer than its minimum of \(r.minCount)"))
        } else if r.maxCount > 1 && n > r.maxCount {
            errors.append(ValidationErrors.failure(self, r, nil, ErrorCode.validationRelationshipExceedsMaximumCount,
                "'\(r.qualifiedName)' has \(n) objects, more than its maximum of \(r.maxCount)"))
        }
    }
}

enum ValidationErrors {
    static func failure(_ o: ManagedObject, _ p: PropertyDescription, _ value: AttributeValue?, _ code: Int, _ message: String) -> ObjectGraphError {
        var info: [(key: String, value: String)] = [
            (ErrorUserInfoKey.validationObject, o.objectID.uriRepresentation),
            (ErrorUserInfoKey.validationKey, p.name),
        ]
        if let value, !value.isNull { info.append((ErrorUserInfoKey.validationValue, value.description)) }
        return ObjectGraphError(code: code, message: message, userInfo: info)
    }

    /// One error as is; several as 1560 with the details (nested 1560s are flattened).
    static func throwIfAny(_ errors: [ObjectGraphError]) throws(ObjectGraphError) {
        let flat = errors.flatMap { $0.code == ErrorCode.validationMultiple ? $0.details : [$0] }
        if flat.count == 1 { throw flat[0] }
        if flat.count > 1 {
            throw ObjectGraphError(
                code: ErrorCode.validationMultiple,
                message: "\(flat.count) validation errors: " + flat.map(\.message).joined(separator: "; "),
                details: flat)
        }
    }
}

extension ManagedObjectContext {
    /// Validates every inserted, updated and deleted object with its `validateFor…` method.
    func validatePendingChanges() throws(ObjectGraphError) {
        var errors: [ObjectGraphError] = []
        var plain = PlainEntities()
        for o in inserted.objects where !o.isDeleted && !plain.contains(o, self) {
            do { try o.validateForInsert() } catch { errors.append(error) }
        }
        for o in updated.objects where !o.isDeleted && !plain.contains(o, self) {
            do { try o.validateForUpdate() } catch { errors.append(error) }
        }
        for o in deleted.objects {
            do { try o.validateForDelete() } catch { errors.append(error) }
        }
        try ValidationErrors.throwIfAny(errors)
    }
}

/// The entities of a save whose objects have nothing to validate on insert or update: no
/// model rule on any property and no validation hook. An object of such an entity, of the
/// base class (a subclass may override the validation methods), is skipped without the
/// calls, which cost as much per object as writing its row.
private struct PlainEntities {
    private var known: [ObjectIdentifier: Bool] = [:]
    /// The last entity asked about and its answer: a save's objects come in runs of one entity.
    private var last: (key: ObjectIdentifier, plain: Bool)?

    mutating func contains(_ o: ManagedObject, _ context: ManagedObjectContext) -> Bool {
        guard type(of: o) == ManagedObject.self else { return false }
        let key = ObjectIdentifier(o.entity)
        if let last, last.key == key { return last.plain }
        if let plain = known[key] {
            last = (key, plain)
            return plain
        }
        let hooks = context.hooks(for: o.entity)
        let plain = o.layout.ruledSlots.isEmpty && hooks?.validateValue == nil && hooks?.validateForInsert == nil
            && hooks?.validateForUpdate == nil
        known[key] = plain
        last = (key, plain)
        return plain
    }
}

extension PredicateValue {
    var scalarValue: AttributeValue? { if case .scalar(let v) = self { v } else { nil } }
}
