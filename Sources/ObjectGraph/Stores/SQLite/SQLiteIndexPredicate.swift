import FoundationEssentials

/// A fetch index's partial predicate as the WHERE clause of its CREATE INDEX. Schema text
/// cannot bind parameters, so constants are written as SQL literals; column names are
/// bare, as Core Data writes them (`title != nil` becomes `ZTITLE IS NOT NULL`). Only
/// comparisons of the entity's own stored attributes and to-ones with constants, joined
/// by AND, OR and NOT, translate; for anything else there is no clause, and the caller
/// makes no index (an index never changes what a fetch returns, so none is lost but speed).
enum SQLiteIndexPredicate {
    static func sql(_ format: String, entity: EntityDescription, column: (String) -> String?) -> String? {
        guard let predicate = try? ObjectPredicate(format: format) else { return nil }
        return translate(predicate, column)
    }

    private static func translate(_ p: ObjectPredicate, _ column: (String) -> String?) -> String? {
        switch p {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case .and(let parts), .or(let parts):
            guard !parts.isEmpty else { return nil }
            var out: [String] = []
            for part in parts {
                guard let s = translate(part, column) else { return nil }
                out.append(parts.count > 1 && isCompound(part) ? "(\(s))" : s)
            }
            if case .and = p { return out.joined(separator: " AND ") }
            return out.joined(separator: " OR ")
        case .not(let inner):
            return translate(inner, column).map { "NOT (\($0))" }
        case .comparison(let c):
            guard c.quantifier == .direct, c.options.subtracting(.normalized).isEmpty else { return nil }
            if case .keyPath(nil, let key) = c.left, case .constant(.scalar(let v)) = c.right {
                return comparison(key, c.op, v, column)
            }
            if case .constant(.scalar(let v)) = c.left, case .keyPath(nil, let key) = c.right, let op = flipped(c.op) {
                return comparison(key, op, v, column)
            }
            return nil
        }
    }

    private static func isCompound(_ p: ObjectPredicate) -> Bool {
        switch p {
        case .and, .or: true
        default: false
        }
    }

    private static func flipped(_ op: ComparisonOperator) -> ComparisonOperator? {
        switch op {
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        case .equal, .notEqual: op
        default: nil
        }
    }

    private static func comparison(_ key: String, _ op: ComparisonOperator, _ value: AttributeValue, _ column: (String) -> String?) -> String? {
        guard !key.contains("."), let name = column(key) else { return nil }
        let c = sqlIdentifier(name)
        if value.isNull {
            switch op {
            case .equal: return "\(c) IS NULL"
            case .notEqual: return "\(c) IS NOT NULL"
            default: return nil
            }
        }
        guard let literal = literal(value) else { return nil }
        let sqlOp: String
        switch op {
        case .equal: sqlOp = "="
        case .notEqual: sqlOp = "<>"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: sqlOp = op.rawValue
        default: return nil
        }
        return "\(c) \(sqlOp) \(literal)"
    }

    /// A constant as the store keeps it (docs/store-format.md, "Values").
    private static func literal(_ v: AttributeValue) -> String? {
        switch v {
        case .integer(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : nil
        case .boolean(let b): return b ? "1" : "0"
        case .decimal(let d): return d.description
        case .string(let s), .uri(let s): return "'" + s.replacing("'", with: "''") + "'"
        case .date(let d): return String(d.timeIntervalSinceReferenceDate)
        case .uuid(let u):
            let bytes = withUnsafeBytes(of: u.uuid) { Array($0) }
            return "X'" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() + "'"
        case .data, .null, .transformable: return nil
        }
    }
}
