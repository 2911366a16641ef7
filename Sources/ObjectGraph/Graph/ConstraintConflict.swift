/// One broken uniqueness constraint of a save (`NSConstraintConflict`): objects of the
/// save that hold the same values in the constraint's properties as each other, or as a
/// row already stored.
public final class ConstraintConflict: ErrorAttachment, @unchecked Sendable, CustomStringConvertible {
    /// The constraint's property names (`constraint`).
    public let constraint: [String]
    /// The values the conflicting objects share, by property name (`constraintValues`);
    /// a to-one's value is its destination's ID.
    public let constraintValues: [String: SnapshotValue]
    /// The save's objects holding those values (`conflictingObjects`).
    public let conflictingObjects: [ManagedObject]
    /// The context's object for the row already stored with those values, or nil when the
    /// conflict is between the save's own objects (`databaseObject`).
    public let databaseObject: ManagedObject?
    /// The stored row's values, or nil (`databaseSnapshot`).
    public let databaseSnapshot: [String: SnapshotValue]?

    /// The stored row, for resolving.
    let databaseRow: RowSnapshot?
    /// A batch insert's conflicts name its rows (by position) instead of objects.
    let batchRows: [Int]

    init(constraint: [String], values: [String: SnapshotValue], objects: [ManagedObject], databaseObject: ManagedObject?, databaseRow: RowSnapshot?,
         batchRows: [Int] = [])
    {
        self.batchRows = batchRows
        self.constraint = constraint
        constraintValues = values
        conflictingObjects = objects
        self.databaseObject = databaseObject
        self.databaseRow = databaseRow
        databaseSnapshot = databaseRow.map { MergeConflict.snapshot($0, store: databaseObject?.objectID.storeIdentifier ?? "") }
    }

    public var description: String {
        let values = constraint.map { name in "\(name) = \(constraintValues[name].map(Self.text) ?? "nil")" }.joined(separator: ", ")
        let who = batchRows.isEmpty
            ? conflictingObjects.map { $0.objectID.uriRepresentation }.joined(separator: ", ")
            : "row\(batchRows.count == 1 ? "" : "s") \(batchRows.map(String.init).joined(separator: ", ")) of the batch"
        let stored = databaseObject.map { " and the stored \($0.objectID.uriRepresentation)" } ?? ""
        return "\(values): \(who)\(stored)"
    }

    private static func text(_ value: SnapshotValue) -> String {
        switch value {
        case .attribute(let a): "\(a)"
        case .object(let id): id?.uriRepresentation ?? "nil"
        }
    }

    /// Error 133021 (`NSManagedObjectConstraintMergeError`) carrying the conflicts.
    static func error(_ conflicts: [ConstraintConflict], why: String) -> ObjectGraphError {
        let list = conflicts.prefix(5).map(\.description).joined(separator: "; ")
        var e = ObjectGraphError(
            code: ErrorCode.constraintMerge,
            message: "the save broke \(conflicts.count) uniqueness constraint(s) \(why): \(list)\(conflicts.count > 5 ? "; ..." : ""); nothing was written",
            userInfo: conflicts.first.map { [(ErrorUserInfoKey.entity, $0.conflictingObjects.first?.entity.name ?? "")] } ?? [])
        e.attachments = conflicts
        return e
    }
}

extension ObjectGraphError {
    /// The uniqueness-constraint conflicts of a save that failed with 133021 (`conflictList`).
    public var constraintConflicts: [ConstraintConflict] { attachments.compactMap { $0 as? ConstraintConflict } }
}
