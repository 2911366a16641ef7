import FoundationEssentials

/// Something a key path can walk into: a managed object, a dictionary, or any type a user
/// adapts. The predicate layer comes before the object graph, so managed objects conform
/// from the Graph layer.
public protocol KeyValueReading: AnyObject {
    /// The value for one key (no dots); unknown keys are errors, not nil.
    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue
    /// The stored row this object is, if it has one: lets a store compare relationships
    /// with it in SQL.
    var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { get }
    /// The object ID this reader is or reads, if any: lets an object-ID argument match it.
    var objectReference: ObjectReference? { get }
}

extension KeyValueReading {
    public var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { nil }
    public var objectReference: ObjectReference? {
        storedIdentity.map { ObjectReference(entityName: $0.entity.name, primaryKey: $0.primaryKey, storeIdentifier: nil, temporaryURI: nil) }
    }
}

/// A value met while evaluating a predicate: a scalar, a collection, a dictionary, or an
/// object whose keys can be read.
public enum PredicateValue: @unchecked Sendable {
    case scalar(AttributeValue)
    case collection([PredicateValue])
    case dictionary([String: PredicateValue])
    case object(any KeyValueReading)

    public static let null = PredicateValue.scalar(.null)

    public var isNull: Bool { if case .scalar(.null) = self { true } else { false } }

    var isString: Bool { if case .scalar(.string) = self { true } else { false } }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .scalar(let v): v.kindName
        case .collection: "collection"
        case .dictionary: "dictionary"
        case .object(let o): o is EntityDescription ? "entity" : o is any ObjectIDConstant ? "object ID" : "object"
        }
    }

    /// The elements when the value is a collection; a dictionary gives its values.
    var elements: [PredicateValue]? {
        switch self {
        case .collection(let c): c
        case .dictionary(let d): d.keys.sorted().map { d[$0]! }
        default: nil
        }
    }
}

extension PredicateValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(integerLiteral value: Int64) { self = .scalar(.integer(value)) }
    public init(floatLiteral value: Double) { self = .scalar(.double(value)) }
    public init(stringLiteral value: String) { self = .scalar(.string(value)) }
    public init(booleanLiteral value: Bool) { self = .scalar(.boolean(value)) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: PredicateValue...) { self = .collection(elements) }
    public init(dictionaryLiteral elements: (String, PredicateValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
