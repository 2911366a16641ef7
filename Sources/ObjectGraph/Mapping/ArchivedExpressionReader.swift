import FoundationEssentials

/// Reads an archived NSExpression (what a compiled `.cdm` and Xcode's `.xcmappingmodel`
/// hold) into an expression of the predicate language; a mapping model keeps its
/// canonical format text. Covers what mapping models use: constants, `SELF`, variables,
/// key paths (`$source.name`), `FUNCTION(receiver, "selector", …)`, the built-in functions
/// and `FETCH(…)`. Anything else is refused by class name.
struct ArchivedExpressionReader {
    typealias Object = KeyedArchive.Object

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let archive: KeyedArchive

    /// The format text of the expression at the root of an archive of its own.
    static func format(archiveBytes bytes: [UInt8]) throws(Failure) -> String {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(bytes) } catch { throw Failure(description: "the archived expression is unreadable: \(error)") }
        return try ArchivedExpressionReader(archive: archive).expression(.uid(archive.root)).expressionFormat
    }

    /// The format text of an expression inside a larger archive (a `.cdm`).
    static func format(_ archive: KeyedArchive, _ ref: Object?) throws(Failure) -> String {
        try ArchivedExpressionReader(archive: archive).expression(ref).expressionFormat
    }

    private func field(_ o: Object?, _ key: String) -> Object? { archive.resolve(o)?.dict?[key] }

    func expression(_ ref: Object?, depth: Int = 0) throws(Failure) -> ObjectExpression {
        guard depth < MappingLimits.maximumExpressionDepth else {
            throw Failure(description: "the archived expression nests more than \(MappingLimits.maximumExpressionDepth) levels")
        }
        guard archive.resolve(ref)?.dict != nil else { throw Failure(description: "an archived expression is missing or not an object") }
        let cls = archive.className(ref) ?? "?"
        let type = field(ref, "NSExpressionType")?.int
        func sub(_ key: String) throws(Failure) -> ObjectExpression { try expression(field(ref, key), depth: depth + 1) }
        switch (cls, type) {
        case ("NSConstantValueExpression", _), (_, 0?):
            return .constant(try constant(field(ref, "NSConstantValue"), depth: depth + 1))
        case ("NSSelfExpression", _), (_, 1?):
            return .evaluatedObject
        case ("NSVariableExpression", _), (_, 2?):
            guard let name = archive.literalString(field(ref, "NSVariable")), !name.isEmpty else { throw Failure(description: "an archived variable expression has no name") }
            return .variable(name)
        case ("NSKeyPathSpecifierExpression", _), (_, 10?):
            guard let path = archive.literalString(field(ref, "NSKeyPath")), !path.isEmpty else { throw Failure(description: "an archived key path has no path") }
            return .keyPath(base: nil, path: path)
        case ("NSFetchRequestExpression", _), (_, 50?):
            let countOnly = field(ref, "NSCountOnlyFlag")?.bool ?? false
            return .function("FETCH", [try sub("NSFRExpression"), try sub("NSMOCExpression"), .constant(.scalar(.boolean(countOnly)))])
        case ("NSKeyPathExpression", _), ("NSFunctionExpression", _), (_, 3?), (_, 4?):
            return try function(ref, depth: depth)
        default:
            throw Failure(description: "unsupported archived expression of class \(cls)\(type.map { " (type \($0))" } ?? "")")
        }
    }

    /// A function expression: a key path read from its operand, a built-in function, or
    /// `FUNCTION(receiver, "selector", …)`.
    private func function(_ ref: Object?, depth: Int) throws(Failure) -> ObjectExpression {
        // An older form keeps a plain key path under NSKeyPath.
        if field(ref, "NSSelectorName") == nil, let path = archive.literalString(field(ref, "NSKeyPath")), !path.isEmpty {
            return .keyPath(base: nil, path: path)
        }
        guard let selector = archive.literalString(field(ref, "NSSelectorName")), !selector.isEmpty else {
            throw Failure(description: "an archived function expression has no selector")
        }
        var arguments: [ObjectExpression] = []
        for a in archive.array(field(ref, "NSArguments")) { arguments.append(try expression(a, depth: depth + 1)) }
        let operandRef = field(ref, "NSOperand")
        let operand = archive.resolve(operandRef) == nil ? ObjectExpression.evaluatedObject : try expression(operandRef, depth: depth + 1)
        if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1 {
            let path: String
            switch arguments[0] {
            case .keyPath(nil, let p): path = p
            case .constant(.scalar(.string(let p))): path = p
            default: throw Failure(description: "an archived key path expression has no key")
            }
            // The same shapes the parser builds for `a.b`, `SELF.a` and `$v.a.b`.
            switch operand {
            case .evaluatedObject: return .keyPath(base: nil, path: path)
            case .keyPath(let base, let p): return .keyPath(base: base, path: p + "." + path)
            default: return .keyPath(base: operand, path: path)
            }
        }
        // Built-in functions are sent to a constant (Foundation's function holder).
        if case .constant = operand, let arity = PredicateFunctions.arity[selector], arity < 0 || arity == arguments.count {
            return .function(selector, arguments)
        }
        return .method(receiver: operand, selector: selector, arguments: arguments)
    }

    private func constant(_ ref: Object?, depth: Int) throws(Failure) -> PredicateValue {
        guard depth < MappingLimits.maximumExpressionDepth else { throw Failure(description: "an archived constant nests too deeply") }
        if case .uid(let u)? = ref, u > 0, u < archive.objects.count, case .string(let s) = archive.objects[u] { return .scalar(.string(s)) }
        guard let v = archive.resolve(ref) else { return .null }
        switch v {
        case .string(let s): return .scalar(.string(s))
        case .int(let i): return .scalar(.integer(i))
        case .real(let d): return .scalar(.double(d))
        case .bool(let b): return .scalar(.boolean(b))
        case .null: return .null
        default: break
        }
        switch archive.className(ref) {
        case "NSString", "NSMutableString":
            if let s = archive.string(ref) { return .scalar(.string(s)) }
        case "NSDate":
            if case .real(let t)? = field(ref, "NS.time") { return .scalar(.date(Date(timeIntervalSinceReferenceDate: t))) }
        case "NSNull":
            return .null
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            var items: [PredicateValue] = []
            for item in archive.array(ref) { items.append(try constant(item, depth: depth + 1)) }
            return .collection(items)
        default: break
        }
        throw Failure(description: "unsupported archived constant of class \(archive.className(ref) ?? "?")")
    }
}
