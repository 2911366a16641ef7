/// Batch inserts into entities with uniqueness constraints: under the error merge policy
/// a batch whose rows share a constraint's values, or hold a stored row's, writes nothing
/// (133021 naming the rows); under the other policies each row upserts as a saved new
/// object does, over a stored row or an earlier row of the same batch.
extension ManagedObjectContext {
    /// What an upserting batch wrote.
    struct UpsertWrites {
        /// One entry per distinct row written: its key (for an upsert, the key of the row it
        /// upserted over), or nil for a row a store updated without saying which.
        var keys: [Int64?] = []
        /// Rows upserted over, with the values written (row by row).
        var updatedRows: [RowSnapshot] = []
        /// Keys of rows a store upserted over in one statement (their values not read back).
        var updatedKeys: [Int64] = []
        /// Some row was upserted over without its key being looked up.
        var updatedUnknown = false
    }

    /// Writes `rows` (slot values; `named`: the slots each row gave) through `tx`.
    /// `keysOfUpdates`: the caller needs the key of every row written (object IDs, history);
    /// without it a store-side upsert may leave the keys of updated rows out (the count
    /// stays right: one entry per distinct row).
    func insertBatchKeepingConstraints(_ rows: [[AttributeValue]], named: [Set<Int>], _ entity: EntityDescription, _ constraints: [CheckedConstraint],
                                      _ tx: StoreSaveTransaction, _ record: PersistentStoreCoordinator.AttachedStore,
                                      keysOfUpdates: Bool) throws(ObjectGraphError) -> UpsertWrites
    {
        let policy = mergePolicy.mergeType
        if policy == .error { try refuseBatchConflicts(rows, entity, constraints, tx, record) }
        let first = try tx.allocatePrimaryKeys(for: entity, count: rows.count)
        if constraints.count == 1, let rule = Self.upsertRule(policy), let upserting = tx as? UpsertingTransaction,
           let written = try upserting.upsertAll(rows, named: named, of: entity, firstKey: first, constraint: constraints[0].slots,
                                                 rule: rule, keysOfUpdates: keysOfUpdates)
        {
            return Self.writes(written, rows, constraints[0].slots)
        }
        var out = UpsertWrites()
        out.keys.reserveCapacity(rows.count)
        var seen = Set<Int64>()
        for (i, values) in rows.enumerated() {
            // The row already holding this row's values, if any (an earlier row of the batch too).
            var target: RowSnapshot?
            for c in constraints {
                let held = c.slots.map { values[$0] }
                if held.contains(.null) { continue }
                guard let found = try tx.rows(of: entity, slots: c.slots, holding: held)?.first else { continue }
                guard target == nil || target!.primaryKey == found.primaryKey, found.entity === entity else {
                    let conflict = ConstraintConflict(constraint: c.names, values: Self.constraintValues(c, held, entity, record.ref), objects: [],
                                                      databaseObject: nil, databaseRow: found, batchRows: [i])
                    throw ConstraintConflict.error([conflict], why: "that no merge policy resolves (one row meets two stored rows, or a row of another entity)")
                }
                target = found
            }
            guard let stored = target else {
                let key = first + Int64(i)
                try tx.insert(StoreRowWrite(entity: entity, primaryKey: key, version: 1, values: values))
                out.keys.append(key)
                seen.insert(key)
                continue
            }
            if seen.insert(stored.primaryKey).inserted { out.keys.append(stored.primaryKey) }
            if policy == .rollback { continue }  // the stored row stays as it is
            var merged = values
            for slot in 0..<merged.count where !entity.layout.properties[slot].isTransient {
                switch policy {
                case .error, .overwrite, .rollback: break
                case .mergeByPropertyObjectTrump: if !named[i].contains(slot) { merged[slot] = stored[slot] }
                case .mergeByPropertyStoreTrump: if stored[slot] != .null { merged[slot] = stored[slot] }
                }
            }
            let version = stored.version == .max ? stored.version : stored.version + 1
            try tx.update(StoreRowWrite(entity: entity, primaryKey: stored.primaryKey, version: version, values: merged))
            out.updatedRows.append(RowSnapshot.make(entity: entity, primaryKey: stored.primaryKey, version: version, values: merged))
        }
        return out
    }

    /// What a store-side upsert wrote, listed as the row-by-row path lists it: a row that
    /// updated a row this batch wrote before is not listed again. Without keys (updates
    /// not looked up), such rows are told by their constrained values.
    private static func writes(_ written: [(key: Int64?, updated: Bool)], _ rows: [[AttributeValue]], _ constraint: [Int]) -> UpsertWrites {
        var out = UpsertWrites()
        out.keys.reserveCapacity(written.count)
        if written.allSatisfy({ $0.key != nil }) {
            var seen = Set<Int64>()
            for (key, wasUpdate) in written {
                if wasUpdate { out.updatedKeys.append(key!) }
                if seen.insert(key!).inserted { out.keys.append(key!) }
            }
            return out
        }
        var seen = Set<[AttributeValue]>()
        for (i, (key, wasUpdate)) in written.enumerated() {
            if wasUpdate { if let key { out.updatedKeys.append(key) } else { out.updatedUnknown = true } }
            let held = constraint.map { rows[i][$0] }
            // Rows holding a nil never meet another: each is a row of its own.
            if held.contains(.null) || seen.insert(held).inserted { out.keys.append(key) }
        }
        return out
    }

    /// The store-side upsert that does what `policy` does row by row; nil for the policies
    /// that need the rows first (error: the conflicts are reported; rollback: the stored
    /// row's key is returned unchanged).
    private static func upsertRule(_ policy: MergePolicyType) -> UpsertRule? {
        switch policy {
        case .overwrite: .overwrite
        case .mergeByPropertyObjectTrump: .overwriteNamed
        case .mergeByPropertyStoreTrump: .keepStored
        case .error, .rollback: nil
        }
    }

    /// Under the error policy: every group of rows sharing a constraint's values, and every
    /// row holding a stored row's, is a conflict; any conflict fails the batch unwritten.
    private func refuseBatchConflicts(_ rows: [[AttributeValue]], _ entity: EntityDescription, _ constraints: [CheckedConstraint],
                                      _ tx: StoreSaveTransaction, _ record: PersistentStoreCoordinator.AttachedStore) throws(ObjectGraphError)
    {
        var conflicts: [ConstraintConflict] = []
        for c in constraints {
            var rowsHolding: [[AttributeValue]: [Int]] = [:]
            var order: [[AttributeValue]] = []
            for (i, values) in rows.enumerated() {
                let held = c.slots.map { values[$0] }
                if held.contains(.null) { continue }
                if rowsHolding[held] == nil { order.append(held) }
                rowsHolding[held, default: []].append(i)
            }
            for held in order {
                let indexes = rowsHolding[held]!
                let stored = try tx.rows(of: entity, slots: c.slots, holding: held)?.first
                guard indexes.count > 1 || stored != nil else { continue }
                let database = try stored.map { r throws(ObjectGraphError) in try object(entity: r.entity, primaryKey: r.primaryKey, in: record.ref) }
                conflicts.append(ConstraintConflict(constraint: c.names, values: Self.constraintValues(c, held, entity, record.ref), objects: [],
                                                    databaseObject: database, databaseRow: stored, batchRows: indexes))
            }
        }
        if !conflicts.isEmpty { throw ConstraintConflict.error(conflicts, why: "in a batch insert and the merge policy is error") }
    }
}
