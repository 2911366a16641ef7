/// What `ManagedObjectContext.execute(_:)` returns, by the request's result type.
public enum FetchResult {
    case objects([ManagedObject])
    case objectIDs([ManagedObjectID])
    case dictionaries([ResultDictionary])
    case count(Int)

    /// The number of results (the count itself for `.count`).
    public var count: Int {
        switch self {
        case .objects(let o): o.count
        case .objectIDs(let i): i.count
        case .dictionaries(let d): d.count
        case .count(let n): n
        }
    }
}

/// One value of a dictionary result: an attribute's (or expression's) value, or the object
/// ID of a to-one relationship's destination.
public enum FetchedValue: Hashable, Sendable, CustomStringConvertible {
    case value(AttributeValue)
    case objectID(ManagedObjectID)

    public static let null = FetchedValue.value(.null)

    public var isNull: Bool { if case .value(.null) = self { true } else { false } }
    /// The attribute value, or nil for an object ID.
    public var attributeValue: AttributeValue? { if case .value(let v) = self { v } else { nil } }
    /// The object ID, or nil for a value.
    public var objectID: ManagedObjectID? { if case .objectID(let id) = self { id } else { nil } }

    public var description: String {
        switch self {
        case .value(let v): v.description
        case .objectID(let id): id.description
        }
    }
}

/// One row of a dictionary result (`NSDictionaryResultType`): its keys in the order of
/// `propertiesToFetch` and one value per key. Unlike Core Data's dictionaries, a nil value
/// keeps its key (with `.null`), so every row has the same keys.
public struct ResultDictionary: Hashable, Sendable, CustomStringConvertible {
    public let keys: [String]
    public let values: [FetchedValue]

    public init(keys: [String], values: [FetchedValue]) {
        self.keys = keys
        self.values = values
    }

    /// The value for `key`, or nil when the row has no such key.
    public subscript(key: String) -> FetchedValue? {
        keys.firstIndex(of: key).map { values[$0] }
    }

    /// The row as a Swift dictionary.
    public var dictionary: [String: FetchedValue] {
        Dictionary(zip(keys, values), uniquingKeysWith: { a, _ in a })
    }

    public var description: String {
        "{" + zip(keys, values).map { "\($0): \($1)" }.joined(separator: ", ") + "}"
    }
}
