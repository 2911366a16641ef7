/// What to fetch: the objects of one entity (its subentities included by default) that
/// satisfy a predicate, in the order of the sort keys, optionally a window of them; and
/// how to return them (objects, object IDs, dictionaries or a count).
public final class FetchRequest: @unchecked Sendable {
    public var entityName: String
    public var predicate: ObjectPredicate?
    public var sortKeys: [SortKey] = []
    public var includesSubentities = true
    /// 0 means no limit.
    public var fetchLimit = 0
    public var fetchOffset = 0
    /// 0 loads every result at once; N > 0 identifies every match up front and loads their
    /// values N objects at a time as the result is read.
    public var fetchBatchSize = 0
    /// The stores to search; nil or empty means every store of the coordinator.
    public var affectedStores: [any StoreIdentity]? = nil
    /// Relationship key paths ("department", "author.publisher") whose destinations are
    /// loaded together with the result: one query per key path, not one per object.
    public var relationshipKeyPathsForPrefetching: [String] = []
    public var resultType: FetchResultType = .managedObject
    /// Whether the context's unsaved inserts, updates and deletes take part (§2.13).
    public var includesPendingChanges = true
    /// Whether rows' values are read with their IDs; without them a fault goes to the store when it fires.
    public var includesPropertyValues = true
    /// Whether new objects come back as faults (with their values cached) or fully populated.
    public var returnsObjectsAsFaults = true
    /// The columns of dictionary results: attribute and to-one relationship names, and
    /// expression descriptions. nil means every attribute.
    public var propertiesToFetch: [FetchProperty]? = nil
    /// Drops repeated dictionaries over `propertiesToFetch` (dictionary results only).
    public var returnsDistinctResults = false
    /// Groups dictionary results by these attributes, to-ones or expressions (extension).
    public var propertiesToGroupBy: [FetchProperty]? = nil
    /// Filters groups (dictionary results with `propertiesToGroupBy` only).
    public var havingPredicate: ObjectPredicate? = nil
    /// Whether objects already registered take the fetched values, as a merging refresh
    /// gives them (their own unsaved changes stay).
    public var shouldRefreshRefetchedObjects = false
    /// `NSPersistentStoreRequest.requestType`: always a fetch.
    public var requestType: PersistentStoreRequestType { .fetch }

    public init(entityName: String, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// A copy of every setting (the predicate and stores are shared, being immutable or identities).
    public func copy() -> FetchRequest {
        let c = FetchRequest(entityName: entityName, predicate: predicate, sortKeys: sortKeys)
        c.includesSubentities = includesSubentities
        c.fetchLimit = fetchLimit
        c.fetchOffset = fetchOffset
        c.fetchBatchSize = fetchBatchSize
        c.affectedStores = affectedStores
        c.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        c.resultType = resultType
        c.includesPendingChanges = includesPendingChanges
        c.includesPropertyValues = includesPropertyValues
        c.returnsObjectsAsFaults = returnsObjectsAsFaults
        // Expression descriptions are objects: the copy gets its own, so editing one
        // request's columns leaves the other's alone.
        c.propertiesToFetch = propertiesToFetch?.map { $0.copy() }
        c.returnsDistinctResults = returnsDistinctResults
        c.propertiesToGroupBy = propertiesToGroupBy?.map { $0.copy() }
        c.havingPredicate = havingPredicate
        c.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        return c
    }

    /// A copy with no limit and no offset.
    func withoutWindow() -> FetchRequest {
        let copy = copy()
        copy.fetchLimit = 0
        copy.fetchOffset = 0
        return copy
    }
}

/// `NSFetchRequestResultType`, with Core Data's values.
public enum FetchResultType: Int, Sendable {
    case managedObject = 0
    case managedObjectID = 1
    case dictionary = 2
    /// `NSCountResultType`: one number, what `count(for:)` returns.
    case count = 4
}

/// One column of a dictionary result: a property of the request's entity by name (an
/// attribute, a to-one relationship, or a key path through to-ones), or an expression
/// description whose `name` becomes the dictionary key.
public enum FetchProperty: Sendable {
    case property(String)
    case expression(ExpressionDescription)

    func copy() -> FetchProperty {
        guard case .expression(let d) = self else { return self }
        return .expression(ExpressionDescription(name: d.name, expressionFormat: d.expressionFormat, resultType: d.expressionResultType))
    }
}

/// `NSPersistentStoreRequestType`, with Core Data's values.
public enum PersistentStoreRequestType: Int, Sendable {
    case fetch = 1
    case save = 2
    case batchInsert = 5
    case batchUpdate = 6
    case batchDelete = 7
}

/// What a fetch request knows of a store it names (`affectedStores`): the persistent
/// stores of the coordinator, which implement it.
public protocol StoreIdentity: AnyObject {
    var path: String { get }
    /// `NSStoreUUID`.
    var identifier: String { get }
}
