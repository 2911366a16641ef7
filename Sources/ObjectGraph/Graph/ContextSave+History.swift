import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Recording persistent history: each save that writes to a store tracking history, and
/// each batch, adds one transaction there, inside the same store transaction.
extension ManagedObjectContext {
    /// Who the transactions of this context's saves are by.
    var historyAuthorship: HistoryAuthorship {
        HistoryAuthorship(author: transactionAuthor, contextName: name, processID: Self.processName)
    }

    /// The name of this process, as history records it (`ZPROCESSID`): the kernel's name
    /// for it (a library loaded by Python or C has no Swift command line), else argv[0].
    static let processName: String? = {
        if let fd = fopen("/proc/self/comm", "r") {
            defer { fclose(fd) }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, Int32(buffer.count), fd) != nil {
                let bytes = buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
                let name = String(decoding: bytes, as: UTF8.self)
                if !name.isEmpty { return name }
            }
        }
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return nil }
        return first.split(separator: "/").last.map(String.init) ?? first
    }()

    /// The history of a save: per store that tracks history, its inserts, updates (with
    /// the properties that changed) and deletes (with their tombstones), as written.
    func recordSaveHistory(_ plan: [StoreShare], _ transactions: [StoreSaveTransaction], _ attempt: SaveAttempt) throws(ObjectGraphError) {
        let skipped = attempt.resolution.skipped, upserts = attempt.upserts
        var timestamp: Date?
        for (shareIndex, (share, tx)) in zip(plan, transactions).enumerated() {
            guard let recorder = tx as? HistoryRecordingTransaction, recorder.recordsHistory else { continue }
            let keys = attempt.insertKeys[shareIndex]
            var changes: [HistoryChangeWrite] = []
            changes.reserveCapacity(share.inserts.count + share.updates.count + share.deletes.count)
            for (o, key) in zip(share.inserts, keys) {
                if !upserts.isEmpty {
                    if upserts.merged[ObjectIdentifier(o)] != nil { continue }
                    if let row = upserts.takeovers[ObjectIdentifier(o)] {
                        changes.append(HistoryChangeWrite(type: .update, entity: o.entity, primaryKey: row.primaryKey, updatedSlots: Self.setSlots(o)))
                        continue
                    }
                }
                changes.append(HistoryChangeWrite(type: .insert, entity: o.entity, primaryKey: key))
            }
            for o in share.updates where skipped.isEmpty || !skipped.contains(ObjectIdentifier(o)) {
                changes.append(HistoryChangeWrite(type: .update, entity: o.entity, primaryKey: o.objectID.primaryKey, updatedSlots: Self.changedSlots(o)))
            }
            for o in share.deletes where o.isDeleted && (skipped.isEmpty || !skipped.contains(ObjectIdentifier(o))) {
                changes.append(HistoryChangeWrite(type: .delete, entity: o.entity, primaryKey: o.objectID.primaryKey,
                                                  tombstone: try tombstone(of: o, tx)))
            }
            guard !changes.isEmpty else { continue }
            let now = timestamp ?? Date()
            timestamp = now
            _ = try recorder.recordHistory(changes, by: historyAuthorship, at: now)
        }
    }

    /// One transaction for a batch's rows in `tx`, when its store tracks history.
    func recordBatchHistory(_ tx: StoreSaveTransaction, _ changes: () throws(ObjectGraphError) -> [HistoryChangeWrite]) throws(ObjectGraphError) {
        guard let recorder = tx as? HistoryRecordingTransaction, recorder.recordsHistory else { return }
        let list = try changes()
        guard !list.isEmpty else { return }
        _ = try recorder.recordHistory(list, by: historyAuthorship, at: Date())
    }

    /// Whether a batch's writes into `record` are recorded in history.
    static func tracksHistory(_ record: PersistentStoreCoordinator.AttachedStore) -> Bool {
        (record.store as? HistoryKeepingStore)?.tracksHistory ?? false
    }

    /// The values a delete keeps in history: the object's own (stored form), or its row's
    /// when it was deleted as a fault.
    private func tombstone(of o: ManagedObject, _ tx: StoreSaveTransaction) throws(ObjectGraphError) -> [(slot: Int, value: AttributeValue)] {
        let kept = o.entity.historyTombstoneSlots
        guard !kept.isEmpty else { return [] }
        let values: [AttributeValue]
        if let own = o.current ?? o.snapshot?.values {
            values = try o.storedForm(own)
        } else if let row = try tx.currentRow(of: o.entity, primaryKey: o.objectID.primaryKey) {
            values = row.values
        } else {
            return []
        }
        return kept.map { ($0, $0 < values.count ? values[$0] : .null) }
    }

    /// The tombstone of a row a batch deletes.
    static func tombstone(of row: RowSnapshot) -> [(slot: Int, value: AttributeValue)] {
        row.entity.historyTombstoneSlots.map { ($0, $0 < row.values.count ? row.values[$0] : .null) }
    }

    /// The stored slots an update changed.
    private static func changedSlots(_ o: ManagedObject) -> [Int] {
        let properties = o.layout.properties
        return properties.indices.filter { o.isChanged($0) && !properties[$0].isTransient }
    }

    /// The stored slots a new object that took a row over set (all it has a value for).
    private static func setSlots(_ o: ManagedObject) -> [Int] {
        let changed = changedSlots(o)
        if !changed.isEmpty { return changed }
        let properties = o.layout.properties
        return properties.indices.filter { !properties[$0].isTransient }
    }
}
