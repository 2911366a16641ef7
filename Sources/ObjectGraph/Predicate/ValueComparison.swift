import FoundationEssentials

/// Equality and order between predicate values, with NSNumber's rules: integers, doubles,
/// booleans and decimals are all numbers; strings compare by scalar (see
/// `StringMatching`); dates with dates; nil equals only nil and is never ordered.
enum ValueComparison {
    /// A number as a double, when the value is one.
    static func number(_ v: AttributeValue) -> Double? {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .boolean(let b): b ? 1 : 0
        case .decimal(let d): Double(d.description)
        default: nil
        }
    }

    static func equal(_ a: PredicateValue, _ b: PredicateValue, _ options: StringCompareOptions = []) -> Bool {
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return equal(x, y, options)
        case (.object(let x), .object(let y)): return x === y || (ObjectIdentity.equal(x, y) ?? sameStoredRow(x, y))
        case (.collection(let x), .collection(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { equal(v, $0, options) } ?? false }
        default: return false
        }
    }

    /// Two readers of one stored row (a managed object and a store's row reader) are equal.
    private static func sameStoredRow(_ x: any KeyValueReading, _ y: any KeyValueReading) -> Bool {
        guard let a = x.storedIdentity, let b = y.storedIdentity else { return false }
        return a.primaryKey == b.primaryKey && a.entity.rootEntity === b.entity.rootEntity
    }

    static func equal(_ a: AttributeValue, _ b: AttributeValue, _ options: StringCompareOptions = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.integer(let x), .integer(let y)): return x == y
        case (.string(let x), .string(let y)): return StringMatching.equal(x, y, options)
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.uri(let x), .uri(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        default:
            if let x = number(a), let y = number(b) { return x == y }
            return false
        }
    }

    /// -1, 0 or 1; nil when either side is nil; an error when the kinds cannot be ordered.
    static func order(_ a: PredicateValue, _ b: PredicateValue, _ options: StringCompareOptions = []) throws(ObjectGraphError) -> Int? {
        guard case .scalar(let x) = a, case .scalar(let y) = b else {
            if a.isNull || b.isNull { return nil }
            throw .predicateEvaluation("cannot order \(a.kindName.withArticle) and \(b.kindName.withArticle)")
        }
        return try order(x, y, options)
    }

    static func order(_ a: AttributeValue, _ b: AttributeValue, _ options: StringCompareOptions = []) throws(ObjectGraphError) -> Int? {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.integer(let x), .integer(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.string(let x), .string(let y)): return StringMatching.compare(x, y, options)
        case (.date(let x), .date(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.decimal(let x), .decimal(let y)): return x < y ? -1 : x > y ? 1 : 0
        default:
            if let x = number(a), let y = number(b) { return x < y ? -1 : x > y ? 1 : 0 }
            throw .predicateEvaluation("cannot compare \(a.kindName.withArticle) with \(b.kindName.withArticle)")
        }
    }
}

extension String {
    /// "an integer", "a string": a kind name with its indefinite article.
    var withArticle: String {
        guard let first = first?.lowercased() else { return self }
        return ("aeiou".contains(first) ? "an " : "a ") + self
    }
}
