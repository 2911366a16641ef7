/// The engine's side of an incremental store: the rows and identities the coordinator
/// asks every store for, answered through the subclass's hooks. Fetches give identities
/// only (objects come back as faults); a row is made when a fault fires.
extension IncrementalStore {
    public func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        let ids = try fetchedIDs(request, entity, resultType: .managedObject)
        // Identity only: no values until a fault fires.
        var writer = RowBlockWriter()
        let rows = ids.map { writer.make(entity: $0.entity, primaryKey: $0.primaryKey, version: 0, values: []) }
        return StoreFetchResult(rows: rows, isExact: true, hasValues: false)
    }

    public func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]? {
        try fetchedIDs(request, entity, resultType: .managedObjectID).map { ($0.entity, $0.primaryKey) }
    }

    public func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        switch try execute(copy(of: request, as: .count), context: RequestingContext.current) {
        case .count(let n):
            guard n >= 0 else { throw badAnswer("a count request returned \(n)") }
            return n
        case .objects(let objects): return objects.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries: throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "the incremental store '\(registeredType)' answered a count request with dictionaries")
        }
    }

    public func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        let plan = try DictionaryPlan.make(request, entity)
        guard case .dictionaries(let found) = try execute(copy(of: request, as: .dictionary), context: RequestingContext.current) else {
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "the incremental store '\(registeredType)' answered a dictionary request with something else than dictionaries")
        }
        var rows: [[StoreValue]] = []
        rows.reserveCapacity(found.count)
        for dictionary in found {
            var row: [StoreValue] = []
            row.reserveCapacity(plan.columns.count)
            for column in plan.columns {
                switch dictionary[column.name] {
                case nil: row.append(.null)
                case .value(let v)?: row.append(.value(v))
                case .objectID(let id)?:
                    let own = try own(id, kindOf: nil, "a dictionary fetch")
                    row.append(.row(own.entity, own.primaryKey))
                }
            }
            rows.append(row)
        }
        return rows
    }

    public func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        let id = objectID(entity, primaryKey)
        let context = RequestingContext.current
        let node = try newValues(forObjectWith: id, context: context)
        return try row(from: node, for: id, context: context)
    }

    public func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for key in primaryKeys { if let row = try fetchRow(entity: entity, primaryKey: key) { rows.append(row) } }
        return rows
    }

    /// To-manys are read through `newValue(forRelationship:…)`, never found by their
    /// inverse: the members' identities, which the context turns into faults.
    public func memberKeys(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)] {
        guard let owner = relationship.entity else { return [] }
        let ids = try newValue(forRelationship: relationship, forObjectWith: objectID(owner, primaryKey), context: RequestingContext.current)
        var keys: [(entity: EntityDescription, primaryKey: Int64)] = []
        keys.reserveCapacity(ids.count)
        for id in ids {
            let member = try own(id, kindOf: relationship.destinationEntity, "newValue(forRelationship: \(relationship.name))")
            keys.append((member.entity, member.primaryKey))
        }
        return keys
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for (entity, key) in try memberKeys(of: primaryKey, through: relationship) {
            if let row = try fetchRow(entity: entity, primaryKey: key) { rows.append(row) }
        }
        return rows
    }

    public func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        guard let forward = inverse.inverseRelationship else { return [] }
        return try fetchMembers(of: primaryKey, through: forward)
    }

    public func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription) throws(ObjectGraphError) -> MemberRows {
        var members = MemberRows()
        for owner in owners {
            for row in try fetchMembers(of: owner, through: relationship) {
                members.rows.append(row)
                members.owners.append(owner)
            }
        }
        return members
    }

    /// The subclass writes the save itself (`executeSave`); rows the context hands over are
    /// what it already has in the objects.
    public func save(_ body: (StoreSaveTransaction) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
        try body(IncrementalSaveTransaction(store: self))
    }

    public func setMetadata(_ metadata: [String: PropertyListValue]) throws(ObjectGraphError) {
        var new = metadata
        new[StoreMetadataKey.storeType] = .string(registeredType)
        new[StoreMetadataKey.storeUUID] = .string(identifier)
        self.metadata = new
    }


    public func move(to path: String) throws(ObjectGraphError) { self.path = path }

    // MARK: Converting answers

    private func copy(of request: FetchRequest, as type: FetchResultType) -> FetchRequest {
        let c = request.copy()
        c.resultType = type
        return c
    }

    /// The IDs a fetch hook gives for `request`: this store's, of `entity`'s hierarchy;
    /// instances of subentities are left out when the request excludes them.
    private func fetchedIDs(_ request: FetchRequest, _ entity: EntityDescription, resultType: FetchResultType) throws(ObjectGraphError) -> [ManagedObjectID] {
        let answer = try execute(request.resultType == resultType ? request : copy(of: request, as: resultType), context: RequestingContext.current)
        let given: [ManagedObjectID]
        switch answer {
        case .objectIDs(let ids): given = ids
        case .objects(let objects): given = objects.map(\.objectID)
        case .count, .dictionaries:
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "the incremental store '\(registeredType)' answered a fetch of \(entity.name) objects with \(answer)")
        }
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(given.count)
        for id in given {
            _ = try own(id, kindOf: entity, "a fetch of \(entity.name)")
            guard id.entity.isKind(of: entity) else {
                throw badAnswer("a fetch of \(entity.name) returned \(id.uriRepresentation), an object of its superentity \(id.entity.name)")
            }
            if !request.includesSubentities && id.entity !== entity { continue }
            ids.append(id)
        }
        return ids
    }

    /// The row of a node: attributes as a store keeps them, a to-one as its destination's
    /// key (read through `newValue(forRelationship:…)` when the node leaves it out).
    func row(from node: IncrementalStoreNode, for id: ManagedObjectID, context: ManagedObjectContext?) throws(ObjectGraphError) -> RowSnapshot {
        guard node.objectID == id else {
            throw badAnswer("newValues for \(id.uriRepresentation) returned the node of \(node.objectID.uriRepresentation)")
        }
        let entity = id.entity
        let layout = entity.layout
        var values = [AttributeValue](repeating: .null, count: layout.kinds.count)
        var missing: [String] = []
        for (slot, kind) in layout.kinds.enumerated() {
            let property = layout.properties[slot]
            guard !property.isTransient else { continue }
            let given = node.values[property.name]
            switch kind {
            case .attribute:
                guard let attribute = property as? AttributeDescription else { continue }
                switch given {
                case nil: if !attribute.isOptional { missing.append(attribute.name) }
                case .attribute(let v)?: values[slot] = try stored(v, attribute, entity)
                case .destination?:
                    throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "newValues for \(id.uriRepresentation) gave an object ID for the attribute '\(attribute.name)'")
                }
            case .toOne(let r):
                var destination: ManagedObjectID?
                switch given {
                case .destination(let d)?: destination = d
                case .attribute(.null)?: destination = nil
                case .attribute?:
                    throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "newValues for \(id.uriRepresentation) gave a value that is not an object ID for the to-one '\(r.name)'")
                case nil:
                    let found = try newValue(forRelationship: r, forObjectWith: id, context: context)
                    guard found.count <= 1 else { throw badAnswer("newValue(forRelationship: \(r.name)) returned \(found.count) objects for a to-one") }
                    destination = found.first
                }
                if let d = destination { values[slot] = .integer(try own(d, kindOf: r.destinationEntity, "the to-one '\(r.name)'").primaryKey) }
            case .toMany:
                continue
            }
        }
        guard missing.isEmpty else {
            throw badAnswer("the node of \(id.uriRepresentation) lacks the non-optional attribute\(missing.count == 1 ? "" : "s") \(missing.map { "'\($0)'" }.joined(separator: ", "))")
        }
        return RowSnapshot.make(entity: entity, primaryKey: id.primaryKey, version: node.version, values: values)
    }

    /// A node's attribute value as a row keeps it: of the attribute's type, a
    /// transformable value as its transformer's bytes.
    private func stored(_ value: AttributeValue, _ attribute: AttributeDescription, _ entity: EntityDescription) throws(ObjectGraphError) -> AttributeValue {
        guard attribute.attributeType == .transformable else {
            return try value.coerced(to: attribute.attributeType, key: attribute.name, entity: entity.name)
        }
        switch value {
        case .null, .data: return value
        case .transformable(let t): return .data(try ValueTransformers.encode(t, for: attribute))
        default: throw .typeMismatch(key: attribute.name, entity: entity.name, expected: .transformable, got: value)
        }
    }
}

/// A save's row writes for an incremental store: nothing to do, the save request carries
/// the objects. Keys come from `obtainPermanentIDs`, never from here.
struct IncrementalSaveTransaction: StoreSaveTransaction {
    let store: IncrementalStore

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        throw store.badAnswer("new \(entity.name) objects reached the store without permanent IDs")
    }

    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) {}
    func update(_ row: StoreRowWrite) throws(ObjectGraphError) {}
    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) {}
}
