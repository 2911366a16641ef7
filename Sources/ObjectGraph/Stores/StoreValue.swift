import FoundationEssentials

/// One value of a dictionary-result row as a store returns it: an attribute value, or the
/// stored row a to-one points at (the context turns it into an object ID).
public enum StoreValue: Hashable, Sendable {
    case value(AttributeValue)
    case row(EntityDescription, Int64)

    public static let null = StoreValue.value(.null)

    public static func == (a: StoreValue, b: StoreValue) -> Bool {
        switch (a, b) {
        case (.value(let x), .value(let y)): return x == y
        case (.row(let e, let k), .row(let f, let l)): return k == l && e.rootEntity === f.rootEntity
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .value(let v): hasher.combine(v)
        case .row(let e, let k):
            hasher.combine(ObjectIdentifier(e.rootEntity))
            hasher.combine(k)
        }
    }

    /// The value as SQLite orders it: a row by its primary key.
    var orderValue: AttributeValue {
        switch self {
        case .value(let v): v
        case .row(_, let k): .integer(k)
        }
    }

    /// The value as a predicate reads it (a row as an identity that compares with objects).
    var predicateValue: PredicateValue {
        switch self {
        case .value(let v): .scalar(v)
        case .row(let e, let k): .object(RowIdentity(entity: e, primaryKey: k))
        }
    }
}

/// A stored row known only by its identity: what a having predicate sees for a grouped
/// to-one. It equals a managed object or row reader of the same row.
final class RowIdentity: KeyValueReading {
    let entity: EntityDescription
    let primaryKey: Int64
    init(entity: EntityDescription, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }
    func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        throw .predicateEvaluation("a grouped to-one of '\(entity.name)' is an object ID: its key '\(key)' cannot be read", keyPath: key)
    }
    var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { (entity, primaryKey) }
}

/// Converts a computed value to an expression description's result type (an average
/// typed Integer64, a maximum of dates read from SQL as seconds), so that SQL and memory
/// return the same values. Values that cannot be converted are returned as they are.
enum ResultTyping {
    static func convert(_ value: StoreValue, to type: AttributeType) -> StoreValue {
        guard case .value(let v) = value, !v.isNull else { return value }
        return .value(convert(v, to: type))
    }

    static func convert(_ v: AttributeValue, to type: AttributeType) -> AttributeValue {
        switch type {
        case .integer16, .integer32, .integer64:
            switch v {
            case .double(let d) where d.isFinite && Swift.abs(d) < 9.2e18: return .integer(Int64(d))
            case .boolean(let b): return .integer(b ? 1 : 0)
            case .date(let d): return Int64(exactly: d.timeIntervalSinceReferenceDate.rounded(.towardZero)).map { .integer($0) } ?? v
            case .decimal(let d): return Double(d.description).flatMap { $0.isFinite && Swift.abs($0) < 9.2e18 ? .integer(Int64($0)) : nil } ?? v
            default: return v
            }
        case .double, .float:
            switch v {
            case .integer(let i): return .double(Double(i))
            case .boolean(let b): return .double(b ? 1 : 0)
            case .date(let d): return .double(d.timeIntervalSinceReferenceDate)
            case .decimal(let d): return Double(d.description).map { .double($0) } ?? v
            default: return v
            }
        case .boolean:
            switch v {
            case .integer(let i): return .boolean(i != 0)
            case .double(let d): return .boolean(d != 0)
            default: return v
            }
        case .date:
            switch v {
            case .double(let s): return .date(Date(timeIntervalSinceReferenceDate: s))
            case .integer(let i): return .date(Date(timeIntervalSinceReferenceDate: Double(i)))
            default: return v
            }
        case .decimal:
            switch v {
            case .integer(let i): return .decimal(Decimal(i))
            case .double(let d): return ValueText.decimal(d).map { .decimal($0) } ?? v
            case .string(let s): return ValueText.decimal(s).map { .decimal($0) } ?? v
            default: return v
            }
        case .uuid:
            if case .data(let d) = v, d.count == 16 {
                let b = Array(d)
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
            return v
        case .uri:
            if case .string(let s) = v, ValueText.isURI(s) { return .uri(s) }
            return v
        default:
            return v
        }
    }
}
