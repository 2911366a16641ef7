import FoundationEssentials

/// The value of a transformable attribute: a property-list tree (what Apple's secure
/// transformer archives) whose leaves may also be instances of archivable classes. The
/// store keeps it as bytes made by the attribute's value transformer.
public indirect enum TransformableValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    /// A URL, as its text.
    case url(String)
    case array([TransformableValue])
    case dictionary([String: TransformableValue])
    /// An instance of a class allowed with `ValueTransformers.registerArchivableClass`.
    case object(ArchivedObject)

    /// The value of a scalar attribute value (`.transformable` unwrapped); nil for a decimal,
    /// which no plist type holds.
    public init?(_ value: AttributeValue) {
        switch value {
        case .null: self = .null
        case .boolean(let b): self = .boolean(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .data(let d): self = .data(d)
        case .date(let d): self = .date(d)
        case .uuid(let u): self = .uuid(u)
        case .uri(let u): self = .url(u)
        case .transformable(let t): self = t
        case .decimal: return nil
        }
    }

    /// The same value as a scalar attribute value where there is one; arrays,
    /// dictionaries and objects stay wrapped in `.transformable`.
    public var attributeValue: AttributeValue {
        switch self {
        case .null: .null
        case .boolean(let b): .boolean(b)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let d): .data(d)
        case .date(let d): .date(d)
        case .uuid(let u): .uuid(u)
        case .url(let u): .uri(u)
        case .array, .dictionary, .object: .transformable(self)
        }
    }

    /// The class names of every archived object in the tree, outermost first.
    public var archivedClassNames: [String] {
        var names: [String] = []
        func walk(_ v: TransformableValue) {
            switch v {
            case .array(let items): items.forEach(walk)
            case .dictionary(let d): for k in d.keys.sorted() { walk(d[k]!) }
            case .object(let o):
                names.append(o.className)
                for k in o.fields.keys.sorted() { walk(o.fields[k]!) }
            default: break
            }
        }
        walk(self)
        return names
    }
}

/// An instance of an archivable class: its class name and its fields, archived like an
/// NSSecureCoding object that encodes each field under its name.
public struct ArchivedObject: Sendable, Hashable {
    public var className: String
    public var fields: [String: TransformableValue]

    public init(className: String, fields: [String: TransformableValue]) {
        self.className = className
        self.fields = fields
    }
}

extension TransformableValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: TransformableValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, TransformableValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TransformableValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let d): "{" + d.keys.sorted().map { "\"\($0)\": \(d[$0]!)" }.joined(separator: ", ") + "}"
        case .object(let o): o.className + "(" + o.fields.keys.sorted().map { "\($0): \(o.fields[$0]!)" }.joined(separator: ", ") + ")"
        default: attributeValue.description
        }
    }
}
