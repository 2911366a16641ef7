import FoundationEssentials
import Synchronization

/// Migrates a store from one model version to another through a mapping model
/// (NSMigrationManager): it opens the source read-only with the source model, runs the
/// three stages (create destination objects, relationships, validation) with each
/// mapping's policy, and saves the destination once. A failed or cancelled migration
/// writes nothing: a new destination is built beside its path and moved there only when
/// complete; an existing destination gets all the new objects in one save or none.
public final class MigrationManager: @unchecked Sendable {
    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    /// The mapping model of the running (or last) migration.
    public private(set) var mappingModel: MappingModel?
    public var userInfo: [String: String] = [:]
    /// Called with the fraction done as a migration advances (from the migrating thread).
    public var progressHandler: ((Double) -> Void)?
    /// The mapping being processed, while a migration runs (`currentEntityMapping`).
    public private(set) var currentEntityMapping: EntityMapping?
    /// The contexts reading the source and writing the destination, while a migration runs.
    public private(set) var sourceContext: ManagedObjectContext?
    public private(set) var destinationContext: ManagedObjectContext?

    private let progressValue = Atomic<UInt64>(0)
    private let cancellation = Mutex<ObjectGraphError?>(nil)
    var associations = MigrationAssociations()
    private var policies: [ObjectIdentifier: EntityMigrationPolicy] = [:]
    /// Expressions parsed in this migration, by their text.
    private var parsed: [String: ObjectExpression] = [:]

    /// Both models are validated and become immutable (they serve as a coordinator's).
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) throws(ObjectGraphError) {
        try sourceModel.freeze()
        try destinationModel.freeze()
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// From 0 to 1 while a migration runs; 0 when none does.
    public var migrationProgress: Double { Double(bitPattern: progressValue.load(ordering: .relaxed)) }

    /// Makes the running migration stop at its next step and fail with `error`
    /// (134120 `NSMigrationCancelledError` when nil). Callable from any thread.
    public func cancel(_ error: ObjectGraphError? = nil) {
        cancellation.withLock { $0 = error ?? ObjectGraphError(code: ErrorCode.migrationCancelled, message: "the migration was cancelled") }
    }

    /// Forgets the associations of the last migration (`reset`).
    public func reset() { associations.removeAll() }

    // MARK: Migrating

    /// Migrates the store of `type` at `sourcePath` to a store of `destinationType` at
    /// `destinationPath` through `mapping` (inferred when nil)
    /// (`migrateStoreFromURL:type:options:withMappingModel:toDestinationURL:destinationType:destinationOptions:error:`).
    /// The destination keeps the source's metadata (its UUID and custom keys); its
    /// version hashes are the destination model's. Errors: 134110 for a mapping that does
    /// not fit the models (naming the entity) and for objects that fail validation, 134120
    /// when cancelled, 134150 when the source cannot be opened, 134160 when the destination
    /// cannot be made, 134170 for a policy that is not registered, 134190 when no mapping
    /// can be inferred; an error a policy throws comes through as it is.
    public func migrateStore(
        from sourcePath: String, type sourceType: String = StoreTypes.defaultName, options sourceOptions: [String: PropertyListValue] = [:],
        mapping: MappingModel? = nil, to destinationPath: String, type destinationType: String = StoreTypes.defaultName,
        destinationOptions: [String: PropertyListValue] = [:]
    ) throws(ObjectGraphError) {
        cancellation.withLock { $0 = nil }
        associations.removeAll()
        policies = [:]
        parsed = [:]
        setProgress(0)
        defer {
            sourceContext = nil
            destinationContext = nil
            currentEntityMapping = nil
            policies = [:]
            // Back to 0 quietly: the handler's last call was 1, or the failure.
            progressValue.store(Double(0).bitPattern, ordering: .relaxed)
        }
        let given = mapping
        let mapping: MappingModel
        if let given { mapping = given } else { mapping = try MappingModel.inferred(from: sourceModel, to: destinationModel) }
        mappingModel = mapping
        try check(mapping)

        let source = try openSource(sourcePath, type: sourceType, options: sourceOptions)
        let sourceStore = source.persistentStores[0]
        let target = try MigrationDestination(
            path: destinationPath, type: destinationType, options: destinationOptions, model: destinationModel, keeping: sourceStore)
        var done = false
        defer { if !done { target.abandon() } }
        sourceContext = ManagedObjectContext(coordinator: source)
        destinationContext = ManagedObjectContext(coordinator: target.coordinator)
        try runStages(mapping)
        do throws(ObjectGraphError) { try destinationContext?.save() } catch {
            throw ObjectGraphError(
                code: ErrorCode.migration, message: "the migrated objects cannot be saved: \(error.message)",
                userInfo: error.userInfo, details: [error])
        }
        try checkCancelled()
        try target.complete()
        done = true
        setProgress(1)
    }

    /// Runs the stages on already-open contexts (automatic migration reuses this).
    func runStages(_ mapping: MappingModel) throws(ObjectGraphError) {
        let mappings = mapping.entityMappings
        let count = Double(max(mappings.count, 1))
        // Stage 1: create the destination objects, mapping after mapping.
        for (i, m) in mappings.enumerated() {
            currentEntityMapping = m
            let policy = try self.policy(m)
            try policy.beginEntityMapping(m, manager: self)
            let sources = try sourceObjects(m)
            for (j, s) in sources.enumerated() {
                try checkCancelled()
                try policy.createDestinationInstances(for: s, mapping: m, manager: self)
                if j % 256 == 0 { setProgress((Double(i) + Double(j) / Double(max(sources.count, 1))) / count / 3) }
            }
            try policy.endInstanceCreation(m, manager: self)
            setProgress(Double(i + 1) / count / 3)
        }
        // Stage 2: relationships, once every object exists.
        for (i, m) in mappings.enumerated() {
            currentEntityMapping = m
            let policy = try self.policy(m)
            let destinations = associations.destinations(mapping: m.name, sources: nil)
            for (j, d) in destinations.enumerated() {
                try checkCancelled()
                try policy.createRelationships(for: d, mapping: m, manager: self)
                if j % 256 == 0 { setProgress((1 + (Double(i) + Double(j) / Double(max(destinations.count, 1))) / count) / 3) }
            }
            try policy.endRelationshipCreation(m, manager: self)
            setProgress((1 + Double(i + 1) / count) / 3)
        }
        // Stage 3: custom validation (the standard one runs when the destination saves).
        for (i, m) in mappings.enumerated() {
            currentEntityMapping = m
            try checkCancelled()
            let policy = try self.policy(m)
            try policy.performCustomValidation(m, manager: self)
            try policy.endEntityMapping(m, manager: self)
            setProgress((2 + Double(i + 1) / count) / 3)
        }
        currentEntityMapping = nil
    }

    // MARK: For policies and expressions

    /// Records that `destination` was made from `source` by `mapping`.
    public func associate(source: ManagedObject, destination: ManagedObject, mapping: EntityMapping) {
        associations.associate(source, destination, mapping: mapping.name)
    }

    /// The destination objects the mapping named `name` made from `sources` (nil: all).
    /// Errors: 140002 for a name the mapping model lacks.
    public func destinationInstances(forEntityMappingNamed name: String, sourceInstances sources: [ManagedObject]?) throws(ObjectGraphError) -> [ManagedObject] {
        try requireMapping(name)
        return associations.destinations(mapping: name, sources: sources)
    }

    /// The source objects the mapping named `name` made `destinations` from (nil: all).
    public func sourceInstances(forEntityMappingNamed name: String, destinationInstances destinations: [ManagedObject]?) throws(ObjectGraphError) -> [ManagedObject] {
        try requireMapping(name)
        return associations.sources(mapping: name, destinations: destinations)
    }

    /// The destination objects made from `sources`, the members of source relationship
    /// `relationship` of `mapping`'s source entity, by whichever mappings migrated them.
    public func destinationInstances(forSourceRelationshipNamed relationship: String, sourceInstances sources: [ManagedObject], mapping: EntityMapping)
        throws(ObjectGraphError) -> [ManagedObject]
    {
        if let name = mapping.sourceEntityName, let entity = sourceModel.entity(named: name), entity.relationshipsByName[relationship] == nil {
            throw .invalidArgument("the source entity '\(name)' has no relationship '\(relationship)' (mapping '\(mapping.name)')")
        }
        var out: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for s in sources {
            let names = (mappingModel?.entityMappings ?? []).filter { $0.sourceEntityName == s.entity.name }.map(\.name)
            for d in associations.destinations(ofSource: s, mappings: names) where seen.insert(ObjectIdentifier(d)).inserted { out.append(d) }
        }
        return out
    }

    /// A fetch request for exactly the source entity `name` (no subentities: each has its
    /// own mapping) with the predicate `predicateString`.
    public func fetchRequest(forSourceEntityNamed name: String, predicateString: String) throws(ObjectGraphError) -> FetchRequest {
        guard sourceModel.entity(named: name) != nil else { throw .unknownEntity(name) }
        let request = FetchRequest(entityName: name, predicate: try ObjectPredicate(format: predicateString))
        request.includesSubentities = false
        return request
    }

    /// The source entity of `mapping`, or nil (`sourceEntityForEntityMapping:`).
    public func sourceEntity(for mapping: EntityMapping) -> EntityDescription? { mapping.sourceEntityName.flatMap { sourceModel.entity(named: $0) } }

    /// The destination entity of `mapping`, or nil (`destinationEntityForEntityMapping:`).
    public func destinationEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entity(named: $0) }
    }

    /// The default of `createDestinationInstances`: one object from the attribute mappings.
    public func createDefaultDestinationInstance(for source: ManagedObject, mapping: EntityMapping) throws(ObjectGraphError) {
        guard let name = mapping.destinationEntityName, let context = destinationContext else { return }
        let destination = try context.insertObject(entityName: name)
        var evaluator = try self.evaluator(mapping)
        evaluator.source = source
        evaluator.destination = destination
        for p in mapping.attributeMappings {
            guard let expression = try parsedExpression(p.valueExpression, mapping, p.name) else { continue }
            evaluator.propertyMapping = p
            let value: PredicateValue
            do throws(ObjectGraphError) { value = try evaluator.value(expression) } catch { throw failed(error, mapping, p.name) }
            try setAttribute(value, on: destination, key: p.name, mapping: mapping)
        }
        associate(source: source, destination: destination, mapping: mapping)
    }

    /// The default of `createRelationships`: each relationship mapping's value, set.
    public func createDefaultRelationships(for destination: ManagedObject, mapping: EntityMapping) throws(ObjectGraphError) {
        var evaluator = try self.evaluator(mapping)
        evaluator.source = associations.sources(mapping: mapping.name, destinations: [destination]).first
        evaluator.destination = destination
        for p in mapping.relationshipMappings {
            guard let expression = try parsedExpression(p.valueExpression, mapping, p.name) else { continue }
            evaluator.propertyMapping = p
            do throws(ObjectGraphError) {
                let value = try evaluator.value(expression)
                guard let r = destination.entity.relationshipsByName[p.name] else {
                    throw .unknownKey(p.name, entity: destination.entity.name)
                }
                let objects = try MigrationExpressionEvaluator.managedObjects(value, "the relationship '\(p.name)'") ?? []
                if r.isToMany {
                    try destination.setObjects(objects, forKey: p.name)
                } else {
                    guard objects.count <= 1 else {
                        throw .predicateEvaluation("the to-one relationship '\(p.name)' got \(objects.count) objects")
                    }
                    try destination.setObject(objects.first, forKey: p.name)
                }
            } catch {
                throw failed(error, mapping, p.name)
            }
        }
    }

    // MARK: Internals

    func requireSourceContext() throws(ObjectGraphError) -> ManagedObjectContext {
        guard let c = sourceContext else { throw .invalidArgument("the migration manager's source context exists only while it migrates") }
        return c
    }

    func requireDestinationContext() throws(ObjectGraphError) -> ManagedObjectContext {
        guard let c = destinationContext else { throw .invalidArgument("the migration manager's destination context exists only while it migrates") }
        return c
    }

    func setProgress(_ value: Double) {
        let old = migrationProgress
        progressValue.store(value.bitPattern, ordering: .relaxed)
        if value != old, value == 0 || value == 1 || value - old >= 0.01 || value < old { progressHandler?(value) }
    }

    func checkCancelled() throws(ObjectGraphError) {
        if let error = cancellation.withLock({ $0 }) { throw error }
    }

    private func requireMapping(_ name: String) throws(ObjectGraphError) {
        guard mappingModel?.entityMappingsByName[name] != nil else {
            throw .invalidArgument("the mapping model has no entity mapping named '\(name)'")
        }
    }

    /// The mapping's policy, made once per migration. Errors: 134170 for a name nothing registered.
    func policy(_ mapping: EntityMapping) throws(ObjectGraphError) -> EntityMigrationPolicy {
        if let p = policies[ObjectIdentifier(mapping)] { return p }
        guard let p = EntityMigrationPolicy.make(named: mapping.migrationPolicyName) else {
            throw ObjectGraphError(
                code: ErrorCode.entityMigrationPolicy,
                message: "entity mapping '\(mapping.name)' names the migration policy '\(mapping.migrationPolicyName ?? "")', which is not registered")
        }
        policies[ObjectIdentifier(mapping)] = p
        return p
    }

    private func evaluator(_ mapping: EntityMapping) throws(ObjectGraphError) -> MigrationExpressionEvaluator {
        MigrationExpressionEvaluator(manager: self, mapping: mapping, policy: try policy(mapping))
    }

    /// The source objects of `mapping`: what its source expression yields.
    private func sourceObjects(_ mapping: EntityMapping) throws(ObjectGraphError) -> [ManagedObject] {
        switch mapping.kind {
        case .add, .remove: return []
        default: break
        }
        guard let expression = try parsedExpression(mapping.sourceExpression, mapping, nil) else { return [] }
        let value: PredicateValue
        do throws(ObjectGraphError) { value = try evaluator(mapping).value(expression) } catch { throw failed(error, mapping, nil) }
        do throws(ObjectGraphError) {
            return try MigrationExpressionEvaluator.managedObjects(value, "a source expression") ?? []
        } catch {
            throw failed(error, mapping, nil)
        }
    }

    private func parsedExpression(_ text: String?, _ mapping: EntityMapping, _ property: String?) throws(ObjectGraphError) -> ObjectExpression? {
        guard let text, !text.isEmpty else { return nil }
        // The parse depends on the text alone; a failure still names this mapping and property.
        if let e = parsed[text] { return e }
        do throws(ObjectGraphError) {
            let e = try ObjectExpression(format: text)
            parsed[text] = e
            return e
        } catch {
            throw failed(error, mapping, property)
        }
    }

    private func setAttribute(_ value: PredicateValue, on destination: ManagedObject, key: String, mapping: EntityMapping) throws(ObjectGraphError) {
        do throws(ObjectGraphError) {
            guard let a = destination.entity.attributesByName[key] else { throw .unknownKey(key, entity: destination.entity.name) }
            guard case .scalar(let v) = value else {
                throw .predicateEvaluation("the attribute '\(key)' needs a single value, got a \(value.kindName)")
            }
            try destination.setValue(ResultTyping.convert(v, to: a.attributeType), forKey: key)
        } catch {
            throw failed(error, mapping, key)
        }
    }

    /// `error`, said to come from `mapping` (and `property`): a mapping error (134110)
    /// unless it is a migration error or a policy's own already.
    func failed(_ error: ObjectGraphError, _ mapping: EntityMapping, _ property: String?) -> ObjectGraphError {
        if (134110...134190).contains(error.code) { return error }
        let subject = property.map { "property '\($0)' of entity mapping '\(mapping.name)'" } ?? "the source expression of entity mapping '\(mapping.name)'"
        var userInfo: [(String, String)] = [("mapping", mapping.name)]
        if let property { userInfo.append((ErrorUserInfoKey.property, property)) }
        return ObjectGraphError(code: ErrorCode.migration, message: "\(subject): \(error.message)", userInfo: userInfo, details: [error])
    }

    /// The mapping fits the two models (`MappingModel.check(source:destination:)`).
    func check(_ mapping: MappingModel) throws(ObjectGraphError) {
        try mapping.check(source: sourceModel, destination: destinationModel)
    }

    private func openSource(_ path: String, type: String, options: [String: PropertyListValue]) throws(ObjectGraphError) -> PersistentStoreCoordinator {
        do throws(ObjectGraphError) {
            // A store that is no file (a server's) says itself whether it is there, when added.
            let kind = try StoreTypes.require(type)
            guard path.isEmpty || !kind.capabilities.contains(.files) || StoreFiles.exists(path) else {
                throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no store at '\(StoreTypes.displayPath(path, type: type))'", userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))])
            }
            let coordinator = try PersistentStoreCoordinator(model: sourceModel)
            var readOnly = options
            readOnly[StoreOptionKey.readOnly] = .boolean(true)
            readOnly[StoreOptionKey.migrateAutomatically] = nil
            try coordinator.addPersistentStore(type: type, configuration: nil, path: path, options: readOnly)
            return coordinator
        } catch {
            throw ObjectGraphError(
                code: ErrorCode.migrationManagerSourceStore, message: "cannot open the migration's source store '\(StoreTypes.displayPath(path, type: type))': \(error.message)",
                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))], details: [error])
        }
    }
}
