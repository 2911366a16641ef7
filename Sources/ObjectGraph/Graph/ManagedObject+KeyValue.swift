/// Managed objects as the predicate evaluator reads them: attributes are values, a to-one
/// is its destination (or nil), a to-many the collection of its destinations. Reading
/// fires the fault when needed; an unknown key is an error.
extension ManagedObject: KeyValueReading {
    public func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        let context = try context()
        guard let slot = entity.slot(forKey: key) else {
            // `entity` is the object's own entity unless a property takes the name.
            if key == "entity" { return .object(entity) }
            // A key another entity of the hierarchy declares (a fetch of a superentity by
            // a subentity's key): this instance has no value for it.
            if entity.hierarchyDeclares(key) { return .null }
            throw .predicateEvaluation("entity '\(entity.name)' has no property named '\(key)'", keyPath: key)
        }
        switch entity.layout.kinds[slot] {
        case .attribute: return .scalar(try attribute(at: slot, key: key, context))
        case .toOne(let r): return try toOne(r, context).map { .object($0) } ?? .null
        case .toMany(let r): return .collection(try toMany(r, context).members.map { .object($0) })
        }
    }

    public var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? {
        objectID.isTemporaryID ? nil : (entity, objectID.primaryKey)
    }

    public var objectReference: ObjectReference? { objectID.objectReference }
}
