import FoundationEssentials

/// The order SQLite gives stored values in `ORDER BY`, reproduced in memory so that a
/// fetch sorts the same with or without pending changes: nil, then numbers by value
/// (booleans, dates and decimals are numbers on disk), then text, then bytes, both by
/// byte order.
public enum StoreOrder {
    public static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.integer(let x), .integer(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.string(let x), .string(let y)): return bytes(x.utf8, y.utf8)
        case (.uri(let x), .uri(let y)): return bytes(x.utf8, y.utf8)
        case (.data(let x), .data(let y)): return bytes(x, y)
        case (.uuid(let x), .uuid(let y)): return bytes(uuidBytes(x), uuidBytes(y))
        case (.decimal(let x), .decimal(let y)): return x < y ? -1 : x > y ? 1 : 0
        default:
            let x = number(a), y = number(b)
            return x < y ? -1 : x > y ? 1 : 0
        }
    }

    private static func rank(_ v: AttributeValue) -> Int {
        switch v {
        case .null: 0
        case .integer, .double, .boolean, .date, .decimal: 1
        case .string, .uri: 2
        case .data, .uuid, .transformable: 3
        }
    }

    private static func number(_ v: AttributeValue) -> Double {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .boolean(let b): b ? 1 : 0
        case .date(let d): d.timeIntervalSinceReferenceDate
        case .decimal(let d): Double(d.description) ?? 0
        default: 0
        }
    }

    private static func bytes<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> Int where A.Element == UInt8, B.Element == UInt8 {
        var ia = a.makeIterator(), ib = b.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    private static func uuidBytes(_ u: UUID) -> [UInt8] {
        withUnsafeBytes(of: u.uuid) { Array($0) }
    }
}
