import FoundationEssentials

/// A property-list value: what a store's metadata holds.
public indirect enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var integerValue: Int64? { if case .integer(let i) = self { i } else { nil } }
    public var dataValue: [UInt8]? { if case .data(let d) = self { d } else { nil } }
    public var arrayValue: [PropertyListValue]? { if case .array(let a) = self { a } else { nil } }
    public var dictionaryValue: [String: PropertyListValue]? { if case .dictionary(let d) = self { d } else { nil } }
}
