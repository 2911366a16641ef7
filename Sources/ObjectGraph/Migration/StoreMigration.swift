#if canImport(Glibc)
import Glibc
#endif

/// Copying a store to a new file and type (`migratePersistentStore:toURL:options:withType:error:`):
/// "Save As" and store conversion, not a schema migration.
extension PersistentStoreCoordinator {
    /// Copies every row of `store` (all entities of its configuration, every relationship
    /// with its order, and the primary-key counters) into a new store of `type` at `path`,
    /// attaches it with the same configuration and `options` (the old store's options when
    /// nil), removes the old store and returns the new one.
    ///
    /// The copy gets a new UUID, as Core Data gives it, keeps the old store's metadata
    /// otherwise, and takes its place among the coordinator's stores: object IDs made
    /// before (which carry the old UUID) still reach their rows through it, so objects
    /// registered in contexts keep working; objects fetched afterwards carry the new UUID.
    /// Every object is validated first (the model's rules, as a save checks them): an
    /// invalid row stops the copy before anything is written. A failure leaves the old
    /// store attached and untouched and removes any partial new file. A `path` where a
    /// store file already exists is refused (134070): nothing is overwritten.
    @discardableResult
    public func migratePersistentStore(_ store: PersistentStore, to path: String, type: String, options: [String: PropertyListValue]? = nil)
        throws(ObjectGraphError) -> PersistentStore
    {
        try lock.withLock { () throws(ObjectGraphError) -> PersistentStore in
            guard let old = attached.first(where: { $0.store === store }) else {
                throw .invalidArgument("the store '\(store.path)' is not attached to this coordinator")
            }
            // A store type without files (a database server) is asked whether a store is there.
            let kind = try StoreTypes.require(type)
            let exists = kind.capabilities.contains(.files)
                ? StoreFiles.exists(path) : kind.hasStore(at: path, options: (try? StoreOptions(options ?? old.options)) ?? StoreOptions())
            if !path.isEmpty, exists {
                throw ObjectGraphError(
                    code: ErrorCode.storeOperation,
                    message: "cannot migrate '\(store.path)' to '\(StoreTypes.displayPath(path, type: type))': a file is already there, and it is not overwritten",
                    userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))])
            }
            var setup = try checkedSetup(type: type, configuration: old.configuration, path: path, options: options ?? old.options, replacing: store)
            try validateObjects(of: store, entities: setup.entities)
            var metadata = store.metadata
            for key in [StoreMetadataKey.storeType, StoreMetadataKey.modelVersionHashes, StoreMetadataKey.storeUUID] { metadata[key] = nil }
            setup.initialMetadata = metadata
            // Written through a writable store; one asked to be read-only is opened so afterwards.
            var writable = setup
            writable.options[StoreOptionKey.readOnly] = nil
            var copy: PersistentStore
            do throws(ObjectGraphError) {
                copy = try makeStore(type: type, setup: writable)
            } catch {
                StoreTypes.removeStore(at: path, type: type)
                throw error
            }
            do throws(ObjectGraphError) {
                try Self.copyRows(from: store, to: copy, entities: setup.entities)
                if setup.parsedOptions.historyTracking, (try? StoreOptions(old.options))?.historyTracking == true {
                    try Self.copyHistory(from: store, to: copy)
                }
                if setup.parsedOptions.readOnly, try StoreTypes.require(type).capabilities.contains(.files) {
                    copy.close()
                    copy = try makeStore(type: type, setup: setup)
                }
                _ = try attach(copy, setup: setup, slot: old.slot)
            } catch {
                copy.close()
                StoreTypes.removeStore(at: path, type: type)
                throw ObjectGraphError(
                    code: ErrorCode.storeOperation,
                    message: "cannot migrate '\(store.path)' to \(type) at '\(StoreTypes.displayPath(path, type: type))': \(error.message); the store stays where it was",
                    userInfo: [(ErrorUserInfoKey.filePath, StoreTypes.displayPath(path, type: type))], details: [error])
            }
            store.close()
            return copy
        }
    }

    /// Copies the persistent history of `source` into `destination` when both keep it
    /// (`NSPersistentHistoryTrackingKey` in both options), with its numbers, and adds the
    /// schema migrator's marker. Tokens of the old store name its UUID: the copy has
    /// another, so readers start again from a token of the copy.
    static func copyHistory(from source: PersistentStore, to destination: PersistentStore) throws(ObjectGraphError) {
        guard let history = source as? HistoryCounting, (destination as? HistoryKeepingStore)?.tracksHistory == true else { return }
        let transactions = try history.historyTransactions(after: nil, includingChanges: true)
        let highest = try history.highestHistoryTransactionNumber()
        try destination.save { tx throws(ObjectGraphError) in
            guard let copying = tx as? HistoryCopyingTransaction else { return }
            try copying.copyHistory(transactions, highest: highest)
        }
    }

    /// Validates every object `store` holds against the model's rules, as a save would.
    /// Errors: 134070 naming the store, with the validation errors as details.
    func validateObjects(of store: PersistentStore, entities: [EntityDescription]) throws(ObjectGraphError) {
        let context = ManagedObjectContext(coordinator: self)
        for entity in entities where !entity.isAbstract {
            let request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            request.affectedStores = [store]
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) {
                do throws(ObjectGraphError) { try object.validateProperties() } catch {
                    throw ObjectGraphError(
                        code: ErrorCode.storeOperation,
                        message: "cannot migrate '\(store.path)': \(object.objectID.uriRepresentation) is not valid (\(error.message)); nothing was copied",
                        userInfo: [(ErrorUserInfoKey.filePath, store.path)], details: [error])
                }
            }
            try context.reset()
        }
    }

    /// Writes every row of `source`'s hierarchies into `destination` in one transaction.
    static func copyRows(from source: PersistentStore, to destination: PersistentStore, entities: [EntityDescription]) throws(ObjectGraphError) {
        var roots: [EntityDescription] = []
        for e in entities where !roots.contains(where: { $0 === e.rootEntity }) { roots.append(e.rootEntity) }
        var rowsByRoot: [(EntityDescription, [RowSnapshot])] = []
        for root in roots {
            let request = FetchRequest(entityName: root.name)
            rowsByRoot.append((root, try source.fetchRows(request, entity: root).rows))
        }
        // To-many contents the members' rows do not carry: join tables (many-to-many and
        // inverse-less) and the order of ordered relationships.
        var lists: [(RelationshipDescription, Int64, [Int64])] = []
        for (_, rows) in rowsByRoot {
            for row in rows {
                for case let r as RelationshipDescription in row.entity.properties where r.isToMany && !r.isTransient {
                    let explicit = r.inverseRelationship.map { $0.isToMany } ?? true
                    guard explicit || r.isOrdered else { continue }
                    let members = try source.fetchMembers(of: row.primaryKey, through: r).map(\.primaryKey)
                    if !members.isEmpty { lists.append((r, row.primaryKey, members)) }
                }
            }
        }
        try destination.save { tx throws(ObjectGraphError) in
            for (_, rows) in rowsByRoot {
                for row in rows {
                    try tx.insert(StoreRowWrite(entity: row.entity, primaryKey: row.primaryKey, version: row.version, values: row.values))
                }
            }
            for (r, owner, members) in lists { try tx.setMembers(of: owner, through: r, to: members) }
            // Keys handed out once are never handed out again, saved or not.
            for (root, rows) in rowsByRoot {
                let largest = max(rows.map(\.primaryKey).max() ?? 0, try (source as? KeyCounterReading)?.largestPrimaryKey(for: root) ?? 0)
                guard largest > 0 else { continue }
                guard let counter = tx as? KeyCounterWriting else {
                    throw ObjectGraphError(code: ErrorCode.storeOperation, message: "a store of type \(destination.type) cannot take over primary-key counters")
                }
                try counter.raiseKeyCounter(for: root, to: largest)
            }
        }
    }
}
