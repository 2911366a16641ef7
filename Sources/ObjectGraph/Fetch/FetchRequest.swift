/// What to fetch: the objects of one entity (its subentities included by default) that
/// satisfy a predicate, in the order of the sort keys, optionally a window of them.
public final class FetchRequest: @unchecked Sendable {
    public var entityName: String
    public var predicate: ObjectPredicate?
    public var sortKeys: [SortKey] = []
    public var includesSubentities = true
    /// 0 means no limit.
    public var fetchLimit = 0
    public var fetchOffset = 0

    public init(entityName: String, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// A copy with no limit and no offset.
    func withoutWindow() -> FetchRequest {
        let copy = FetchRequest(entityName: entityName, predicate: predicate, sortKeys: sortKeys)
        copy.includesSubentities = includesSubentities
        return copy
    }
}
