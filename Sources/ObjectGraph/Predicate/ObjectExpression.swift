import FoundationEssentials

/// An expression of the predicate language (Foundation's NSExpression): what a comparison
/// compares. Arithmetic and the built-in functions are `function` nodes named by their
/// selector (`add:to:`, `sum:`), as Foundation names them.
public indirect enum ObjectExpression: Sendable {
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    case constant(PredicateValue)
    /// `$name`, bound by substitution or at evaluation.
    case variable(String)
    /// A dotted key path (may contain collection operators such as `@count`), read from
    /// `base`, or from the evaluated object when `base` is nil.
    case keyPath(base: ObjectExpression?, path: String)
    /// `collection[index]`, with `FIRST`, `LAST` and `SIZE` as special indexes.
    case index(ObjectExpression, IndexKind)
    /// `{a, b, c}`.
    case aggregate([ObjectExpression])
    /// A built-in function (`sum:`, `uppercase:`, `add:to:`, …) applied to its arguments.
    case function(String, [ObjectExpression])
    /// `FUNCTION(receiver, 'selector', args…)`: a method from the allow-list called on a value.
    case method(receiver: ObjectExpression, selector: String, arguments: [ObjectExpression])
    /// `SUBQUERY(collection, $variable, predicate)`: the members for which the predicate holds.
    case subquery(collection: ObjectExpression, variable: String, predicate: ObjectPredicate)
    /// `CAST(value, 'NSDate')`.
    case cast(ObjectExpression, type: String)
    /// `TERNARY(predicate, ifTrue, ifFalse)`.
    case conditional(ObjectPredicate, ObjectExpression, ObjectExpression)

    public enum IndexKind: Sendable {
        case first, last, size
        case at(ObjectExpression)
    }

    /// A key path on the evaluated object.
    public static func key(_ path: String) -> ObjectExpression { .keyPath(base: nil, path: path) }
}

/// Core Data's comparison operators.
public enum ComparisonOperator: String, Sendable, CaseIterable {
    case lessThan = "<", lessThanOrEqual = "<=", greaterThan = ">", greaterThanOrEqual = ">="
    case equal = "==", notEqual = "!="
    case matches = "MATCHES", like = "LIKE", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
    case `in` = "IN", contains = "CONTAINS", between = "BETWEEN"
}

/// How a comparison applies to a collection on its left.
public enum ComparisonQuantifier: String, Sendable {
    case direct = "", any = "ANY", all = "ALL"
}

/// A condition over objects (Foundation's NSPredicate): comparisons joined by AND, OR, NOT.
public indirect enum ObjectPredicate: Sendable {
    case truePredicate
    case falsePredicate
    case comparison(Comparison)
    case and([ObjectPredicate])
    case or([ObjectPredicate])
    case not(ObjectPredicate)

    public struct Comparison: Sendable {
        public var left: ObjectExpression
        public var op: ComparisonOperator
        public var right: ObjectExpression
        public var quantifier: ComparisonQuantifier
        public var options: StringCompareOptions

        public init(
            _ left: ObjectExpression, _ op: ComparisonOperator, _ right: ObjectExpression,
            quantifier: ComparisonQuantifier = .direct, options: StringCompareOptions = []
        ) {
            self.left = left
            self.op = op
            self.right = right
            self.quantifier = quantifier
            self.options = options
        }
    }

    /// `left op right`, built in code.
    public static func compare(
        _ left: ObjectExpression, _ op: ComparisonOperator, _ right: ObjectExpression,
        quantifier: ComparisonQuantifier = .direct, options: StringCompareOptions = []
    ) -> ObjectPredicate {
        .comparison(Comparison(left, op, right, quantifier: quantifier, options: options))
    }
}

/// The `[c]`, `[d]` and `[n]` modifiers of string comparisons.
public struct StringCompareOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let caseInsensitive = StringCompareOptions(rawValue: 1)
    public static let diacriticInsensitive = StringCompareOptions(rawValue: 2)
    /// Foundation's "normalized" option: a promise that both sides are already folded;
    /// compares exactly like no option.
    public static let normalized = StringCompareOptions(rawValue: 4)
}

extension ObjectExpression {
    /// Whether the expression reads nothing from the object or row it is evaluated with
    /// (constants, and functions and casts of them; `random` never counts as constant).
    var isConstant: Bool {
        switch self {
        case .constant: return true
        case .aggregate(let items): return items.allSatisfy(\.isConstant)
        case .function(let s, let args): return s != "random" && s != "randomn:" && args.allSatisfy(\.isConstant)
        case .cast(let v, _): return v.isConstant
        default: return false
        }
    }
}
