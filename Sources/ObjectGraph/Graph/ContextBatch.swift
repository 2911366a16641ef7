/// Running batch requests (`BatchRequests.swift`): each is one transaction of the one store
/// that holds the entity, written without objects. The context's registered objects keep
/// their values until they are refreshed or the returned IDs are merged
/// (`mergeChanges(fromRemoteContextSave:into:)`); the coordinator's row cache learns the
/// new versions, so a refresh reads the rows again.
extension ManagedObjectContext {
    /// Inserts the request's rows (`NSBatchInsertRequest`). Every row is checked before
    /// anything is written: an unknown or non-attribute key (140005 / 140002), a value of
    /// the wrong type, or a required attribute with neither a value nor a default (1570)
    /// fails the whole batch, naming the row. 134091 for a store without batch requests.
    public func execute(_ request: BatchInsertRequest) throws(ObjectGraphError) -> BatchResult {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        guard !entity.isAbstract else {
            throw .invalidArgument("cannot batch insert into '\(entity.name)': the entity is abstract")
        }
        let record = try persistentStoreCoordinator.batchStore(for: entity, request: "batch insert")
        let constraints = Self.keptConstraints(of: entity)
        let required = Self.requiredSlots(entity)
        if let columns = request.columns, request.objects.isEmpty, request.dictionaryHandler == nil, constraints.isEmpty {
            return try insertColumns(columns, entity, required, record, request.resultType)
        }
        var rows: [[AttributeValue]] = []
        // The slots each row named, for the merge-by-property upserts of constrained entities.
        var named: [Set<Int>] = []
        rows.reserveCapacity(request.objects.count + (request.columns?.rowCount ?? 0))
        if let columns = request.columns {
            try Self.readColumns(columns, entity, required, into: &rows, named: &named, recordingNames: !constraints.isEmpty)
        }
        func add(_ row: [String: AttributeValue]) throws(ObjectGraphError) {
            rows.append(try Self.batchRow(row, index: rows.count, entity, required: required))
            if !constraints.isEmpty { named.append(Set(row.keys.compactMap { entity.slot(forKey: $0) })) }
        }
        for row in request.objects { try add(row) }
        if let handler = request.dictionaryHandler {
            while true {
                var row: [String: AttributeValue] = [:]
                if try handler(&row) { break }
                try add(row)
            }
        }
        var keys: [Int64?] = []
        keys.reserveCapacity(rows.count)
        var upserts = UpsertWrites()
        let tracksHistory = Self.tracksHistory(record)
        try persistentStoreCoordinator.save([record], afterCommit: { [persistentStoreCoordinator] in
            // Rows upserted without reading them back: the cache forgets the store's rows.
            if !upserts.updatedKeys.isEmpty || upserts.updatedUnknown { Self.forgetRows(of: record, persistentStoreCoordinator) }
            for row in upserts.updatedRows {
                persistentStoreCoordinator.rowCache.record(RowCache.key(row.entity, row.primaryKey, record.ref), row: row, version: row.version)
            }
        }) { (transactions) throws(ObjectGraphError) in
            guard !rows.isEmpty, let tx = transactions.first else { return }
            if !constraints.isEmpty {
                upserts = try insertBatchKeepingConstraints(rows, named: named, entity, constraints, tx, record,
                                                            keysOfUpdates: request.resultType == .objectIDs || tracksHistory)
                keys = upserts.keys
            } else {
                let first = try tx.allocatePrimaryKeys(for: entity, count: rows.count)
                for (i, values) in rows.enumerated() {
                    let key = first + Int64(i)
                    try tx.insert(StoreRowWrite(entity: entity, primaryKey: key, version: 1, values: values))
                    keys.append(key)
                }
            }
            try recordBatchHistory(tx) {
                // Rows that upserted over a stored row are updates of it.
                let upserted = Set(upserts.updatedRows.map(\.primaryKey) + upserts.updatedKeys)
                let allSlots = Array(entity.layout.properties.indices)
                return keys.compactMap { $0 }.map { key in
                    upserted.contains(key)
                        ? HistoryChangeWrite(type: .update, entity: entity, primaryKey: key, updatedSlots: allSlots)
                        : HistoryChangeWrite(type: .insert, entity: entity, primaryKey: key)
                }
            }
        }
        // Keys are all known when object IDs were asked for.
        if request.resultType == .count { return .count(keys.count) }
        return Self.result(request.resultType, keys.compactMap { $0 }.map { (entity, $0) }, record)
    }

    /// Rows given only by column into an entity without constraints, written as they are
    /// read: one row's values at a time (no array per row), inside the transaction, so a
    /// bad value still writes nothing.
    private func insertColumns(_ columns: BatchInsertRequest.Columns, _ entity: EntityDescription, _ required: [(Int, AttributeDescription)],
                               _ record: PersistentStoreCoordinator.AttachedStore, _ resultType: BatchResultType) throws(ObjectGraphError) -> BatchResult
    {
        var first: Int64 = 0
        let count = columns.rowCount
        try persistentStoreCoordinator.save([record]) { (transactions) throws(ObjectGraphError) in
            guard count > 0, let tx = transactions.first else { return }
            let attributes = try Self.columnAttributes(columns, entity, firstRow: 0)
            let defaults = entity.layout.defaults
            var values = defaults
            first = try tx.allocatePrimaryKeys(for: entity, count: count)
            try recordBatchHistory(tx) { (0..<Int64(count)).map { HistoryChangeWrite(type: .insert, entity: entity, primaryKey: first + $0) } }
            if let arrays = Self.storedAsGiven(columns, attributes, entity, required), let bulk = tx as? ColumnInsertingTransaction,
                try bulk.insertColumns(of: entity, firstKey: first, count: count, columns: arrays, constants: defaults)
            {
                return
            }
            for r in 0..<count {
                for slot in 0..<values.count { values[slot] = defaults[slot] }
                for (c, (slot, attribute)) in attributes.enumerated() {
                    guard let value = columns.value(r, c) else { continue }
                    values[slot] = try Self.batchValue(value, attribute, row: r)
                }
                try Self.checkRequired(values, index: r, entity, required)
                try tx.insert(StoreRowWrite(entity: entity, primaryKey: first + Int64(r), version: 1, values: values))
            }
        }
        if resultType == .count { return .count(count) }
        return Self.result(resultType, (0..<Int64(count)).map { (entity, first + $0) }, record)
    }

    /// Sets attributes of the matching rows (`NSBatchUpdateRequest`); each row's version
    /// moves on. Values are checked as a batch insert's are, before anything is written.
    public func execute(_ request: BatchUpdateRequest) throws(ObjectGraphError) -> BatchResult {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: request.entityName)
        let record = try persistentStoreCoordinator.batchStore(for: entity, request: "batch update")
        var changes: [(slot: Int, value: AttributeValue)] = []
        for key in request.propertiesToUpdate.keys.sorted() {
            let (slot, attribute) = try Self.batchAttribute(key, of: entity, row: nil)
            let value = try Self.batchValue(request.propertiesToUpdate[key]!, attribute, row: nil)
            if value.isNull && !attribute.isOptional {
                throw ObjectGraphError(code: ErrorCode.validationMissingMandatoryProperty,
                    message: "a batch update cannot set the required attribute '\(entity.name).\(key)' to nil",
                    userInfo: [(ErrorUserInfoKey.validationKey, key)])
            }
            changes.append((slot, value))
        }
        let fetch = FetchRequest(entityName: entity.name, predicate: request.predicate)
        fetch.includesSubentities = request.includesSubentities
        try FetchValidation.check(fetch, entity)
        var written: [(EntityDescription, Int64, RowSnapshot)] = []
        var statement: SetWriteResult?
        let tracksHistory = Self.tracksHistory(record)
        try persistentStoreCoordinator.save([record], afterCommit: { [persistentStoreCoordinator] in
            if statement != nil { Self.forgetRows(of: record, persistentStoreCoordinator) }
            for (_, _, row) in written {
                persistentStoreCoordinator.rowCache.record(RowCache.key(row.entity, row.primaryKey, record.ref), row: row, version: row.version)
            }
        }) { (transactions) throws(ObjectGraphError) in
            guard let tx = transactions.first else { return }
            let slots = changes.map(\.slot)
            if let sets = tx as? SetWritingTransaction,
                let done = try sets.updateAll(matching: fetch, of: entity, setting: changes, returningRows: request.resultType == .objectIDs || tracksHistory)
            {
                statement = done
                try recordBatchHistory(tx) { done.rows.map { HistoryChangeWrite(type: .update, entity: $0.entity, primaryKey: $0.primaryKey, updatedSlots: slots) } }
                return
            }
            for row in try Self.matchingRows(fetch, entity, record, persistentStoreCoordinator) {
                var values = row.values
                for (slot, value) in changes where slot < values.count { values[slot] = value }
                let write = StoreRowWrite(entity: row.entity, primaryKey: row.primaryKey, version: row.version + 1, values: values)
                try tx.update(write)
                written.append((row.entity, row.primaryKey, RowSnapshot.make(entity: row.entity, primaryKey: row.primaryKey, version: write.version, values: values)))
            }
            try recordBatchHistory(tx) { written.map { HistoryChangeWrite(type: .update, entity: $0.0, primaryKey: $0.1, updatedSlots: slots) } }
        }
        if let statement { return Self.result(request.resultType, statement, record) }
        return Self.result(request.resultType, written.map { ($0.0, $0.1) }, record)
    }

    /// Deletes the matching rows, or those of the given IDs (`NSBatchDeleteRequest`),
    /// following no delete rule (see `BatchDeleteRequest`). IDs must all be of one store;
    /// an ID whose row is gone is skipped.
    public func execute(_ request: BatchDeleteRequest) throws(ObjectGraphError) -> BatchResult {
        try checkThread()
        let targets: (entity: EntityDescription, fetch: FetchRequest?, ids: [ManagedObjectID])
        if let fetch = request.fetchRequest {
            let entity = try persistentStoreCoordinator.entity(named: fetch.entityName)
            try FetchValidation.check(fetch, entity)
            targets = (entity, fetch, [])
        } else {
            let ids = request.objectIDs ?? []
            guard let first = ids.first else { return Self.result(request.resultType, [], nil) }
            if let temporary = ids.first(where: \.isTemporaryID) {
                throw .invalidArgument("a batch delete needs saved objects' IDs; \(temporary.uriRepresentation) is temporary")
            }
            targets = (first.entity.rootEntity, nil, ids)
        }
        let record = try persistentStoreCoordinator.batchStore(for: targets.entity, request: "batch delete")
        for id in targets.ids where !record.answers(to: id.storeIdentifier) {
            throw .invalidArgument("a batch delete runs on one store: \(id.uriRepresentation) is not of '\(record.store.path)'")
        }
        var deleted: [(EntityDescription, Int64, Int64)] = []
        var tombstones: [[(slot: Int, value: AttributeValue)]] = []
        var statement: SetWriteResult?
        let tracksHistory = Self.tracksHistory(record)
        // Tombstones need the rows' values: such deletes go row by row.
        let keepsTombstones = tracksHistory && Self.hierarchy(of: targets.entity).contains { !$0.historyTombstoneSlots.isEmpty }
        try persistentStoreCoordinator.save([record], afterCommit: { [persistentStoreCoordinator] in
            if let statement {
                // Tombstones for the rows read back; without them, the store answers.
                if statement.rows.isEmpty { Self.forgetRows(of: record, persistentStoreCoordinator) }
                for row in statement.rows {
                    persistentStoreCoordinator.rowCache.record(RowCache.key(row.entity, row.primaryKey, record.ref), row: nil, version: row.version == .max ? row.version : row.version + 1)
                }
            }
            for (entity, key, version) in deleted {
                persistentStoreCoordinator.rowCache.record(RowCache.key(entity, key, record.ref), row: nil, version: version == .max ? version : version + 1)
            }
        }) { (transactions) throws(ObjectGraphError) in
            guard let tx = transactions.first else { return }
            if let fetch = targets.fetch, !keepsTombstones, let sets = tx as? SetWritingTransaction,
                let done = try sets.deleteAll(matching: fetch, of: targets.entity, returningRows: request.resultType == .objectIDs || tracksHistory)
            {
                statement = done
                try recordBatchHistory(tx) { done.rows.map { HistoryChangeWrite(type: .delete, entity: $0.entity, primaryKey: $0.primaryKey) } }
                return
            }
            let rows: [RowSnapshot]
            if let fetch = targets.fetch {
                rows = try Self.matchingRows(fetch, targets.entity, record, persistentStoreCoordinator)
            } else {
                var found: [RowSnapshot] = []
                for id in targets.ids {
                    if let row = try record.store.fetchRow(entity: id.entity, primaryKey: id.primaryKey) { found.append(row) }
                }
                rows = found
            }
            for row in rows {
                try tx.delete(entity: row.entity, primaryKey: row.primaryKey)
                deleted.append((row.entity, row.primaryKey, row.version))
                if keepsTombstones { tombstones.append(Self.tombstone(of: row)) }
            }
            try recordBatchHistory(tx) {
                deleted.enumerated().map { i, d in
                    HistoryChangeWrite(type: .delete, entity: d.0, primaryKey: d.1, tombstone: keepsTombstones ? tombstones[i] : [])
                }
            }
        }
        if let statement { return Self.result(request.resultType, statement, record) }
        return Self.result(request.resultType, deleted.map { ($0.0, $0.1) }, record)
    }

    // MARK: Parts

    /// `entity` and every entity below it.
    static func hierarchy(of entity: EntityDescription) -> [EntityDescription] {
        [entity] + entity.subentities.flatMap { hierarchy(of: $0) }
    }

    /// The rows of `fetch` in `record`'s store, read inside the batch's transaction; a
    /// predicate SQL cannot express is finished here.
    private static func matchingRows(_ fetch: FetchRequest, _ entity: EntityDescription, _ record: PersistentStoreCoordinator.AttachedStore,
                                     _ coordinator: PersistentStoreCoordinator) throws(ObjectGraphError) -> [RowSnapshot] {
        let result = try record.store.fetchRows(fetch.withoutWindow(), entity: entity)
        var rows = result.rows
        if !result.hasValues {
            var byKey: [Int64: RowSnapshot] = [:]
            for row in try record.store.fetchRows(entity: entity, primaryKeys: rows.map(\.primaryKey)) { byKey[row.primaryKey] = row }
            rows = rows.compactMap { byKey[$0.primaryKey] }
        }
        guard !result.isExact, let predicate = fetch.predicate else { return rows }
        let source = RowSource(store: record.store)
        var kept: [RowSnapshot] = []
        for row in rows where try predicate.evaluate(with: .object(source.reader(row))) { kept.append(row) }
        return kept
    }

    /// One row of a batch insert: the model's defaults, then the row's values in their
    /// stored form. `index` names the row in errors.
    static func batchRow(_ row: [String: AttributeValue], index: Int, _ entity: EntityDescription,
                         required: [(Int, AttributeDescription)]) throws(ObjectGraphError) -> [AttributeValue]
    {
        var values = entity.layout.defaults
        for (key, value) in row {
            let (slot, attribute) = try batchAttribute(key, of: entity, row: index)
            values[slot] = try batchValue(value, attribute, row: index)
        }
        try checkRequired(values, index: index, entity, required)
        return values
    }

    /// Rows given column by column, read a column at a time: each column's attribute is
    /// found once, not per row.
    private static func readColumns(_ columns: BatchInsertRequest.Columns, _ entity: EntityDescription, _ required: [(Int, AttributeDescription)],
                                    into rows: inout [[AttributeValue]], named: inout [Set<Int>], recordingNames: Bool) throws(ObjectGraphError)
    {
        let first = rows.count, count = columns.rowCount
        rows.append(contentsOf: repeatElement(entity.layout.defaults, count: count))
        // The slots each row gave, as bits while reading (a set per cell would cost more
        // than the row); rows that gave the same slots share one set.
        var given = [UInt64](repeating: 0, count: recordingNames ? count : 0)
        var wide: [Set<Int>] = []  // entities with slots past 63
        let bits = entity.layout.properties.count <= 64
        if recordingNames && !bits { wide = Array(repeating: [], count: count) }
        for (c, (slot, attribute)) in try columnAttributes(columns, entity, firstRow: first).enumerated() {
            for r in 0..<count {
                guard let value = columns.value(r, c) else { continue }
                rows[first + r][slot] = try batchValue(value, attribute, row: first + r)
                if recordingNames { if bits { given[r] |= 1 << UInt64(slot) } else { wide[r].insert(slot) } }
            }
        }
        if recordingNames {
            if bits {
                var last: (mask: UInt64, slots: Set<Int>)? = nil
                named.reserveCapacity(named.count + count)
                for mask in given {
                    if last?.mask != mask { last = (mask, Set((0..<64).filter { mask & (1 << UInt64($0)) != 0 })) }
                    named.append(last!.slots)
                }
            } else {
                named.append(contentsOf: wide)
            }
        }
        for r in first..<rows.count { try checkRequired(rows[r], index: r, entity, required) }
    }

    /// The columns by slot when the store can write their arrays as they are: each holds
    /// what its attribute stores (64-bit integers, doubles), and every required attribute
    /// has a column or a default. nil otherwise (the values are then read one by one).
    private static func storedAsGiven(_ columns: BatchInsertRequest.Columns, _ attributes: [(Int, AttributeDescription)], _ entity: EntityDescription,
                                      _ required: [(Int, AttributeDescription)]) -> [(slot: Int, values: ColumnValues)]?
    {
        guard let arrays = columns.arrays else { return nil }
        var out: [(slot: Int, values: ColumnValues)] = []
        for ((slot, attribute), values) in zip(attributes, arrays) {
            switch (values, attribute.attributeType) {
            case (.int64, .integer64), (.double, .double): out.append((slot, values))
            default: return nil
            }
        }
        let given = Set(out.map(\.slot)), defaults = entity.layout.defaults
        guard required.allSatisfy({ given.contains($0.0) || !defaults[$0.0].isNull }) else { return nil }
        return out
    }

    /// The slot and attribute of each column, found once; a column the entity cannot take
    /// is reported at the first row giving it a value (rows numbered from `firstRow`).
    private static func columnAttributes(_ columns: BatchInsertRequest.Columns, _ entity: EntityDescription,
                                         firstRow: Int) throws(ObjectGraphError) -> [(Int, AttributeDescription)]
    {
        var out: [(Int, AttributeDescription)] = []
        for (c, name) in columns.names.enumerated() {
            do throws(ObjectGraphError) {
                out.append(try batchAttribute(name, of: entity, row: nil))
            } catch {
                let given = (0..<columns.rowCount).first { columns.value($0, c) != nil }.map { firstRow + $0 }
                _ = try batchAttribute(name, of: entity, row: given)
                throw error
            }
        }
        return out
    }

    /// The stored attributes that need a value (nor optional, nor derived): checked in every row.
    static func requiredSlots(_ entity: EntityDescription) -> [(Int, AttributeDescription)] {
        entity.properties.enumerated().compactMap { slot, property in
            guard let a = property as? AttributeDescription, !a.isOptional, !a.isTransient, a.derivationExpression == nil else { return nil }
            return (slot, a)
        }
    }

    private static func checkRequired(_ values: [AttributeValue], index: Int, _ entity: EntityDescription,
                                      _ required: [(Int, AttributeDescription)]) throws(ObjectGraphError)
    {
        for (slot, a) in required where values[slot].isNull {
            throw ObjectGraphError(code: ErrorCode.validationMissingMandatoryProperty,
                message: "row \(index) of the batch insert into '\(entity.name)' has no value for the required attribute '\(a.name)', and it has no default",
                userInfo: [(ErrorUserInfoKey.validationKey, a.name)])
        }
    }

    /// The slot and attribute of `key`, which must be a stored attribute of `entity`.
    private static func batchAttribute(_ key: String, of entity: EntityDescription, row: Int?) throws(ObjectGraphError) -> (Int, AttributeDescription) {
        // Made only for an error: a batch looks every key of every row up here.
        func place() -> String { row.map { "row \($0) of the batch" } ?? "the batch" }
        guard let slot = entity.slot(forKey: key) else {
            var e = ObjectGraphError.unknownKey(key, entity: entity.name)
            e.message = "\(place()) names '\(key)', which entity '\(entity.name)' does not have"
            throw e
        }
        guard let a = entity.properties[slot] as? AttributeDescription, !a.isTransient, a.derivationExpression == nil else {
            throw .invalidArgument("\(place()) names '\(entity.name).\(key)', which is not a stored attribute (batches write attributes only)")
        }
        return (slot, a)
    }

    /// `value` as `attribute` stores it: coerced to its type, a transformable value as its
    /// transformer's bytes.
    private static func batchValue(_ value: AttributeValue, _ attribute: AttributeDescription, row: Int?) throws(ObjectGraphError) -> AttributeValue {
        // Already what the attribute stores: the common case of an import, without a lookup.
        switch (value, attribute.attributeType) {
        case (.null, _), (.integer, .integer64), (.double, .double), (.string, .string): return value
        default: break
        }
        do throws(ObjectGraphError) {
            let entity = attribute.entity?.name ?? "?"
            let v = try value.coerced(to: attribute.attributeType, key: attribute.name, entity: entity)
            if case .transformable(let t) = v { return .data(try ValueTransformers.encode(t, for: attribute)) }
            return v
        } catch {
            var e = error
            if let row { e.message = "row \(row) of the batch: " + e.message }
            throw e
        }
    }

    /// The result of a batch the store wrote as one statement.
    private static func result(_ type: BatchResultType, _ written: SetWriteResult, _ record: PersistentStoreCoordinator.AttachedStore) -> BatchResult {
        type == .count ? .count(written.count) : result(type, written.rows.map { ($0.entity, $0.primaryKey) }, record)
    }

    /// After a batch written as one statement without reading its rows back: the
    /// coordinator forgets the rows it cached of that store, so nothing older is served
    /// from memory (every save still checks versions in the store).
    private static func forgetRows(of record: PersistentStoreCoordinator.AttachedStore, _ coordinator: PersistentStoreCoordinator) {
        if !coordinator.rowCache.isEmpty { coordinator.rowCache.removeAll(store: record.ref.slot) }
    }

    private static func result(_ type: BatchResultType, _ rows: [(EntityDescription, Int64)], _ record: PersistentStoreCoordinator.AttachedStore?) -> BatchResult {
        switch type {
        case .statusOnly: return .status(true)
        case .count: return .count(rows.count)
        case .objectIDs:
            guard let record else { return .objectIDs([]) }
            return .objectIDs(rows.map { ManagedObjectID(entity: $0.0, primaryKey: $0.1, storeIdentifier: record.store.identifier) })
        }
    }
}

extension PersistentStoreCoordinator {
    /// The one attached, writable store that holds `entity` and whose type runs batch
    /// requests; 134091 when it is of another type, 134070 when no store or several hold it.
    func batchStore(for entity: EntityDescription, request: String) throws(ObjectGraphError) -> AttachedStore {
        let records = lock.withLock { attached.filter { $0.holds(entity) } }
        guard records.count == 1, let record = records.first else {
            throw ObjectGraphError(
                code: ErrorCode.storeOperation,
                message: records.isEmpty
                    ? "no store holds entity '\(entity.name)' for a \(request)"
                    : "\(records.count) stores hold entity '\(entity.name)'; a \(request) runs on one (use a configuration that puts it in one store)")
        }
        guard (StoreTypes.named(record.store.type)?.capabilities ?? []).contains(.batchRequests) else {
            throw ObjectGraphError(
                code: ErrorCode.storeUnsupportedRequestType,
                message: "a \(request) runs on SQLite stores; the store '\(record.store.path)' is a \(record.store.type) store")
        }
        return record
    }
}
