#if canImport(Glibc)
import Glibc
#endif

/// Automatic migration when a store is added (`NSMigratePersistentStoresAutomaticallyOption`,
/// `NSInferMappingModelAutomaticallyOption`): a store written with another version of the
/// model is migrated to the coordinator's model before it opens.
extension PersistentStoreCoordinator {
    /// Migrates the store file of `setup` when its version hashes differ from the model's.
    /// The source model is the one the store keeps (`Z_MODELCACHE`), else one of
    /// `modelVersions` that matches the store's hashes; the mapping is one of
    /// `mappingModels` made for the two models, else inferred when the option says so.
    /// Stores whose type can migrate in place (SQLite, with a lightweight mapping) do so in
    /// one transaction; others migrate object by object into a new file that replaces the old one only
    /// when complete. The store keeps its UUID and metadata. Errors: 134130 (no source
    /// model), 134140 (no mapping), 134190 (inference failed) and the migration's own;
    /// the file is then left as it was.
    func migrateIfNeeded(type: String, setup: StoreSetup) throws(ObjectGraphError) {
        let path = setup.path
        let kind = try StoreTypes.require(type)
        let options = setup.parsedOptions
        guard kind.capabilities.contains(.automaticMigration), kind.hasStore(at: path, options: options) else { return }
        let metadata = kind.capabilities.contains(.files)
            ? try Self.metadataForPersistentStore(ofType: type, at: path) : try kind.metadata(at: path, options: options)
        let model = managedObjectModel
        guard !model.isConfiguration(setup.configurationName, compatibleWithStoreMetadata: metadata) else { return }
        let source = try sourceModel(forStoreAt: path, type: kind, options: options, metadata: metadata)
        let steps = try migrationSteps(from: source, to: model, infer: options.inferMappingModel, path: StoreTypes.displayPath(path, type: type))
        // One lightweight step runs in place in one transaction, and so do several where the
        // type runs a chain at once; anything else runs on a copy that replaces the file
        // only when every step is done.
        if kind.capabilities.contains(.sqlInPlaceMigration) {
            if steps.count == 1,
                try kind.migrateInPlace(at: path, options: options, from: source, to: model, mapping: steps[0].mapping, versionHashes: setup.versionHashes)
            {
                return
            }
            let chain = steps.map { InPlaceMigrationStep(source: $0.source, destination: $0.destination, mapping: $0.mapping, versionHashes: versionHashes($0, setup)) }
            if steps.count > 1, try kind.migrateInPlace(at: path, options: options, chain: chain) { return }
        }
        // A store that is no file cannot be copied aside: only in-place steps migrate it.
        guard kind.capabilities.contains(.files) else {
            throw ObjectGraphError(
                code: ErrorCode.migration,
                message: "the \(kind.name) store '\(StoreTypes.displayPath(path, type: type))' migrates only in place, by lightweight steps from the model that wrote it to the current one; this migration needs objects (a custom mapping or policy). Copy the store to a file (migrate_store), migrate that, and copy it back",
                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))])
        }
        try migrateOnCopy(path: path, type: kind, setup: setup, steps: steps)
    }

    /// One migration between two model versions.
    struct MigrationStep {
        let source: ManagedObjectModel
        let destination: ManagedObjectModel
        let mapping: MappingModel
    }

    /// The shortest chain of mappings from `source` to `destination`: a supplied mapping
    /// or (with `infer`) an inferred one straight to it when there is one, else through
    /// the coordinator's other model versions along supplied mappings, inferring steps
    /// only to the destination or to where a supplied mapping starts (apps migrate from
    /// any old version this way, one custom step at a time; without supplied mappings,
    /// one inferred mapping from the store's model to the current one, as Core Data does).
    /// Errors: 134190 when inference was allowed and failed for the direct step and no
    /// chain exists; 134140 when no mapping fits.
    func migrationSteps(from source: ManagedObjectModel, to destination: ManagedObjectModel, infer: Bool, path: String) throws(ObjectGraphError)
        -> [MigrationStep]
    {
        let versions = [source] + modelVersionsValue.filter { $0 !== source && $0 !== destination } + [destination]
        func startsSuppliedMapping(_ m: ManagedObjectModel) -> Bool {
            versions.contains { v in v !== m && mappingModelsValue.contains { $0.isMade(from: m, to: v) } }
        }
        func edges(from m: ManagedObjectModel) -> [MigrationStep] {
            var out: [MigrationStep] = []
            for target in versions where target !== m {
                if let mapping = mappingModelsValue.first(where: { $0.isMade(from: m, to: target) }) {
                    out.append(MigrationStep(source: m, destination: target, mapping: mapping))
                }
            }
            // Inferred steps go straight to the destination, as Core Data infers one mapping
            // from the store's model to the current one, or to where a supplied mapping
            // starts: a chain is for applying supplied mappings on the way.
            if infer {
                for target in versions where target !== m && !out.contains(where: { $0.destination === target }) {
                    guard target === destination || startsSuppliedMapping(target) else { continue }
                    if let mapping = try? MappingModel.inferred(from: m, to: target) { out.append(MigrationStep(source: m, destination: target, mapping: mapping)) }
                }
            }
            // Straight to the destination first.
            return out.filter { $0.destination === destination } + out.filter { $0.destination !== destination }
        }
        var reached: [ObjectIdentifier: [MigrationStep]] = [ObjectIdentifier(source): []]
        var frontier = [source]
        while !frontier.isEmpty {
            var next: [ManagedObjectModel] = []
            for m in frontier {
                let route = reached[ObjectIdentifier(m)]!
                for step in edges(from: m) where reached[ObjectIdentifier(step.destination)] == nil {
                    reached[ObjectIdentifier(step.destination)] = route + [step]
                    if step.destination === destination { return route + [step] }
                    next.append(step.destination)
                }
            }
            frontier = next
        }
        if infer {
            // Say why the direct inference failed: the most useful error.
            _ = try MappingModel.inferred(from: source, to: destination)
        }
        throw ObjectGraphError(
            code: ErrorCode.migrationMissingMappingModel,
            message: "the store '\(path)' needs migrating to the current model, and no mapping model leads there (add one, or set \(StoreOptionKey.inferMappingModel))",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// The model the store at `path` was written with: its own cached copy, else one of
    /// `modelVersions` whose hashes match. Errors: 134130.
    func sourceModel(forStoreAt path: String, type: PersistentStoreType, options: StoreOptions = StoreOptions(),
                     metadata: [String: PropertyListValue]) throws(ObjectGraphError) -> ManagedObjectModel {
        func matches(_ m: ManagedObjectModel) -> Bool {
            m.isConfiguration(nil, compatibleWithStoreMetadata: metadata)
                || m.configurations.contains { m.isConfiguration($0, compatibleWithStoreMetadata: metadata) }
        }
        if let cached = try? type.cachedModel(at: path, options: options), matches(cached) { return cached }
        if let found = modelVersionsValue.first(where: matches) { return found }
        throw ObjectGraphError(
            code: ErrorCode.migrationMissingSourceModel,
            message: "the store '\(StoreTypes.displayPath(path, type: type.name))' was written with a model that is neither kept in the store nor among the coordinator's model versions; cannot migrate it",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// The version hashes a store records after `step`: the setup's for the current model,
    /// else the step's destination entities'.
    private func versionHashes(_ step: MigrationStep, _ setup: StoreSetup) -> [String: PropertyListValue] {
        if step.destination === managedObjectModel { return setup.versionHashes }
        var hashes: [String: PropertyListValue] = [:]
        for e in step.destination.entities { hashes[e.name] = .data(e.versionHash) }
        return hashes
    }

    /// Runs `steps` on a copy of the store beside `path` and puts the result in place.
    private func migrateOnCopy(path: String, type kind: PersistentStoreType, setup: StoreSetup, steps: [MigrationStep]) throws(ObjectGraphError) {
        var options = setup.options
        options[StoreOptionKey.migrateAutomatically] = nil
        options[StoreOptionKey.readOnly] = nil
        var current = MigrationDestination.workingPath(for: path)
        do throws(ObjectGraphError) {
            try kind.copyStore(at: path, to: current)
            for step in steps {
                if kind.capabilities.contains(.sqlInPlaceMigration) {
                    if try kind.migrateInPlace(at: current, from: step.source, to: step.destination, mapping: step.mapping,
                                               versionHashes: versionHashes(step, setup)) {
                        continue
                    }
                }
                let next = MigrationDestination.workingPath(for: path)
                let manager = try MigrationManager(sourceModel: step.source, destinationModel: step.destination)
                do throws(ObjectGraphError) {
                    try manager.migrateStore(from: current, type: kind.name, options: options, mapping: step.mapping, to: next, type: kind.name, destinationOptions: options)
                } catch {
                    kind.removeStore(at: next)
                    throw error
                }
                kind.removeStore(at: current)
                current = next
            }
        } catch {
            kind.removeStore(at: current)
            throw error
        }
        // The old file's journal belongs to the old file: it must not be replayed into the new one.
        for file in kind.files(at: path).dropFirst() { unlink(file) }
        do throws(ObjectGraphError) {
            try kind.moveStore(at: current, to: path)
        } catch {
            kind.removeStore(at: current)
            throw ObjectGraphError(
                code: ErrorCode.migrationManagerDestinationStore, message: "cannot put the migrated store in place at '\(path)': \(error.message)",
                userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
        }
    }
}
