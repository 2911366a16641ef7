import FoundationEssentials

/// One parameter of a statement, with its type (an OID), so the server never guesses: an
/// integer compared with a double column is compared as a number. Integers and doubles go
/// in PostgreSQL's binary format (8 bytes, exact, nothing for the server to parse), other
/// values as text. NULL is neither (untyped unless its column's type is given).
struct PostgreSQLParameter {
    var text: String?
    var type: UInt32
    /// The 8 bytes of an `int8` or `float8` sent in binary (the integer, or the double's bits).
    var binary: UInt64? = nil

    init(text: String?, type: UInt32) {
        self.text = text
        self.type = type
    }

    private init(binary: UInt64, type: UInt32) {
        self.type = type
        self.binary = binary
    }

    var isNull: Bool { text == nil && binary == nil }

    /// The value in PostgreSQL's text format, typed `text` (a history tombstone column
    /// holds values of every attribute as text).
    var asText: PostgreSQLParameter {
        var out = PostgreSQLParameter(text: textForm, type: Self.textType)
        if isNull { out.text = nil }
        return out
    }

    /// The value as text of `type`.
    func retyped(_ type: UInt32) -> PostgreSQLParameter {
        PostgreSQLParameter(text: textForm, type: type)
    }

    /// The text PostgreSQL would print for the value (nil for NULL).
    var textForm: String? {
        guard let binary else { return text }
        if type == Self.float8 {
            let v = Double(bitPattern: binary)
            return v.isNaN ? "NaN" : v == .infinity ? "Infinity" : v == -.infinity ? "-Infinity" : "\(v)"
        }
        return String(Int64(bitPattern: binary))
    }

    static let int8: UInt32 = 20
    static let float8: UInt32 = 701
    static let textType: UInt32 = 25
    static let bytea: UInt32 = 17
    static let numeric: UInt32 = 1700

    static let null = PostgreSQLParameter(text: nil, type: 0)

    static func integer(_ v: Int64) -> PostgreSQLParameter { PostgreSQLParameter(binary: UInt64(bitPattern: v), type: int8) }

    static func double(_ v: Double) -> PostgreSQLParameter { PostgreSQLParameter(binary: v.bitPattern, type: float8) }

    /// Text without NUL characters (PostgreSQL's text cannot hold one): nil for text with one.
    static func text(_ v: String) -> PostgreSQLParameter? {
        v.utf8.contains(0) ? nil : PostgreSQLParameter(text: v, type: textType)
    }

    static func bytes<C: Collection>(_ v: C) -> PostgreSQLParameter where C.Element == UInt8 {
        PostgreSQLParameter(text: encodeHex(v), type: bytea)
    }

    /// A value in its storage form, as the SQLite store keeps it: dates as seconds since
    /// 2001, UUIDs as 16 bytes, booleans as 0 and 1, decimals as numbers. Nil for text
    /// holding a NUL character.
    static func storing(_ value: AttributeValue) -> PostgreSQLParameter? {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        case .double(let v): return .double(v)
        case .date(let v): return .double(v.timeIntervalSinceReferenceDate)
        case .string(let v): return text(v)
        case .uri(let v): return text(v)
        case .decimal(let v): return PostgreSQLParameter(text: v.description, type: numeric)
        case .data(let v): return bytes(v)
        case .transformable(let t): return bytes(SecureArchive.encode(t))
        case .uuid(let v):
            let u = v.uuid
            return bytes([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
        }
    }

    /// `\x` and two lower-case hex digits per byte: bytea's input form.
    static func encodeHex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(2 + bytes.count * 2)
        out.append(92); out.append(120)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// bytea's hex output (`\x…`) as bytes; anything else as its own bytes.
    static func decodeHex(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard text.count >= 2, text[0] == 92, text[1] == 120 else { return Array(text) }
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: 0
            }
        }
        var out = [UInt8](repeating: 0, count: (text.count - 2) / 2)
        var i = 2, j = 0
        while i + 1 < text.count {
            out[j] = nibble(text[i]) << 4 | nibble(text[i + 1])
            i += 2; j += 1
        }
        return out
    }
}
