/// What to fetch: the objects of one entity (its subentities included by default), in
/// the order of the sort keys, optionally a window of them.
public final class FetchRequest: @unchecked Sendable {
    public var entityName: String
    public var sortKeys: [SortKey] = []
    public var includesSubentities = true
    /// 0 means no limit.
    public var fetchLimit = 0
    public var fetchOffset = 0

    public init(entityName: String, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.sortKeys = sortKeys
    }

    /// A copy with no limit and no offset.
    func withoutWindow() -> FetchRequest {
        let copy = FetchRequest(entityName: entityName, sortKeys: sortKeys)
        copy.includesSubentities = includesSubentities
        return copy
    }
}

/// One sort criterion of a fetch: an attribute and a direction. Nil sorts before every
/// value when ascending, as in Core Data's SQLite store; ties keep primary-key order.
public struct SortKey: Sendable, Hashable {
    public var key: String
    public var ascending: Bool

    public init(_ key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}
