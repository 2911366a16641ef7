import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a migration writes. A new destination is built at a hidden path beside its
/// final one and moved into place only when complete, so a failed, cancelled or
/// interrupted migration leaves nothing at the destination. An existing destination is
/// opened and receives the new objects in the migration's one save.
final class MigrationDestination {
    let coordinator: PersistentStoreCoordinator
    let finalPath: String
    /// The path being written; equal to `finalPath` when appending or in memory.
    let workingPath: String
    /// The destination's store type, which knows its files.
    let type: String
    private var finished = false

    /// Opens or builds the destination. A new one takes the UUID and the custom metadata
    /// of `source`. Errors: 134160 naming the path.
    init(path: String, type: String, options: [String: PropertyListValue], model: ManagedObjectModel, keeping source: PersistentStore)
        throws(ObjectGraphError)
    {
        finalPath = path
        self.type = type
        // A store type without files (a database server's) is written in place: the
        // migration's one save is its one transaction, so a failure leaves nothing either.
        let kind = try? StoreTypes.require(type)
        let files = kind?.capabilities.contains(.files) ?? true
        let appending = path.isEmpty
            || (files ? StoreFiles.exists(path) : kind!.hasStore(at: path, options: (try? StoreOptions(options)) ?? StoreOptions()))
        workingPath = appending || !files ? path : Self.workingPath(for: path)
        do throws(ObjectGraphError) {
            coordinator = try PersistentStoreCoordinator(model: model)
            var setup = try coordinator.checkedSetup(type: type, configuration: nil, path: workingPath, options: options, replacing: nil)
            if !appending {
                setup.identifier = source.identifier
                var metadata = source.metadata
                for key in [
                    StoreMetadataKey.storeType, StoreMetadataKey.modelVersionHashes, StoreMetadataKey.storeUUID,
                    StoreMetadataKey.modelVersionIdentifiers, StoreMetadataKey.modelVersionHashesVersion,
                    StoreMetadataKey.persistenceFrameworkVersion,
                ] {
                    metadata[key] = nil
                }
                setup.initialMetadata = metadata
            }
            let store = try coordinator.makeStore(type: type, setup: setup)
            _ = try coordinator.attach(store, setup: setup, slot: nil)
        } catch {
            if !appending { StoreTypes.removeStore(at: workingPath, type: type) }
            throw ObjectGraphError(
                code: ErrorCode.migrationManagerDestinationStore, message: "cannot make the migration's destination store '\(StoreTypes.displayPath(path, type: type))': \(error.message)",
                userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))], details: [error])
        }
    }

    /// Closes the destination and moves it into place.
    func complete() throws(ObjectGraphError) {
        for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
        finished = true
        guard workingPath != finalPath else { return }
        do throws(ObjectGraphError) {
            try StoreTypes.require(type).moveStore(at: workingPath, to: finalPath)
        } catch {
            StoreTypes.removeStore(at: workingPath, type: type)
            throw ObjectGraphError(
                code: ErrorCode.migrationManagerDestinationStore, message: "cannot move the migrated store into place at '\(finalPath)': \(error.message)",
                userInfo: [(ErrorUserInfoKey.filePath, finalPath)], details: [error])
        }
    }

    /// Closes the destination and removes what was built.
    func abandon() {
        guard !finished else { return }
        finished = true
        for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
        if workingPath != finalPath { StoreTypes.removeStore(at: workingPath, type: type) }
    }

    /// A hidden path in the same directory, so the final move is a rename on one file system.
    static func workingPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return directory + "." + name + ".migrating-" + UUID().uuidString.prefix(8)
    }
}
