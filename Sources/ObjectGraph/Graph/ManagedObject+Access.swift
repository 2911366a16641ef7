/// Key-value access beyond single attributes: key paths through relationships (with
/// collection operators), primitive accessors, and what changed since the last save.
extension ManagedObject {
    /// The value at a dotted key path (`author.name`, `books.@count`), read as predicates
    /// read it: to-ones as objects, to-manys as collections.
    public final func value(forKeyPath keyPath: String) throws(ObjectGraphError) -> PredicateValue {
        _ = try context()
        do {
            return try PredicateEvaluator.read(keyPath, from: .object(self))
        } catch {
            // An unknown first key is the entity's error, as for `value(forKey:)`.
            if let first = KeyPath.components(keyPath).first, entity.property(named: first) == nil, !KeyPath.isCollectionOperator(first) {
                throw .unknownKey(first, entity: entity.name)
            }
            throw error
        }
    }

    /// Reads an attribute without firing change tracking (`primitiveValueForKey:`).
    public final func primitiveValue(forKey key: String) throws(ObjectGraphError) -> AttributeValue {
        try value(forKey: key)
    }

    /// Writes an attribute without recording a change (`setPrimitiveValue:forKey:`): the
    /// object is not marked updated, the value is not validated at save unless something
    /// else changes, and no inverse or undo is involved.
    public final func setPrimitiveValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        let context = try context()
        let slot = try slot(key)
        guard case .attribute(let type) = entity.layout.kinds[slot] else {
            throw .wrongKind(key: key, entity: entity.name, expected: "an attribute; primitive accessors take attributes")
        }
        let coerced = try value.coerced(to: type, key: key, entity: entity.name)
        try makeWritable(context)
        current![slot] = coerced
    }

    /// Persistent properties changed since the last fetch or save, with their new values
    /// (`changedValues`); transient properties are not included.
    public final func changedValues() throws(ObjectGraphError) -> [String: PredicateValue] {
        _ = try context()
        var out: [String: PredicateValue] = [:]
        for slot in 0..<entity.properties.count where isInserted || isChanged(slot) {
            let p = entity.properties[slot]
            if p.isTransient { continue }
            if isInserted, case .attribute = entity.layout.kinds[slot], (current?[slot] ?? .null) == (entity.layout.defaults[slot]) { continue }
            out[p.name] = try predicateValue(forKey: p.name)
        }
        return out
    }

    /// The last fetched or saved values of `keys` (all persistent properties when nil):
    /// attributes as values, to-ones as objects (`committedValuesForKeys:`).
    public final func committedValues(forKeys keys: [String]? = nil) throws(ObjectGraphError) -> [String: PredicateValue] {
        let context = try context()
        if !isInserted { try fireFault(context) }
        var out: [String: PredicateValue] = [:]
        for p in entity.properties where !p.isTransient && (keys?.contains(p.name) ?? true) {
            let slot = p.slot
            switch entity.layout.kinds[slot] {
            case .attribute:
                out[p.name] = .scalar(try transformed(snapshot?[slot] ?? .null, at: slot))
            case .toOne(let r):
                if case .integer(let pk)? = snapshot?[slot], let d = r.destinationEntity {
                    out[p.name] = .object(try context.object(entity: d, primaryKey: pk, in: try context.storeRef(of: objectID)))
                } else {
                    out[p.name] = .null
                }
            case .toMany:
                continue
            }
        }
        if let keys {
            for k in keys where entity.property(named: k) == nil { throw .unknownKey(k, entity: entity.name) }
        }
        return out
    }

    /// Whether the relationship's contents are not loaded yet; never fires a fault.
    public final func hasFault(forRelationshipNamed name: String) throws(ObjectGraphError) -> Bool {
        guard let slot = entity.slot(forKey: name) else { throw .unknownKey(name, entity: entity.name) }
        guard case .attribute = entity.layout.kinds[slot] else { return state(slot) == nil && !isInserted }
        throw .wrongKind(key: name, entity: entity.name, expected: "a relationship")
    }

    /// 0: the object is not in the middle of turning into, or out of, a fault.
    public final var faultingState: Int { 0 }
}
