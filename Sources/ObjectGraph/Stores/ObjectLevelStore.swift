/// A store that answers in terms of identities rather than rows: Core Data's incremental
/// stores, whose hooks name objects by reference and are given the context's objects. The
/// coordinator counts the attached ones, so that contexts without any skip their calls,
/// and asks them for a to-many's members as identities; the hooks over contexts and
/// objects are `ObjectSavingStore`'s (Graph), which such a store implements too.
public protocol ObjectLevelStore: PersistentStore {
    /// The identities of the members of the to-many `relationship` of the row
    /// `primaryKey`, without their values, each with its own (concrete) entity, in order
    /// when it is ordered. The context makes faults of them; `fetchMembers` and
    /// `fetchRows(pointingAt:)` are used only where rows are wanted (prefetching).
    func memberKeys(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]
}
