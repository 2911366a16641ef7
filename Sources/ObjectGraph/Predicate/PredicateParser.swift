import FoundationEssentials

/// A recursive-descent parser for the format-string language (see
/// `docs/predicates.md`): predicates at the lowest precedence, then expressions.
/// Arguments for `%@`, `%K` and the printf-style specifiers are consumed in order.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var index = 0
    private let arguments: [PredicateValue]
    private var argumentIndex = 0

    /// For each "(" token, the index of its ")" (absent when unbalanced).
    private let closing: [Int: Int]
    /// Nesting depth of the rule being parsed, bounded so deep input cannot exhaust the stack.
    private var depth = 0
    static let maximumDepth = 256

    init(_ format: String, arguments: [PredicateValue]) throws(ObjectGraphError) {
        tokens = try PredicateLexer.tokenize(format)
        self.arguments = arguments
        var open: [Int] = []
        var closing: [Int: Int] = [:]
        for (i, t) in tokens.enumerated() {
            if t.kind == .punctuation("(") { open.append(i) }
            if t.kind == .punctuation(")"), let o = open.popLast() { closing[o] = i }
        }
        self.closing = closing
    }

    private mutating func enter() throws(ObjectGraphError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("the predicate is nested more than \(Self.maximumDepth) levels deep") }
    }

    static func parsePredicate(_ format: String, arguments: [PredicateValue]) throws(ObjectGraphError) -> ObjectPredicate {
        var parser = try PredicateParser(format, arguments: arguments)
        let p = try parser.predicate()
        try parser.expectEnd()
        return p
    }

    static func parseExpression(_ format: String, arguments: [PredicateValue]) throws(ObjectGraphError) -> ObjectExpression {
        var parser = try PredicateParser(format, arguments: arguments)
        let e = try parser.expression()
        try parser.expectEnd()
        return e
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[index] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isPunctuation(_ p: String) -> Bool { current.kind == .punctuation(p) }

    private func isKeyword(_ words: String...) -> Bool {
        guard let k = current.keyword else { return false }
        return words.contains(k)
    }

    private mutating func accept(_ p: String) -> Bool {
        if isPunctuation(p) { advance(); return true }
        return false
    }

    private func error(_ message: String) -> ObjectGraphError {
        let t = current
        return .predicateSyntax(message, position: t.position, token: t.kind == .end ? "end of string" : t.text)
    }

    private mutating func expect(_ p: String) throws(ObjectGraphError) {
        guard accept(p) else { throw error("expected '\(p)'") }
    }

    private mutating func expectEnd() throws(ObjectGraphError) {
        guard current.kind == .end else { throw error("unexpected text after the end of the predicate") }
    }

    // MARK: Predicates

    /// An AND or OR chain becomes one compound of all its terms, so a long machine-made
    /// chain (`id == 1 OR id == 2 OR …`) stays flat: it prints without nested brackets and
    /// evaluates without deep recursion.
    mutating func predicate() throws(ObjectGraphError) -> ObjectPredicate {
        var parts = [try andPredicate()]
        while isKeyword("OR") || isPunctuation("||") {
            advance()
            parts.append(try andPredicate())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func andPredicate() throws(ObjectGraphError) -> ObjectPredicate {
        var parts = [try notPredicate()]
        while isKeyword("AND") || isPunctuation("&&") {
            advance()
            parts.append(try notPredicate())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func notPredicate() throws(ObjectGraphError) -> ObjectPredicate {
        if isKeyword("NOT") || isPunctuation("!") {
            try enter()
            defer { depth -= 1 }
            advance()
            return .not(try notPredicate())
        }
        return try primaryPredicate()
    }

    private mutating func primaryPredicate() throws(ObjectGraphError) -> ObjectPredicate {
        if isKeyword("TRUEPREDICATE") { advance(); return .truePredicate }
        if isKeyword("FALSEPREDICATE") { advance(); return .falsePredicate }
        if isPunctuation("("), let close = closing[index], !startsOperatorOrOperand(at: close + 1) {
            // `(` opens a predicate unless an operator follows its `)`, as in `(a + b) > 3`.
            // Brackets right after NOT are how NOT prints its operand: counted once, with the NOT.
            let afterNot = index > 0 && (tokens[index - 1].keyword == "NOT" || tokens[index - 1].kind == .punctuation("!"))
            if !afterNot { try enter() }
            defer { if !afterNot { depth -= 1 } }
            advance()
            let p = try predicate()
            try expect(")")
            return p
        }
        var quantifier = ComparisonQuantifier.direct
        var negate = false
        if isKeyword("ANY", "SOME") {
            quantifier = .any
            advance()
        } else if isKeyword("ALL") {
            quantifier = .all
            advance()
        } else if isKeyword("NONE") {
            quantifier = .any
            negate = true
            advance()
        }
        let left = try expression()
        let op = try comparisonOperator()
        let options = try comparisonOptions()
        if op == .between && !options.isEmpty { throw error("BETWEEN takes no comparison options") }
        let right = try expression()
        let c = ObjectPredicate.compare(left, op, right, quantifier: quantifier, options: options)
        return negate ? .not(c) : c
    }

    /// Whether the token at `i` continues an expression (so brackets before it held one).
    private func startsOperatorOrOperand(at i: Int) -> Bool {
        guard i < tokens.count else { return false }
        let t = tokens[i]
        if case .punctuation(let p) = t.kind {
            return ["=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", ".", "[",
                    "&", "|", "^", "<<", ">>"].contains(p)
        }
        guard let k = t.keyword else { return false }
        return ["BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "UTI-CONFORMS-TO", "UTI-EQUALS"].contains(k)
    }

    private mutating func comparisonOperator() throws(ObjectGraphError) -> ComparisonOperator {
        if case .punctuation(let p) = current.kind {
            let map: [String: ComparisonOperator] = [
                "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual,
                "=<": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "=>": .greaterThanOrEqual,
            ]
            if let op = map[p] { advance(); return op }
        }
        if let k = current.keyword {
            if let op = ComparisonOperator(rawValue: k), op.rawValue.first!.isLetter { advance(); return op }
            if k == "UTI-CONFORMS-TO" || k == "UTI-EQUALS" {
                throw error("\(k) needs Apple's uniform type identifiers, which do not exist on this platform")
            }
        }
        throw error("expected a comparison operator")
    }

    private mutating func comparisonOptions() throws(ObjectGraphError) -> StringCompareOptions {
        guard isPunctuation("[") else { return [] }
        let saved = index
        advance()
        guard case .identifier(let letters) = current.kind else { index = saved; return [] }
        var options: StringCompareOptions = []
        for l in letters.lowercased() {
            switch l {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": break  // locale-sensitive: comparisons here are not locale-dependent
            default: throw error("unknown comparison option '\(l)' (use c, d, n or l)")
            }
        }
        advance()
        try expect("]")
        return options
    }

    // MARK: Expressions

    mutating func expression() throws(ObjectGraphError) -> ObjectExpression {
        var e = try additive()
        let bitwise = ["&": "bitwiseAnd:with:", "|": "bitwiseOr:with:", "^": "bitwiseXor:with:", "<<": "leftshift:by:", ">>": "rightshift:by:"]
        while case .punctuation(let p) = current.kind, let name = bitwise[p] {
            advance()
            e = .function(name, [e, try additive()])
        }
        return e
    }

    private mutating func additive() throws(ObjectGraphError) -> ObjectExpression {
        var e = try multiplicative()
        while isPunctuation("+") || isPunctuation("-") {
            let name = isPunctuation("+") ? "add:to:" : "from:subtract:"
            advance()
            e = .function(name, [e, try multiplicative()])
        }
        return e
    }

    private mutating func multiplicative() throws(ObjectGraphError) -> ObjectExpression {
        var e = try power()
        while isPunctuation("*") || isPunctuation("/") {
            let name = isPunctuation("*") ? "multiply:by:" : "divide:by:"
            advance()
            e = .function(name, [e, try power()])
        }
        return e
    }

    private mutating func power() throws(ObjectGraphError) -> ObjectExpression {
        var e = try unary()
        while accept("**") { e = .function("raise:toPower:", [e, try unary()]) }
        return e
    }

    private mutating func unary() throws(ObjectGraphError) -> ObjectExpression {
        try enter()
        defer { depth -= 1 }
        if accept("-") {
            let operand = try unary()
            switch operand {
            case .constant(.scalar(.integer(let v))) where v != Int64.min: return .constant(.scalar(.integer(-v)))
            case .constant(.scalar(.double(let v))): return .constant(.scalar(.double(-v)))
            default: return .function("from:subtract:", [.constant(.scalar(.integer(0))), operand])
            }
        }
        if accept("~") { return .function("onesComplement:", [try unary()]) }
        if accept("+") { return try unary() }
        return try postfix(try primary())
    }

    private mutating func postfix(_ start: ObjectExpression) throws(ObjectGraphError) -> ObjectExpression {
        var e = start
        while true {
            if accept(".") {
                let component: String
                switch current.kind {
                case .identifier(let s), .escapedIdentifier(let s): component = s
                case .collectionOperator(let s): component = "@" + s
                default: throw error("expected a key after '.'")
                }
                advance()
                e = Self.append(component, to: e)
            } else if accept("[") {
                let kind: ObjectExpression.IndexKind
                if isKeyword("FIRST") { advance(); kind = .first }
                else if isKeyword("LAST") { advance(); kind = .last }
                else if isKeyword("SIZE") { advance(); kind = .size }
                else {
                    if case .identifier(let word) = current.kind, PredicateKeywords.optionWords.contains(word.lowercased()),
                        tokens[index + 1].kind == .punctuation("]")
                    {
                        throw error("comparison options such as [\(word)] go after the operator")
                    }
                    kind = .at(try expression())
                }
                try expect("]")
                e = .index(e, kind)
            } else {
                return e
            }
        }
    }

    static func append(_ component: String, to e: ObjectExpression) -> ObjectExpression {
        if case .keyPath(let base, let path) = e { return .keyPath(base: base, path: path + "." + component) }
        if case .evaluatedObject = e { return .keyPath(base: nil, path: component) }
        return .keyPath(base: e, path: component)
    }

    private mutating func primary() throws(ObjectGraphError) -> ObjectExpression {
        let t = current
        switch t.kind {
        case .integer(let v): advance(); return .constant(.scalar(.integer(v)))
        case .double(let v): advance(); return .constant(.scalar(.double(v)))
        case .string(let s): advance(); return .constant(.scalar(.string(s)))
        case .variable(let name): advance(); return .variable(name)
        case .collectionOperator(let op): advance(); return .keyPath(base: nil, path: "@" + op)
        case .escapedIdentifier(let name): advance(); return .keyPath(base: nil, path: name)
        case .formatSpecifier(let spec): advance(); return try formatArgument(spec, at: t)
        case .punctuation("{"):
            advance()
            var items: [ObjectExpression] = []
            if !accept("}") {
                repeat { items.append(try expression()) } while accept(",")
                try expect("}")
            }
            return .aggregate(items)
        case .punctuation("("):
            advance()
            let e = try expression()
            try expect(")")
            return e
        case .identifier(let name):
            return try identifier(name)
        default:
            throw error("expected an expression")
        }
    }

    private mutating func identifier(_ name: String) throws(ObjectGraphError) -> ObjectExpression {
        switch name.uppercased() {
        case "TRUE", "YES": advance(); return .constant(.scalar(.boolean(true)))
        case "FALSE", "NO": advance(); return .constant(.scalar(.boolean(false)))
        case "NULL", "NIL": advance(); return .constant(.null)
        case "SELF": advance(); return .evaluatedObject
        case "SUBQUERY": advance(); return try subquery()
        case "FUNCTION": advance(); return try method()
        case "CAST": advance(); return try cast()
        case "TERNARY": advance(); return try ternary()
        case "FETCH": advance(); return try fetchExpression()
        case let k where PredicateKeywords.reserved.contains(k):
            throw error("expected an expression, found the keyword \(k) (write #\(name) for a key of that name)")
        default: break
        }
        advance()
        if isPunctuation("(") {
            advance()
            let args = try argumentList()
            return try builtin(name, args)
        }
        if isPunctuation(":") {
            // Foundation's printed form of a function: `sum:(…)`, `add:to:(a, b)`.
            var selector = name
            while accept(":") {
                selector += ":"
                if case .identifier(let part) = current.kind { advance(); selector += part; continue }
                break
            }
            try expect("(")
            let args = try argumentList()
            return try builtin(selector, args)
        }
        return .keyPath(base: nil, path: name)
    }

    /// Arguments up to and including the closing bracket.
    private mutating func argumentList() throws(ObjectGraphError) -> [ObjectExpression] {
        var args: [ObjectExpression] = []
        if !accept(")") {
            repeat { args.append(try expression()) } while accept(",")
            try expect(")")
        }
        return args
    }

    private func builtin(_ name: String, _ args: [ObjectExpression]) throws(ObjectGraphError) -> ObjectExpression {
        var selector = name
        if PredicateFunctions.arity[selector] == nil, PredicateFunctions.arity[name + ":"] != nil { selector = name + ":" }
        guard let arity = PredicateFunctions.arity[selector] else {
            throw error("unknown function '\(name)'; the functions are \(PredicateFunctions.arity.keys.sorted().joined(separator: ", "))")
        }
        if arity >= 0 && args.count != arity {
            throw error("the function \(selector) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(args.count)")
        }
        if arity < 0 && args.isEmpty { throw error("the function \(selector) needs at least one argument") }
        return .function(selector, args)
    }

    private mutating func subquery() throws(ObjectGraphError) -> ObjectExpression {
        try expect("(")
        let collection = try expression()
        try expect(",")
        guard case .variable(let v) = current.kind else { throw error("SUBQUERY needs a $variable as its second argument") }
        advance()
        try expect(",")
        let p = try predicate()
        try expect(")")
        return .subquery(collection: collection, variable: v, predicate: p)
    }

    /// `FETCH(request, context, countOnly)`: a fetch request expression, as mapping models'
    /// source expressions write it. It is held as the function `FETCH` and only a migration
    /// evaluates it.
    private mutating func fetchExpression() throws(ObjectGraphError) -> ObjectExpression {
        try expect("(")
        let args = try argumentList()
        guard args.count == 3 else { throw error("FETCH takes a request, a context and a count-only flag, not \(args.count) argument\(args.count == 1 ? "" : "s")") }
        return .function("FETCH", args)
    }

    private mutating func method() throws(ObjectGraphError) -> ObjectExpression {
        try expect("(")
        let receiver = try expression()
        try expect(",")
        let selectorToken = current
        let selector: String
        switch current.kind {
        case .string(let s): selector = s; advance()
        case .formatSpecifier:
            advance()
            guard case .constant(.scalar(.string(let s))) = try formatArgument("@", at: selectorToken) else {
                throw error("FUNCTION needs its selector as a string")
            }
            selector = s
        default: throw error("FUNCTION needs its selector as a string")
        }
        var args: [ObjectExpression] = []
        while accept(",") { args.append(try expression()) }
        try expect(")")
        // Any selector parses and prints, as Foundation's do, so models and mapping models
        // that carry one load; only the allow-list is callable at evaluation.
        if let arity = PredicateFunctions.methods[selector], args.count != arity {
            throw error("'\(selector)' takes \(arity) argument\(arity == 1 ? "" : "s"), not \(args.count)")
        }
        if selector.isEmpty { throw .predicateSyntax("FUNCTION needs a selector", position: selectorToken.position, token: selectorToken.text) }
        return .method(receiver: receiver, selector: selector, arguments: args)
    }

    private mutating func cast() throws(ObjectGraphError) -> ObjectExpression {
        try expect("(")
        let value = try expression()
        try expect(",")
        guard case .string(let type) = current.kind else { throw error("CAST needs a type name string: \"NSDate\", \"NSNumber\" or \"NSString\"") }
        guard PredicateFunctions.castTypes.contains(type) else {
            throw error("CAST to '\(type)' is not supported; use \"NSDate\", \"NSNumber\" or \"NSString\"")
        }
        advance()
        try expect(")")
        return .cast(value, type: type)
    }

    private mutating func ternary() throws(ObjectGraphError) -> ObjectExpression {
        try expect("(")
        let condition = try predicate()
        try expect(",")
        let a = try expression()
        try expect(",")
        let b = try expression()
        try expect(")")
        return .conditional(condition, a, b)
    }

    // MARK: Format arguments

    private mutating func formatArgument(_ spec: String, at token: PredicateToken) throws(ObjectGraphError) -> ObjectExpression {
        guard argumentIndex < arguments.count else {
            throw .predicateArgument("the format specifier '\(token.text)' at position \(token.position) has no argument (\(arguments.count) given)")
        }
        let arg = arguments[argumentIndex]
        argumentIndex += 1
        func wrong(_ expected: String) -> ObjectGraphError {
            .predicateArgument("the format specifier '\(token.text)' at position \(token.position) needs \(expected), got \(arg.kindName)")
        }
        let conversion = spec.last!
        switch conversion {
        case "@":
            return .constant(arg)
        case "K":
            guard case .scalar(.string(let key)) = arg, !key.isEmpty else { throw wrong("a key path string") }
            return .keyPath(base: nil, path: key)
        case "d", "i", "o", "u", "x", "X", "c", "C":
            switch arg {
            case .scalar(.integer): return .constant(arg)
            case .scalar(.double(let d)) where d.rounded(.towardZero) == d && abs(d) < 9.2e18:
                return .constant(.scalar(.integer(Int64(d))))
            default: throw wrong("an integer")
            }
        case "f", "e", "E", "g", "G":
            switch arg {
            case .scalar(.double): return .constant(arg)
            case .scalar(.integer(let i)): return .constant(.scalar(.double(Double(i))))
            default: throw wrong("a number")
            }
        case "s", "S":
            guard case .scalar(.string) = arg else { throw wrong("a string") }
            return .constant(arg)
        default:
            throw wrong("a supported specifier")
        }
    }
}

/// The reserved words of the language; a key spelled like one needs a leading `#`.
enum PredicateKeywords {
    static let reserved: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
        "UTI-CONFORMS-TO", "UTI-EQUALS", "FUNCTION", "TERNARY",
    ]

    /// Words that, alone in brackets after a key path (`name[c]`), read as comparison options
    /// in the wrong place, not as an index: a key spelled so is written `#`-escaped there.
    static let optionWords: Set<String> = ["c", "d", "cd", "dc", "n"]
}
