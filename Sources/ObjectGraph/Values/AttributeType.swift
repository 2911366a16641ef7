/// The type of an attribute, with Core Data's numbers (`NSAttributeType`).
/// `uuid` and `uri` are the values Apple added after the reference (1100, 1200).
public enum AttributeType: Int, Sendable, CaseIterable, CustomStringConvertible {
    case undefined = 0
    case integer16 = 100
    case integer32 = 200
    case integer64 = 300
    case decimal = 400
    case double = 500
    case float = 600
    case string = 700
    case boolean = 800
    case date = 900
    case binaryData = 1000
    case uuid = 1100
    case uri = 1200
    case transformable = 1800
    case objectID = 2000

    /// The name used in ObjectGraph's JSON model format.
    public var name: String {
        switch self {
        case .undefined: "undefined"
        case .integer16: "integer16"
        case .integer32: "integer32"
        case .integer64: "integer64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .binaryData: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        case .objectID: "objectID"
        }
    }

    public init?(name: String) {
        guard let match = AttributeType.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public var description: String { name }

    /// The inclusive range of an integer type; nil for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }

    var isInteger: Bool { integerRange != nil }
}
