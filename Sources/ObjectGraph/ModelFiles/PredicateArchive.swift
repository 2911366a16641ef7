import FoundationEssentials

/// Predicates and expressions as Foundation archives them (NSComparisonPredicate,
/// NSKeyPathExpression, ...), both ways: a model keeps its validation rules, fetch
/// predicates and derivations in this form. Read ones come back as their canonical text.
///
/// Text that does not parse is kept under `ObjectGraphFormat` on a TRUEPREDICATE (or an
/// empty constant expression) so that it reads back as it was; Apple's unarchiver ignores
/// the key.
enum PredicateArchive {
    typealias Object = BinaryPropertyList.Object

    static let formatKey = "ObjectGraphFormat"

    /// The operator classes by operator, and the `NSOperatorType` of each.
    static let operatorTypes: [ComparisonOperator: Int64] = [
        .lessThan: 0, .lessThanOrEqual: 1, .greaterThan: 2, .greaterThanOrEqual: 3, .equal: 4, .notEqual: 5, .matches: 6, .like: 7,
        .beginsWith: 8, .endsWith: 9, .in: 10, .contains: 99, .between: 100,
    ]

    // MARK: Writing

    /// An archived predicate for a format string.
    static func write(predicate format: String, _ archive: KeyedArchiveWriter) -> Object {
        guard let p = try? ObjectPredicate(format: format) else {
            return archive.object(nil, "NSTruePredicate") { [(formatKey, archive.string(format))] }
        }
        return Writer(archive: archive).predicate(p)
    }

    static func write(_ p: ObjectPredicate, _ archive: KeyedArchiveWriter) -> Object {
        Writer(archive: archive).predicate(p)
    }

    /// An archived derived attribute's expression. Core Data stores `path.@count` as the
    /// function `count:(path)`; text whose canonical form would hash differently is kept
    /// as written too.
    static func write(derivation text: String, _ archive: KeyedArchiveWriter) -> Object {
        let normalized = VersionHash.derivationFormat(text)
        guard let e = try? ObjectExpression(format: normalized) else {
            return archive.object(nil, "NSConstantValueExpression") { [("NSExpressionType", .int(0)), (formatKey, archive.string(text))] }
        }
        let exact = PredicateFormatter.format(e) == normalized ? nil : text
        return Writer(archive: archive).expression(e, keeping: exact)
    }

    private struct Writer {
        let archive: KeyedArchiveWriter

        func predicate(_ p: ObjectPredicate) -> Object {
            switch p {
            case .truePredicate: return archive.object(nil, "NSTruePredicate") { [] }
            case .falsePredicate: return archive.object(nil, "NSFalsePredicate") { [] }
            case .not(let q): return compound(0, [q])
            case .and(let parts): return compound(1, parts)
            case .or(let parts): return compound(2, parts)
            case .comparison(let c):
                return archive.object(nil, "NSComparisonPredicate") {
                    let left = expression(c.left), right = expression(c.right)
                    return [("NSLeftExpression", left), ("NSRightExpression", right), ("NSPredicateOperator", comparisonOperator(c))]
                }
            }
        }

        private func compound(_ type: Int64, _ parts: [ObjectPredicate]) -> Object {
            archive.object(nil, "NSCompoundPredicate") {
                [("NSCompoundPredicateType", .int(type)), ("NSSubpredicates", archive.array { parts.map(predicate) })]
            }
        }

        private func comparisonOperator(_ c: ObjectPredicate.Comparison) -> Object {
            let type = PredicateArchive.operatorTypes[c.op] ?? 4
            let modifier: Int64 = c.quantifier == .all ? 1 : c.quantifier == .any ? 2 : 0
            let options = Object.int(Int64(c.options.rawValue))
            var fields: [(String, Object)] = [("NSOperatorType", .int(type)), ("NSModifier", .int(modifier))]
            let className: String
            switch c.op {
            case .equal, .notEqual:
                className = "NSEqualityPredicateOperator"
                fields += [("NSNegate", .bool(c.op == .notEqual)), ("NSOptions", options)]
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                className = "NSComparisonPredicateOperator"
                fields += [("NSVariant", .int(type)), ("NSOptions", options)]
            case .in, .contains:
                className = "NSInPredicateOperator"
                fields.append(("NSFlags", options))
            case .between:
                className = "NSBetweenPredicateOperator"
            case .matches, .like, .beginsWith, .endsWith:
                let names: [ComparisonOperator: String] = [.matches: "NSMatchingPredicateOperator", .like: "NSLikePredicateOperator",
                                                           .beginsWith: "NSBeginsWithPredicateOperator", .endsWith: "NSEndsWithPredicateOperator"]
                className = names[c.op]!
                fields.append(("NSFlags", options))
            }
            return archive.object(nil, className) { fields }
        }

        func expression(_ e: ObjectExpression, keeping text: String? = nil) -> Object {
            let kept: [(String, Object)] = text.map { [(PredicateArchive.formatKey, archive.string($0))] } ?? []
            switch e {
            case .evaluatedObject:
                // One shared instance, as Foundation's `[NSExpression expressionForEvaluatedObject]`.
                return archive.object(text == nil ? "NSSelfExpression" : nil, "NSSelfExpression") { [("NSExpressionType", .int(1))] + kept }
            case .constant(let v):
                return archive.object(nil, "NSConstantValueExpression") {
                    var fields: [(String, Object)] = [("NSExpressionType", .int(0))]
                    if !v.isNull { fields.append(("NSConstantValue", constant(v))) }
                    return fields + kept
                }
            case .variable(let name):
                return archive.object(nil, "NSVariableExpression") { [("NSVariable", archive.string(name)), ("NSExpressionType", .int(2))] + kept }
            case .keyPath(let base, let path):
                // `valueForKey:` for one key of SELF, else `valueForKeyPath:`; type 3 reads from SELF, 4 from an operand.
                let selector = base == nil && !path.contains(".") ? "valueForKey:" : "valueForKeyPath:"
                return archive.object(nil, "NSKeyPathExpression") {
                    let name = archive.string(selector)
                    let operand = expression(base ?? .evaluatedObject)
                    let args = archive.array("NSMutableArray") {
                        [archive.object(nil, "NSKeyPathSpecifierExpression") { [("NSKeyPath", archive.string(path)), ("NSExpressionType", .int(10))] }]
                    }
                    return [("NSSelectorName", name), ("NSOperand", operand), ("NSArguments", args),
                            ("NSExpressionType", .int(base == nil ? 3 : 4))] + kept
                }
            case .function(let selector, let args): return function(selector, operand: nil, args, kept)
            case .method(let receiver, let selector, let args): return function(selector, operand: receiver, args, kept)
            case .cast(let v, let type): return function("castObject:toType:", operand: nil, [v, .constant(.scalar(.string(type)))], kept)
            case .index(let base, let kind):
                return archive.object(nil, "NSFunctionExpression") {
                    let name = archive.string("objectFrom:withIndex:")
                    let operand = utilities()
                    let list = archive.array { [expression(base), index(kind)] }
                    return [("NSSelectorName", name), ("NSOperand", operand), ("NSArguments", list), ("NSExpressionType", .int(4))] + kept
                }
            case .aggregate(let items):
                return archive.object(nil, "NSAggregateExpression") {
                    [("NSCollection", archive.array { items.map { expression($0) } }), ("NSExpressionType", .int(14))] + kept
                }
            case .subquery(let collection, let variable, let p):
                return archive.object(nil, "NSSubqueryExpression") {
                    [("NSCollection", expression(collection)), ("NSVariable", archive.string(variable)), ("NSSubpredicate", predicate(p)),
                     ("NSExpressionType", .int(13))] + kept
                }
            case .conditional(let p, let a, let b):
                return archive.object(nil, "NSTernaryExpression") {
                    [("NSPredicate", predicate(p)), ("NSTrueExpression", expression(a)), ("NSFalseExpression", expression(b)),
                     ("NSExpressionType", .int(20))] + kept
                }
            }
        }

        /// A function: built-in ones are methods of `_NSPredicateUtilities`, named by an
        /// operand that is that class; a FUNCTION() call's operand is its receiver.
        private func function(_ selector: String, operand: ObjectExpression?, _ args: [ObjectExpression], _ kept: [(String, Object)]) -> Object {
            archive.object(nil, "NSFunctionExpression") {
                let name = archive.string(selector)
                let target = operand.map { expression($0) } ?? utilities()
                return [("NSSelectorName", name), ("NSOperand", target), ("NSArguments", archive.array { args.map { expression($0) } }),
                        ("NSExpressionType", .int(4))] + kept
            }
        }

        /// An index: an expression, or the symbol FIRST, LAST or SIZE.
        private func index(_ kind: ObjectExpression.IndexKind) -> Object {
            let symbol: String
            switch kind {
            case .at(let i): return expression(i)
            case .first: symbol = "FIRST"
            case .last: symbol = "LAST"
            case .size: symbol = "SIZE"
            }
            return archive.object(nil, "NSSymbolicExpression") { [("NSToken", archive.string(symbol)), ("NSExpressionType", .int(11))] }
        }

        private func utilities() -> Object {
            archive.object(nil, "NSConstantValueExpression") {
                [("NSExpressionType", .int(0)), ("NSConstantValueClassName", archive.string("_NSPredicateUtilities"))]
            }
        }

        private func constant(_ v: PredicateValue) -> Object {
            switch v {
            case .scalar(let s): return ArchivedValues.write(s, archive)
            case .collection(let items): return archive.array { items.map(constant) }
            case .dictionary(let d):
                return archive.dictionary("NSDictionary", keys: d.keys.sorted()) { constant(d[$0]!) }
            case .object(let o): return archive.string(String(describing: o))
            }
        }
    }

    // MARK: Reading

    /// The canonical text of an archived predicate or expression; nil when it is not one,
    /// or is of a kind this reader does not know.
    static func format(_ archive: KeyedArchive, _ ref: Object?) -> String? {
        guard let fields = archive.resolve(ref)?.dict else { return nil }
        if let kept = archive.string(fields[formatKey]) { return kept }
        let reader = Reader(archive: archive)
        if archive.className(ref)?.hasSuffix("Predicate") == true {
            return reader.predicate(ref, depth: 0).map(PredicateFormatter.format)
        }
        return reader.expression(ref, depth: 0).map(PredicateFormatter.format)
    }

    /// An archived predicate, or nil when it is not one this reader knows.
    static func predicate(_ archive: KeyedArchive, _ ref: Object?) -> ObjectPredicate? {
        Reader(archive: archive).predicate(ref, depth: 0)
    }

    private final class Reader {
        let archive: KeyedArchive
        /// Objects left to visit: objects may be shared, so a small archive could name an
        /// exponentially large tree.
        var budget = 100_000

        init(archive: KeyedArchive) { self.archive = archive }

        /// Whether another object may be visited at `depth`.
        private func visit(_ depth: Int) -> Bool {
            budget -= 1
            return depth < 64 && budget >= 0
        }

        func predicate(_ ref: Object?, depth: Int) -> ObjectPredicate? {
            guard visit(depth), let o = archive.resolve(ref)?.dict else { return nil }
            switch archive.className(ref) ?? "" {
            case "NSTruePredicate": return .truePredicate
            case "NSFalsePredicate": return .falsePredicate
            case "NSCompoundPredicate":
                var subs: [ObjectPredicate] = []
                for s in archive.array(o["NSSubpredicates"]) {
                    guard let p = predicate(s, depth: depth + 1) else { return nil }
                    subs.append(p)
                }
                switch o["NSCompoundPredicateType"]?.int ?? 1 {
                case 0: return subs.count == 1 ? .not(subs[0]) : nil
                case 2: return .or(subs)
                default: return .and(subs)
                }
            case "NSComparisonPredicate":
                guard let op = archive.resolve(o["NSPredicateOperator"])?.dict,
                    let left = expression(o["NSLeftExpression"], depth: depth + 1),
                    let right = expression(o["NSRightExpression"], depth: depth + 1),
                    var kind = PredicateArchive.operatorTypes.first(where: { $0.value == op["NSOperatorType"]?.int ?? 4 })?.key
                else { return nil }
                if kind == .equal, op["NSNegate"]?.bool == true { kind = .notEqual }
                let options = StringCompareOptions(rawValue: Int(op["NSOptions"]?.int ?? op["NSFlags"]?.int ?? 0) & 7)
                let quantifier: ComparisonQuantifier = [1: .all, 2: .any][op["NSModifier"]?.int ?? 0] ?? .direct
                return .comparison(.init(left, kind, right, quantifier: quantifier, options: options))
            default: return nil
            }
        }

        func expression(_ ref: Object?, depth: Int) -> ObjectExpression? {
            guard visit(depth), let o = archive.resolve(ref)?.dict else { return nil }
            func sub(_ key: String) -> ObjectExpression? { expression(o[key], depth: depth + 1) }
            func list(_ key: String) -> [ObjectExpression]? {
                var out: [ObjectExpression] = []
                for item in archive.array(o[key]) {
                    guard let e = expression(item, depth: depth + 1) else { return nil }
                    out.append(e)
                }
                return out
            }
            switch o["NSExpressionType"]?.int {
            case 0?:
                guard o["NSConstantValueClassName"] == nil else { return nil }  // `_NSPredicateUtilities`: an operand only
                return .constant(constant(o["NSConstantValue"], depth: depth + 1) ?? .null)
            case 1?: return .evaluatedObject
            case 2?: return archive.string(o["NSVariable"]).map { .variable($0) }
            case 10?: return archive.string(o["NSKeyPath"]).map { .keyPath(base: nil, path: $0) }
            case 3?, 4?:
                let selector = archive.string(o["NSSelectorName"]) ?? ""
                let builtin = archive.resolve(o["NSOperand"])?.dict?["NSConstantValueClassName"] != nil
                let raw = archive.array(o["NSArguments"])
                if builtin, selector == "objectFrom:withIndex:", raw.count == 2, let base = expression(raw[0], depth: depth + 1) {
                    if let kind = symbol(raw[1]) { return .index(base, kind) }
                    return expression(raw[1], depth: depth + 1).map { .index(base, .at($0)) }
                }
                guard let args = list("NSArguments") else { return nil }
                if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                    guard args.count == 1, case .keyPath(.none, let path) = args[0], let operand = sub("NSOperand") else { return nil }
                    // Type 3 reads from SELF implicitly; a written `SELF.key` is type 4.
                    if o["NSExpressionType"]?.int == 3, case .evaluatedObject = operand { return .keyPath(base: nil, path: path) }
                    return .keyPath(base: operand, path: path)
                }
                if !builtin {
                    guard let receiver = sub("NSOperand") else { return nil }
                    return .method(receiver: receiver, selector: selector, arguments: args)
                }
                if selector == "castObject:toType:", args.count == 2, case .constant(.scalar(.string(let type))) = args[1] {
                    return .cast(args[0], type: type)
                }
                return .function(selector, args)
            case 13?:
                guard let collection = sub("NSCollection"), let variable = archive.string(o["NSVariable"]),
                    let p = predicate(o["NSSubpredicate"], depth: depth + 1)
                else { return nil }
                return .subquery(collection: collection, variable: variable, predicate: p)
            case 14?: return list("NSCollection").map { .aggregate($0) }
            case 20?:
                guard let p = predicate(o["NSPredicate"], depth: depth + 1), let a = sub("NSTrueExpression"), let b = sub("NSFalseExpression")
                else { return nil }
                return .conditional(p, a, b)
            default: return nil
            }
        }

        /// The FIRST, LAST or SIZE symbol an index may be.
        private func symbol(_ ref: Object) -> ObjectExpression.IndexKind? {
            guard let o = archive.resolve(ref)?.dict, o["NSExpressionType"]?.int == 11 else { return nil }
            return ["FIRST": .first, "LAST": .last, "SIZE": .size][archive.string(o["NSToken"]) ?? ""]
        }

        func constant(_ ref: Object?, depth: Int) -> PredicateValue? {
            guard visit(depth), archive.resolve(ref) != nil else { return nil }
            if let v = ArchivedValues.read(archive, ref) { return .scalar(v) }
            switch archive.className(ref) {
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                return .collection(archive.array(ref).map { constant($0, depth: depth + 1) ?? .null })
            case "NSDictionary", "NSMutableDictionary":
                var d: [String: PredicateValue] = [:]
                for (k, v) in archive.dictionary(ref) { d[k] = constant(v, depth: depth + 1) ?? .null }
                return .dictionary(d)
            default: return nil
            }
        }
    }
}
