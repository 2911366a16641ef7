import FoundationEssentials

/// A store whose subclass keeps the data wherever it likes — another database, a web
/// service, a file format of its own — and answers the engine's requests itself
/// (`NSIncrementalStore`). The coordinator makes one per `addPersistentStore` of a type
/// registered with `IncrementalStoreType`, then calls `loadMetadata()`.
///
/// The subclass overrides the hooks; the engine does the rest as for any store: a fetch's
/// result is merged with the context's unsaved changes, sorted and windowed over them, and
/// prefetched as asked; objects come back as faults that fire through
/// `newValues(forObjectWith:context:)`; a to-many is read once through
/// `newValue(forRelationship:forObjectWith:context:)`, then kept until refreshed. A save
/// gives new objects permanent IDs through `obtainPermanentIDs(for:)`, then sends exactly
/// one `SaveChangesRequest`. An error a hook throws reaches the caller unchanged, and the
/// context keeps its changes.
///
/// Objects are named by references (`StoreReference`): `newObjectID(for:reference:)`
/// makes the ID of a reference, the same one every time, and its URI carries the
/// reference as Core Data's does (`x-coredata://<UUID>/<Entity>/p<reference>`).
///
/// Hooks run on the thread of the context that makes the request, with the coordinator
/// locked for that thread: they may use that context (`object(with:)`), not block on
/// another thread that uses the coordinator.
open class IncrementalStore: PersistentStore, ObjectSavingStore, @unchecked Sendable {
    /// The name the store's type is registered under; `type` unless a subclass says otherwise.
    public let registeredType: String
    public internal(set) var path: String
    public let configurationName: String?
    public let options: [String: PropertyListValue]
    /// The coordinator's model.
    public let model: ManagedObjectModel
    /// The store's metadata. `loadMetadata()` sets it, with `NSStoreType` (the type's
    /// name) and `NSStoreUUID`.
    public var metadata: [String: PropertyListValue] = [:]

    let referenceKeys = StoreReferenceKeys()
    /// Called once when the store closes or goes (its type counts open stores).
    var onClose: (() -> Void)?

    /// Called when the coordinator lets the store go (removed, or the coordinator gone).
    /// A subclass that overrides it calls `super.close()`.
    open func close() {
        onClose?()
        onClose = nil
    }

    /// Called by the store's type with what the store is added with.
    public required init(setup: StoreSetup, type: String) {
        registeredType = type
        path = setup.path
        configurationName = setup.configurationName
        options = setup.options
        model = setup.model
    }

    deinit {
        onClose?()
        StoreReferenceURIs.detach(referenceKeys, storeIdentifier: identifier)
    }

    /// The store's type name; must be the name it was registered under.
    open var type: String { registeredType }

    /// `NSStoreUUID` from the metadata.
    public var identifier: String { metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "" }

    // MARK: Hooks

    /// Sets `metadata` (`loadMetadata:`). Called once, by `addPersistentStore`. The default
    /// gives the store a new UUID.
    open func loadMetadata() throws(ObjectGraphError) {
        metadata = [StoreMetadataKey.storeType: .string(type), StoreMetadataKey.storeUUID: .string(UUID().uuidString)]
    }

    /// Answers a fetch request (`executeRequest:withContext:error:`): objects or their IDs
    /// for `.managedObject` and `.managedObjectID`, dictionaries for `.dictionary`, the
    /// number of matches for `.count`. The request's predicate, sort and window are the
    /// store's to apply. `context` is the context fetching (nil when none is known).
    open func execute(_ request: FetchRequest, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalFetchResult {
        throw hookMissing("execute(_:context:) for fetch requests")
    }

    /// Writes one save (`executeRequest:withContext:error:` with a save request): every
    /// change, or none when it throws.
    open func execute(_ request: SaveChangesRequest, context: ManagedObjectContext?) throws(ObjectGraphError) {
        throw hookMissing("execute(_:context:) for save requests")
    }

    /// The values of the object `id` (`newValuesForObjectWithID:withContext:error:`), for
    /// firing its fault. Each non-optional attribute must have a value; a to-one the node
    /// leaves out is read through `newValue(forRelationship:forObjectWith:context:)`.
    open func newValues(forObjectWith id: ManagedObjectID, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalStoreNode {
        throw hookMissing("newValues(forObjectWith:context:)")
    }

    /// The destinations of `relationship` of the object `id`
    /// (`newValueForRelationship:forObjectWithID:withContext:error:`): the members of a
    /// to-many, in order for an ordered one; none or one for a to-one.
    open func newValue(forRelationship relationship: RelationshipDescription, forObjectWith id: ManagedObjectID,
                       context: ManagedObjectContext?) throws(ObjectGraphError) -> [ManagedObjectID] {
        throw hookMissing("newValue(forRelationship:forObjectWith:context:)")
    }

    /// One permanent ID per new object, in order (`obtainPermanentIDsForObjects:error:`).
    /// The default names each by a new UUID.
    open func obtainPermanentIDs(for objects: [ManagedObject]) throws(ObjectGraphError) -> [ManagedObjectID] {
        objects.map { newObjectID(for: $0.entity, reference: .uuid(UUID())) }
    }

    // MARK: Helpers

    /// The permanent ID of the object `reference` names (`newObjectIDForEntity:referenceObject:`):
    /// the same ID for the same reference and entity hierarchy.
    public final func newObjectID(for entity: EntityDescription, reference: StoreReference) -> ManagedObjectID {
        ManagedObjectID(entity: entity, primaryKey: referenceKeys.key(for: reference, in: entity), storeIdentifier: identifier)
    }

    /// The reference `id` was made with (`referenceObjectForObjectID:`); nil for an ID of
    /// another store or a temporary one.
    public final func referenceObject(for id: ManagedObjectID) -> StoreReference? {
        guard !id.isTemporaryID, id.storeIdentifier == identifier else { return nil }
        return referenceKeys.reference(for: id.primaryKey, in: id.entity)?.reference
    }

    /// The ID of this store's object a URI names (`x-coredata://<UUID>/<Entity>/p<reference>`);
    /// nil for a URI of another store, an unknown entity, or text of another shape.
    public final func objectID(forURIRepresentation uri: String) -> ManagedObjectID? {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == identifier, parts[2].first == "p", let entity = model.entity(named: String(parts[1])),
            let key = referenceKeys.key(forURIText: parts[2].dropFirst(), in: entity)
        else { return nil }
        return objectID(entity, key)
    }

    /// The error of a hook the store does not implement (134070, naming it).
    public func hookMissing(_ hook: String) -> ObjectGraphError {
        ObjectGraphError(code: ErrorCode.storeOperation, message: "the incremental store type '\(registeredType)' does not implement \(hook)")
    }

    /// A hook's answer the engine cannot use.
    func badAnswer(_ message: String) -> ObjectGraphError {
        .invalidArgument("the incremental store '\(registeredType)' (\(identifier)): \(message)")
    }

    // MARK: Opening

    /// Runs `loadMetadata()` and checks what it set: the registered type (134010
    /// otherwise) and a UUID. Then the store's IDs have URIs of their references.
    func open() throws(ObjectGraphError) {
        try loadMetadata()
        let recorded = metadata[StoreMetadataKey.storeType]?.stringValue
        guard type == registeredType, recorded == registeredType else {
            throw ObjectGraphError(
                code: ErrorCode.storeTypeMismatch,
                message: "the incremental store registered as '\(registeredType)' has the type '\(type)' and NSStoreType '\(recorded ?? "")' in its metadata; both must be '\(registeredType)'")
        }
        guard !identifier.isEmpty else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "loadMetadata of the incremental store '\(registeredType)' set no NSStoreUUID")
        }
        referenceKeys.model = model
        StoreReferenceURIs.attach(referenceKeys, storeIdentifier: identifier)
    }

    // MARK: ObjectSavingStore

    public func obtainPermanentIDs(for objects: [ManagedObject], context: ManagedObjectContext) throws(ObjectGraphError) -> [ManagedObjectID] {
        let ids = try obtainPermanentIDs(for: objects)
        guard ids.count == objects.count else {
            throw badAnswer("obtainPermanentIDs returned \(ids.count) IDs for \(objects.count) objects")
        }
        for (o, id) in zip(objects, ids) {
            _ = try own(id, kindOf: o.entity, "obtainPermanentIDs")
            guard id.entity === o.entity else { throw badAnswer("obtainPermanentIDs returned \(id) for \(o), an object of entity \(o.entity.name)") }
        }
        return ids
    }

    public func executeSave(_ request: SaveChangesRequest, context: ManagedObjectContext) throws(ObjectGraphError) {
        try execute(request, context: context)
    }

    /// `id` when it is a permanent ID of this store of `entity`'s hierarchy (or of any
    /// entity when nil); otherwise an error naming the hook that gave it.
    func own(_ id: ManagedObjectID, kindOf entity: EntityDescription?, _ hook: String) throws(ObjectGraphError) -> ManagedObjectID {
        guard !id.isTemporaryID, id.storeIdentifier == identifier else {
            throw badAnswer("\(hook) returned \(id.uriRepresentation), which is not an object of this store")
        }
        if let entity, !id.entity.isKind(of: entity) && !entity.isKind(of: id.entity) {
            throw badAnswer("\(hook) returned \(id.uriRepresentation), an object of entity \(id.entity.name), where \(entity.name) was asked for")
        }
        return id
    }

    /// The ID of this store's object `primaryKey` in the hierarchy of `entity`, with the
    /// entity its reference was made for.
    func objectID(_ entity: EntityDescription, _ primaryKey: Int64) -> ManagedObjectID {
        let concrete = referenceKeys.reference(for: primaryKey, in: entity)?.entity ?? entity
        return ManagedObjectID(entity: concrete, primaryKey: primaryKey, storeIdentifier: identifier)
    }
}
