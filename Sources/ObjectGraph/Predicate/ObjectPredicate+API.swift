import FoundationEssentials

extension ObjectPredicate {
    /// Parses a format string. `%@`, `%K` and the printf-style specifiers take their values
    /// from `arguments` in order; a missing or mistyped argument is error 140021, a syntax
    /// error 140020 naming the position and the token.
    public init(format: String, arguments: [PredicateValue] = []) throws(ObjectGraphError) {
        self = try PredicateParser.parsePredicate(format, arguments: arguments)
    }

    /// The canonical text; it parses back to an equal predicate.
    public var predicateFormat: String { PredicateFormatter.format(self) }

    /// Whether `object` satisfies the predicate. `$variables` take their values from
    /// `variables`; an unbound one is error 140022, incompatible operands 140023.
    public func evaluate(with object: PredicateValue, variables: [String: PredicateValue] = [:]) throws(ObjectGraphError) -> Bool {
        try PredicateEvaluator(variables: variables).evaluate(self, object)
    }

    /// A copy with every free `$variable` replaced by its value; a variable missing from
    /// `variables` is error 140022 naming it. Variables bound by a SUBQUERY stay.
    public func substituting(_ variables: [String: PredicateValue]) throws(ObjectGraphError) -> ObjectPredicate {
        try PredicateSubstitution(values: variables, bound: []).predicate(self)
    }

    /// The names of the free `$variables`, sorted.
    public var variableNames: [String] {
        var names = Set<String>()
        PredicateSubstitution.collect(self, bound: [], into: &names)
        return names.sorted()
    }
}

extension ObjectPredicate: CustomStringConvertible {
    public var description: String { predicateFormat }
}

extension ObjectExpression {
    /// Parses an expression in the format-string language (`age + 1`, `books.@count`).
    public init(format: String, arguments: [PredicateValue] = []) throws(ObjectGraphError) {
        self = try PredicateParser.parseExpression(format, arguments: arguments)
    }

    public var expressionFormat: String { PredicateFormatter.format(self) }

    /// The expression's value for `object`.
    public func evaluate(with object: PredicateValue, variables: [String: PredicateValue] = [:]) throws(ObjectGraphError) -> PredicateValue {
        try PredicateEvaluator(variables: variables).value(self, object)
    }
}

extension ObjectExpression: CustomStringConvertible {
    public var description: String { expressionFormat }
}

/// Replaces free variables with constants.
struct PredicateSubstitution {
    let values: [String: PredicateValue]
    let bound: Set<String>

    func predicate(_ p: ObjectPredicate) throws(ObjectGraphError) -> ObjectPredicate {
        switch p {
        case .truePredicate, .falsePredicate: return p
        case .not(let q): return .not(try predicate(q))
        case .and(let parts):
            var out: [ObjectPredicate] = []
            for q in parts { out.append(try predicate(q)) }
            return .and(out)
        case .or(let parts):
            var out: [ObjectPredicate] = []
            for q in parts { out.append(try predicate(q)) }
            return .or(out)
        case .comparison(var c):
            c.left = try expression(c.left)
            c.right = try expression(c.right)
            return .comparison(c)
        }
    }

    func expression(_ e: ObjectExpression) throws(ObjectGraphError) -> ObjectExpression {
        func all(_ list: [ObjectExpression]) throws(ObjectGraphError) -> [ObjectExpression] {
            var out: [ObjectExpression] = []
            for x in list { out.append(try expression(x)) }
            return out
        }
        switch e {
        case .evaluatedObject, .constant: return e
        case .variable(let name):
            if bound.contains(name) { return e }
            guard let v = values[name] else { throw .predicateVariable(name) }
            return .constant(v)
        case .keyPath(let base, let path):
            return .keyPath(base: try base.map { (b) throws(ObjectGraphError) in try expression(b) }, path: path)
        case .index(let base, let kind):
            if case .at(let i) = kind { return .index(try expression(base), .at(try expression(i))) }
            return .index(try expression(base), kind)
        case .aggregate(let items): return .aggregate(try all(items))
        case .function(let s, let args): return .function(s, try all(args))
        case .method(let r, let s, let args): return .method(receiver: try expression(r), selector: s, arguments: try all(args))
        case .subquery(let c, let v, let p):
            let inner = PredicateSubstitution(values: values, bound: bound.union([v]))
            return .subquery(collection: try expression(c), variable: v, predicate: try inner.predicate(p))
        case .cast(let v, let t): return .cast(try expression(v), type: t)
        case .conditional(let p, let a, let b): return .conditional(try predicate(p), try expression(a), try expression(b))
        }
    }

    static func collect(_ p: ObjectPredicate, bound: Set<String>, into names: inout Set<String>) {
        switch p {
        case .truePredicate, .falsePredicate: break
        case .not(let q): collect(q, bound: bound, into: &names)
        case .and(let parts), .or(let parts): for q in parts { collect(q, bound: bound, into: &names) }
        case .comparison(let c):
            collect(c.left, bound: bound, into: &names)
            collect(c.right, bound: bound, into: &names)
        }
    }

    static func collect(_ e: ObjectExpression, bound: Set<String>, into names: inout Set<String>) {
        switch e {
        case .evaluatedObject, .constant: break
        case .variable(let name): if !bound.contains(name) { names.insert(name) }
        case .keyPath(let base, _): if let base { collect(base, bound: bound, into: &names) }
        case .index(let base, let kind):
            collect(base, bound: bound, into: &names)
            if case .at(let i) = kind { collect(i, bound: bound, into: &names) }
        case .aggregate(let items), .function(_, let items): for i in items { collect(i, bound: bound, into: &names) }
        case .method(let r, _, let args):
            collect(r, bound: bound, into: &names)
            for a in args { collect(a, bound: bound, into: &names) }
        case .subquery(let c, let v, let p):
            collect(c, bound: bound, into: &names)
            collect(p, bound: bound.union([v]), into: &names)
        case .cast(let v, _): collect(v, bound: bound, into: &names)
        case .conditional(let p, let a, let b):
            collect(p, bound: bound, into: &names)
            collect(a, bound: bound, into: &names)
            collect(b, bound: bound, into: &names)
        }
    }
}
