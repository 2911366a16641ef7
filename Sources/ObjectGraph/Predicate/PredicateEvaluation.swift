import FoundationEssentials

/// In-memory evaluation. Key paths walk objects, dictionaries and collections (a key read
/// from a collection reads it from every member, as key-value coding does); missing
/// dictionary keys are nil; nil is equal only to nil and never ordered.
struct PredicateEvaluator {
    var variables: [String: PredicateValue]

    func evaluate(_ p: ObjectPredicate, _ object: PredicateValue) throws(ObjectGraphError) -> Bool {
        switch p {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .not(let q): return !(try evaluate(q, object))
        case .and(let parts):
            for q in parts where !(try evaluate(q, object)) { return false }
            return true
        case .or(let parts):
            for q in parts where try evaluate(q, object) { return true }
            return false
        case .comparison(let c): return try compare(c, object)
        }
    }

    /// Evaluates a comparison; an error names the comparison and its key path.
    private func compare(_ c: ObjectPredicate.Comparison, _ object: PredicateValue) throws(ObjectGraphError) -> Bool {
        do {
            return try compareValues(c, object)
        } catch {
            guard error.code == ErrorCode.predicateEvaluation, !error.message.hasPrefix("in '") else { throw error }
            var e = error
            e.message = "in '\(PredicateFormatter.format(.comparison(c)))': \(error.message)"
            if e.userInfoValue(forKey: ErrorUserInfoKey.validationKey) == nil, case .keyPath(_, let path) = c.left {
                e.userInfo.append((ErrorUserInfoKey.validationKey, path))
            }
            throw e
        }
    }

    private func compareValues(_ c: ObjectPredicate.Comparison, _ object: PredicateValue) throws(ObjectGraphError) -> Bool {
        let left = try value(c.left, object)
        let right = try value(c.right, object)
        switch c.quantifier {
        case .direct:
            return try Self.apply(c.op, left, right, c.options)
        case .any, .all:
            guard let members = left.elements else {
                if left.isNull { return c.quantifier == .all }
                throw .predicateEvaluation(
                    "\(c.quantifier.rawValue) needs a collection on its left, but \(PredicateFormatter.format(c.left)) is a \(left.kindName)")
            }
            for m in members {
                let r = try Self.apply(c.op, m, right, c.options)
                if c.quantifier == .any && r { return true }
                if c.quantifier == .all && !r { return false }
            }
            return c.quantifier == .all
        }
    }

    /// One comparison between two values.
    static func apply(_ op: ComparisonOperator, _ l: PredicateValue, _ r: PredicateValue, _ options: StringCompareOptions) throws(ObjectGraphError) -> Bool {
        switch op {
        case .equal: return ValueComparison.equal(l, r, options)
        case .notEqual: return !ValueComparison.equal(l, r, options)
        case .lessThan: return (try ValueComparison.order(l, r, options)).map { $0 < 0 } ?? false
        case .lessThanOrEqual: return (try ValueComparison.order(l, r, options)).map { $0 <= 0 } ?? false
        case .greaterThan: return (try ValueComparison.order(l, r, options)).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return (try ValueComparison.order(l, r, options)).map { $0 >= 0 } ?? false
        case .between:
            guard let bounds = r.elements, bounds.count == 2 else {
                // Foundation parses any bounds and fails only when it evaluates them.
                let got = r.elements.map { "\($0.count) bound\($0.count == 1 ? "" : "s")" } ?? "a \(r.kindName)"
                throw .predicateEvaluation("BETWEEN needs two bounds, {low, high}; got \(got)")
            }
            guard let lo = try ValueComparison.order(l, bounds[0], options), let hi = try ValueComparison.order(l, bounds[1], options) else {
                return false
            }
            return lo >= 0 && hi <= 0
        case .in:
            if case .scalar(.string(let s)) = l, case .scalar(.string(let t)) = r { return StringMatching.contains(t, s, options) }
            // nil is in no string, and no string is in nil.
            if r.isNull || (l.isNull && r.isString) { return false }
            guard let members = r.elements else {
                throw .predicateEvaluation("IN needs a collection (or a string) on its right, got a \(r.kindName)")
            }
            return members.contains { ValueComparison.equal(l, $0, options) }
        case .contains:
            if case .scalar(.string(let s)) = l, case .scalar(.string(let t)) = r { return StringMatching.contains(s, t, options) }
            if l.isNull || (r.isNull && l.isString) { return false }
            guard let members = l.elements else {
                throw .predicateEvaluation("CONTAINS needs a collection (or a string) on its left, got a \(l.kindName)")
            }
            return members.contains { ValueComparison.equal($0, r, options) }
        case .beginsWith, .endsWith, .like, .matches:
            if l.isNull || r.isNull { return false }
            guard case .scalar(.string(let s)) = l, case .scalar(.string(let t)) = r else {
                throw .predicateEvaluation("\(op.rawValue) compares strings, got a \(l.kindName) and a \(r.kindName)")
            }
            switch op {
            case .beginsWith: return StringMatching.beginsWith(s, t, options)
            case .endsWith: return StringMatching.endsWith(s, t, options)
            case .like: return StringMatching.like(s, t, options)
            default: return try StringMatching.matches(s, t, options)
            }
        }
    }

    // MARK: Expressions

    func value(_ e: ObjectExpression, _ object: PredicateValue) throws(ObjectGraphError) -> PredicateValue {
        switch e {
        case .evaluatedObject: return object
        case .constant(let v): return v
        case .variable(let name):
            guard let v = variables[name] else { throw .predicateVariable(name) }
            return v
        case .keyPath(let base, let path):
            let start = try base.map { (b) throws(ObjectGraphError) in try value(b, object) } ?? object
            return try Self.read(path, from: start)
        case .index(let base, let kind):
            return try index(try value(base, object), kind, object)
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for i in items { values.append(try value(i, object)) }
            return .collection(values)
        case .function(let selector, let args):
            var values: [PredicateValue] = []
            for a in args { values.append(try value(a, object)) }
            return try PredicateFunctions.call(selector, values)
        case .method(let receiver, let selector, let args):
            var values: [PredicateValue] = []
            for a in args { values.append(try value(a, object)) }
            return try PredicateFunctions.callMethod(selector, on: try value(receiver, object), values)
        case .subquery(let collection, let variable, let predicate):
            let c = try value(collection, object)
            if c.isNull { return .collection([]) }
            guard let members = c.elements else {
                throw .predicateEvaluation("SUBQUERY needs a collection, got a \(c.kindName)")
            }
            // The member is the variable; plain key paths still read the outer object.
            var inner = self
            var kept: [PredicateValue] = []
            for m in members {
                inner.variables[variable] = m
                if try inner.evaluate(predicate, object) { kept.append(m) }
            }
            return .collection(kept)
        case .cast(let v, let type):
            return try PredicateFunctions.cast(try value(v, object), to: type)
        case .conditional(let p, let a, let b):
            return try evaluate(p, object) ? try value(a, object) : try value(b, object)
        }
    }

    private func index(_ base: PredicateValue, _ kind: ObjectExpression.IndexKind, _ object: PredicateValue) throws(ObjectGraphError) -> PredicateValue {
        if base.isNull { return .null }
        if case .dictionary(let d) = base, case .at(let keyExpression) = kind {
            guard case .scalar(.string(let key)) = try value(keyExpression, object) else {
                throw .predicateEvaluation("a dictionary is indexed by a string key")
            }
            return d[key] ?? .null
        }
        guard case .collection(let items) = base else {
            throw .predicateEvaluation("only collections and dictionaries can be indexed, got a \(base.kindName)")
        }
        switch kind {
        case .first: return items.first ?? .null
        case .last: return items.last ?? .null
        case .size: return .scalar(.integer(Int64(items.count)))
        case .at(let i):
            let position = try value(i, object)
            guard case .scalar(let s) = position, let n = ValueComparison.number(s), n.rounded() == n else {
                throw .predicateEvaluation("an index must be an integer, got a \(position.kindName)")
            }
            guard n >= 0, Int(n) < items.count else {
                throw .predicateEvaluation("index \(Int(n)) is out of range for a collection of \(items.count)")
            }
            return items[Int(n)]
        }
    }

    // MARK: Key paths

    /// Reads a dotted key path, applying collection operators (`@count`, `@sum.x`, …).
    static func read(_ path: String, from start: PredicateValue) throws(ObjectGraphError) -> PredicateValue {
        let components = KeyPath.components(path)
        return try read(components[...], from: start, path: path)
    }

    private static func read(_ components: ArraySlice<String>, from start: PredicateValue, path: String) throws(ObjectGraphError) -> PredicateValue {
        var current = start
        var rest = components
        while let key = rest.first {
            rest = rest.dropFirst()
            if KeyPath.isCollectionOperator(key) {
                return try collectionOperator(key, rest, current, path)
            }
            current = try readKey(key, from: current, path: path)
        }
        return current
    }

    static func readKey(_ key: String, from value: PredicateValue, path: String) throws(ObjectGraphError) -> PredicateValue {
        switch value {
        case .object(let o): return try o.predicateValue(forKey: key)
        case .dictionary(let d): return d[key] ?? .null
        case .collection(let items):
            // Reading through a to-many gives one flat collection of the members' values.
            var out: [PredicateValue] = []
            for item in items {
                let v = try readKey(key, from: item, path: path)
                if case .collection(let inner) = v { out.append(contentsOf: inner) } else { out.append(v) }
            }
            return .collection(out)
        case .scalar(.null): return .null
        case .scalar(.string(let s)) where key == "length":
            // Key-value coding on a string: its length in UTF-16 units, as NSString's
            // `length` (Xcode writes length rules as predicates on it).
            return .scalar(.integer(Int64(s.utf16.count)))
        case .scalar(.string) where key == "description":
            // A string's description is the string itself (NSString's `description`).
            return value
        case .scalar(let s):
            throw .predicateEvaluation("cannot read the key '\(key)' of a \(s.kindName) (key path '\(path)')", keyPath: path)
        }
    }

    private static func collectionOperator(_ op: String, _ rest: ArraySlice<String>, _ value: PredicateValue, _ path: String) throws(ObjectGraphError) -> PredicateValue {
        if value.isNull { return op == "@count" ? .scalar(.integer(0)) : .null }
        guard let members = value.elements else {
            throw .predicateEvaluation("\(op) needs a collection, but '\(path)' reaches a \(value.kindName)", keyPath: path)
        }
        func mapped() throws(ObjectGraphError) -> [PredicateValue] {
            guard !rest.isEmpty else { return members }
            var out: [PredicateValue] = []
            for m in members { out.append(try read(rest, from: m, path: path)) }
            return out
        }
        switch op {
        case "@count":
            return .scalar(.integer(Int64(members.count)))
        case "@sum": return try PredicateFunctions.statistic("sum:", try mapped())
        case "@avg": return try PredicateFunctions.statistic("average:", try mapped())
        case "@min": return try PredicateFunctions.statistic("min:", try mapped())
        case "@max": return try PredicateFunctions.statistic("max:", try mapped())
        case "@unionOfObjects", "@distinctUnionOfObjects", "@unionOfArrays", "@distinctUnionOfArrays",
            "@unionOfSets", "@distinctUnionOfSets":
            var values = try mapped()
            if op.hasSuffix("Arrays") || op.hasSuffix("Sets") {
                values = values.flatMap { $0.elements ?? [$0] }
            }
            values = values.filter { !$0.isNull }
            if op.hasPrefix("@distinct") {
                var unique: [PredicateValue] = []
                for v in values where !unique.contains(where: { ValueComparison.equal($0, v) }) { unique.append(v) }
                values = unique
            }
            return .collection(values)
        default:
            throw .predicateEvaluation("unknown collection operator \(op) in '\(path)'", keyPath: path)
        }
    }
}
