/// Merge policies (§2.9): what a save does with an object whose row changed in the store
/// since the object last read it (an optimistic-locking conflict).
public enum MergePolicyType: Int, Sendable, CaseIterable {
    /// `NSErrorMergePolicyType`: the save fails with 133020 and its conflicts; nothing is written.
    case error = 0
    /// `NSMergeByPropertyStoreTrumpMergePolicyType`: properties changed on both sides take
    /// the store's values; the object's other changes are saved.
    case mergeByPropertyStoreTrump = 1
    /// `NSMergeByPropertyObjectTrumpMergePolicyType`: the object's changed properties win;
    /// its unchanged ones take the store's values.
    case mergeByPropertyObjectTrump = 2
    /// `NSOverwriteMergePolicyType`: the whole object is written over the store's row.
    case overwrite = 3
    /// `NSRollbackMergePolicyType`: the object's changes are dropped for the store's values.
    case rollback = 4
}

/// A merge policy (`NSMergePolicy`). The five shared policies cover Core Data's types;
/// subclass and override `resolve(optimisticLockingConflicts:)` for another rule.
open class MergePolicy: @unchecked Sendable {
    public let mergeType: MergePolicyType

    public init(mergeType: MergePolicyType) { self.mergeType = mergeType }

    public static let error = MergePolicy(mergeType: .error)
    public static let mergeByPropertyStoreTrump = MergePolicy(mergeType: .mergeByPropertyStoreTrump)
    public static let mergeByPropertyObjectTrump = MergePolicy(mergeType: .mergeByPropertyObjectTrump)
    public static let overwrite = MergePolicy(mergeType: .overwrite)
    public static let rollback = MergePolicy(mergeType: .rollback)

    /// The shared policy of a type.
    public static func shared(_ type: MergePolicyType) -> MergePolicy {
        switch type {
        case .error: error
        case .mergeByPropertyStoreTrump: mergeByPropertyStoreTrump
        case .mergeByPropertyObjectTrump: mergeByPropertyObjectTrump
        case .overwrite: overwrite
        case .rollback: rollback
        }
    }

    /// Resolves the conflicts of a save, on the saving context's thread, inside the save's
    /// store transaction (so no other writer can move the rows meanwhile). Throwing fails
    /// the save with nothing written. The default applies `mergeType` to each object.
    open func resolve(optimisticLockingConflicts conflicts: [MergeConflict]) throws(ObjectGraphError) {
        guard mergeType != .error else { throw MergeConflict.error(conflicts) }
        for conflict in conflicts { conflict.resolve(mergeType) }
    }

    /// Resolves the uniqueness-constraint conflicts of a save, inside its store transaction,
    /// before anything is written. Throwing fails the save with nothing written; the
    /// default throws 133021 under `.error`. Returning lets the save upsert by `mergeType`:
    /// a new object takes over the stored row and its ID (the policy deciding each
    /// property), and of new objects holding the same values the one changed last stays.
    open func resolve(constraintConflicts conflicts: [ConstraintConflict]) throws(ObjectGraphError) {
        guard mergeType != .error else { throw ConstraintConflict.error(conflicts, why: "and the merge policy is error") }
    }
}

/// A value of a conflict's snapshot: an attribute's value, or a to-one's destination ID.
public enum SnapshotValue: Equatable, @unchecked Sendable {
    case attribute(AttributeValue)
    case object(ManagedObjectID?)
}

/// One object's optimistic-locking conflict (`NSMergeConflict`).
public final class MergeConflict: ErrorAttachment, @unchecked Sendable, CustomStringConvertible {
    /// The context's object (`sourceObject`).
    public let sourceObject: ManagedObject
    /// The values the object last read: its committed values (`objectSnapshot`).
    public let objectSnapshot: [String: SnapshotValue]
    /// The newer row the coordinator holds (another context saved it), or nil (`cachedSnapshot`).
    public let cachedSnapshot: [String: SnapshotValue]?
    /// The store's row when it differs from the coordinator's (another coordinator or
    /// process saved it), or nil (`persistedSnapshot`).
    public let persistedSnapshot: [String: SnapshotValue]?
    /// The row version the object last read.
    public let oldVersionNumber: Int64
    /// The row's version now; 0 when the row is gone.
    public let newVersionNumber: Int64

    /// The rows behind the snapshots, for resolving.
    let newestRow: RowSnapshot?
    let storeKnowsRow: Bool

    init(object: ManagedObject, old: RowSnapshot?, cached: RowSnapshot?, cachedIsNewer: Bool, persisted: RowSnapshot?,
         persistedDiffers: Bool, oldVersion: Int64, newVersion: Int64, storeKnowsRow: Bool)
    {
        sourceObject = object
        let store = object.objectID.storeIdentifier ?? ""
        objectSnapshot = old.map { Self.snapshot($0, store: store) } ?? [:]
        cachedSnapshot = cachedIsNewer ? cached.map { Self.snapshot($0, store: store) } : nil
        persistedSnapshot = persistedDiffers ? persisted.map { Self.snapshot($0, store: store) } : nil
        oldVersionNumber = oldVersion
        newVersionNumber = newVersion
        newestRow = persistedDiffers ? persisted : (cachedIsNewer ? cached : persisted)
        self.storeKnowsRow = storeKnowsRow
    }

    public var description: String {
        "conflict on \(sourceObject.objectID.uriRepresentation): version \(oldVersionNumber) read, \(newVersionNumber) now"
    }

    /// Attribute names to values and to-one names to destination IDs, from a row.
    static func snapshot(_ row: RowSnapshot, store: String) -> [String: SnapshotValue] {
        var out: [String: SnapshotValue] = [:]
        let layout = row.entity.layout
        for (slot, kind) in layout.kinds.enumerated() {
            let property = layout.properties[slot]
            if property.isTransient { continue }
            switch kind {
            case .attribute: out[property.name] = .attribute(row[slot])
            case .toOne(let r):
                if case .integer(let pk) = row[slot], let destination = r.destinationEntity {
                    out[property.name] = .object(ManagedObjectID(entity: destination, primaryKey: pk, storeIdentifier: store))
                } else {
                    out[property.name] = .object(nil)
                }
            case .toMany: continue
            }
        }
        return out
    }

    /// Error 133020 (`NSManagedObjectMergeError`) carrying the conflicts.
    static func error(_ conflicts: [MergeConflict]) -> ObjectGraphError {
        let list = conflicts.prefix(5).map(\.description).joined(separator: "; ")
        var e = ObjectGraphError(
            code: ErrorCode.merge,
            message: "the save found \(conflicts.count) optimistic locking conflict(s) and the merge policy is error: \(list)\(conflicts.count > 5 ? "; ..." : ""); nothing was written",
            userInfo: conflicts.first.map { [(ErrorUserInfoKey.validationObject, $0.sourceObject.objectID.uriRepresentation)] } ?? [])
        e.attachments = conflicts
        return e
    }

    /// What the save should do with the object once its conflict is resolved.
    enum Outcome {
        /// Write the object (its values now as resolved) over the row at `newVersion`.
        case write
        /// Write nothing for it: its changes gave way to the store.
        case skip
        /// Its row is gone: it leaves the context as a deleted object.
        case forget
    }
    private(set) var outcome = Outcome.write

    /// Applies a built-in policy to the object (on the context's thread).
    func resolve(_ type: MergePolicyType) {
        let o = sourceObject
        guard let newest = newestRow, newVersionNumber != 0 else {
            // The row is gone. A delete is done already; an update does not bring it back.
            outcome = .forget
            return
        }
        if o.isDeleted {
            // Deleted here, changed there: a store-side policy keeps the row.
            if type == .mergeByPropertyStoreTrump || type == .rollback {
                o.isDeleted = false
                giveWay(to: newest)
            }
            return
        }
        let old = o.snapshot
        var values = o.current ?? old?.values ?? o.layout.defaults
        switch type {
        case .error, .overwrite:
            break
        case .mergeByPropertyObjectTrump:
            for slot in 0..<values.count where !o.isChanged(slot) && !o.layout.properties[slot].isTransient {
                values[slot] = newest[slot]
            }
        case .mergeByPropertyStoreTrump:
            for slot in 0..<values.count where !o.layout.properties[slot].isTransient {
                let changedThere = old.map { $0[slot] != newest[slot] } ?? true
                if changedThere || !o.isChanged(slot) { values[slot] = newest[slot] }
            }
        case .rollback:
            giveWay(to: newest)
            return
        }
        o.current = values
        // Relationships the store changed are read again where the object did not change them.
        if var relations = o.relations {
            for slot in 0..<relations.count where !o.isChanged(slot) { relations[slot] = nil }
            o.relations = relations
        }
        // Changed slots now include everything that differs from the newest row.
        for slot in 0..<values.count where values[slot] != newest[slot] { o.markChanged(slot) }
        o.snapshot = newest
    }

    /// The object drops its changes and takes the store's row; nothing is written for it.
    private func giveWay(to newest: RowSnapshot) {
        let o = sourceObject
        o.current = nil
        o.clearChanges()
        o.relations = nil
        o.snapshot = newest
        outcome = .skip
    }

}

extension ObjectGraphError {
    /// The merge conflicts of a save that failed with 133020 (`conflictList`).
    public var conflicts: [MergeConflict] { attachments.compactMap { $0 as? MergeConflict } }
}
