/// The values of one object of an incremental store, as its `newValues(forObjectWith:)`
/// returns them (`NSIncrementalStoreNode`): attribute values and to-one destinations by
/// property name, and the version the store holds the object at.
public final class IncrementalStoreNode {
    /// A property's value in a node: an attribute's value, or a to-one's destination (nil
    /// for none).
    public enum Value: Hashable, Sendable {
        case attribute(AttributeValue)
        case destination(ManagedObjectID?)
    }

    public let objectID: ManagedObjectID
    public private(set) var version: Int64
    public private(set) var values: [String: Value]

    public init(objectID: ManagedObjectID, values: [String: Value], version: Int64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    /// A node from attribute values and to-one destinations.
    public convenience init(objectID: ManagedObjectID, attributes: [String: AttributeValue],
                            destinations: [String: ManagedObjectID?] = [:], version: Int64) {
        var values: [String: Value] = [:]
        for (k, v) in attributes { values[k] = .attribute(v) }
        for (k, v) in destinations { values[k] = .destination(v) }
        self.init(objectID: objectID, values: values, version: version)
    }

    /// The value of `property`; nil when the node has none for it.
    public func value(for property: PropertyDescription) -> Value? { values[property.name] }

    /// Replaces the values and version (`updateWithValues:version:`).
    public func update(values: [String: Value], version: Int64) {
        self.values = values
        self.version = version
    }
}

/// What an incremental store's fetch gives back, by the request's result type: objects or
/// their IDs for `.managedObject` and `.managedObjectID`, dictionaries for `.dictionary`
/// (by property name; to-ones as IDs), a number for `.count`.
public enum IncrementalFetchResult {
    case objects([ManagedObject])
    case objectIDs([ManagedObjectID])
    case dictionaries([[String: FetchedValue]])
    case count(Int)
}
