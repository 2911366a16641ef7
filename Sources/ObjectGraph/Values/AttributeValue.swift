import FoundationEssentials

/// One attribute value. Managed objects keep their attributes as a dense array of these
/// (one per slot), so no value is boxed as `Any`.
public enum AttributeValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    case decimal(Decimal)
    case uuid(UUID)
    /// A URI, as its text exactly as given: `URL(string:)` would percent-encode the
    /// characters URIs do not allow (a space becomes `%20`), and a value must come back
    /// as it was set. Text crossing the API edges is checked to be an absolute URI.
    case uri(String)
    /// The value of a transformable attribute (never `.null`: nil is `.null`). In a
    /// transformable slot, `.data` is the stored bytes its transformer has not read yet.
    case transformable(TransformableValue)

    /// A URI value of `url` (its `absoluteString`).
    public static func uri(_ url: URL) -> AttributeValue { .uri(url.absoluteString) }

    /// The URL of a URI value (percent-encoded where its text is not a valid URL), or nil.
    public var url: URL? { if case .uri(let text) = self { URL(string: text) } else { nil } }

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "nil"
        case .integer: "integer"
        case .double: "double"
        case .boolean: "boolean"
        case .string: "string"
        case .date: "date"
        case .data: "binary data"
        case .decimal: "decimal"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable(let t):
            switch t {
            case .array: "array"
            case .dictionary: "dictionary"
            case .object(let o): "archived \(o.className)"
            default: "transformable value"
            }
        }
    }
}

extension AttributeValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension AttributeValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "nil"
        case .integer(let v): String(v)
        case .double(let v): String(v)
        case .boolean(let v): v ? "true" : "false"
        case .string(let v): "\"\(v)\""
        case .date(let v): v.formatted(.iso8601)
        case .data(let v): "<\(v.count) bytes>"
        case .decimal(let v): v.description
        case .uuid(let v): v.uuidString
        case .uri(let v): v
        case .transformable(let t): t.description
        }
    }
}

extension AttributeValue {
    /// The value converted for an attribute of `type`, or an error naming `key` when the
    /// value has the wrong type or does not fit. Integers convert to doubles and decimals,
    /// booleans and integers to each other (as NSNumber does); nothing else converts.
    /// Whether the value is already what an attribute of `type` stores, so `coerced` would
    /// return it unchanged (the common case, checked without building error context).
    @inline(__always)
    func isStored(as type: AttributeType) -> Bool {
        switch (type, self) {
        case (_, .null), (.integer64, .integer), (.double, .double), (.boolean, .boolean), (.string, .string), (.date, .date),
            (.binaryData, .data), (.uuid, .uuid), (.uri, .uri), (.decimal, .decimal), (.transformable, .transformable), (.undefined, _):
            return true
        default:
            return false
        }
    }

    public func coerced(to type: AttributeType, key: String, entity: String) throws(ObjectGraphError)
        -> AttributeValue
    {
        if case .null = self { return .null }
        switch (type, self) {
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)):
            let range = type.integerRange!
            if v > range.upperBound {
                throw .numberOutOfRange(key: key, entity: entity, value: self, type: type, tooLarge: true)
            }
            if v < range.lowerBound {
                throw .numberOutOfRange(key: key, entity: entity, value: self, type: type, tooLarge: false)
            }
            return self
        case (.integer64, .integer):
            return self
        case (.integer16, .boolean(let b)), (.integer32, .boolean(let b)), (.integer64, .boolean(let b)):
            return .integer(b ? 1 : 0)
        case (.double, .double):
            return self
        case (.double, .integer(let v)):
            return .double(Double(v))
        case (.float, .double(let v)):
            return .double(Double(Float(v)))
        case (.float, .integer(let v)):
            return .double(Double(Float(v)))
        case (.boolean, .boolean):
            return self
        case (.boolean, .integer(let v)) where v == 0 || v == 1:
            return .boolean(v == 1)
        case (.string, .string), (.date, .date), (.binaryData, .data), (.uuid, .uuid), (.uri, .uri),
            (.decimal, .decimal):
            return self
        case (.transformable, .transformable(.null)):
            return .null
        case (.transformable, let v):
            // Every plist scalar is a transformable value; a decimal is not one.
            guard let t = TransformableValue(v) else { throw .typeMismatch(key: key, entity: entity, expected: type, got: self) }
            return .transformable(t)
        case (.decimal, .integer(let v)):
            return .decimal(Decimal(v))
        case (.decimal, .double(let v)):
            guard let d = ValueText.decimal(v) else { throw .notADecimal(key: key, entity: entity, value: v) }
            return .decimal(d)
        case (.undefined, _):
            return self
        default:
            throw .typeMismatch(key: key, entity: entity, expected: type, got: self)
        }
    }
}
