import FoundationEssentials

/// A parsed JSON document, for model files: JSONSerialization is not part of
/// FoundationEssentials, and a model file needs unknown-key checks Codable does not give.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    static func parse(_ bytes: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: bytes)
    }

    /// Compact or indented JSON text with object keys in the given order.
    func write(into out: inout String, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d): out += d.isFinite ? String(d) : "null"
        case .string(let s): JSONValue.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                item.write(into: &out, indent: indent + 2)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let dict):
            JSONValue.writeObject(dict.sorted { $0.key < $1.key }, into: &out, indent: indent)
        }
    }

    static func writeObject(_ pairs: [(key: String, value: JSONValue)], into out: inout String, indent: Int) {
        if pairs.isEmpty { out += "{}"; return }
        out += "{\n"
        for (i, pair) in pairs.enumerated() {
            out += String(repeating: " ", count: indent + 2)
            quote(pair.key, into: &out)
            out += ": "
            pair.value.write(into: &out, indent: indent + 2)
            out += i == pairs.count - 1 ? "\n" : ",\n"
        }
        out += String(repeating: " ", count: indent) + "}"
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// An ordered JSON object, so written model files list keys in a readable order.
struct OrderedJSONObject {
    var pairs: [(key: String, value: JSONValue)] = []
    mutating func set(_ key: String, _ value: JSONValue) { pairs.append((key, value)) }
}
