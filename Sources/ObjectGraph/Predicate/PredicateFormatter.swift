import FoundationEssentials

/// The canonical text of predicates and expressions (Foundation's `predicateFormat`),
/// which parses back to an equal predicate: `==` for `=`, keywords in capitals, strings in
/// double quotes, dates as `CAST(<seconds since 2001>, "NSDate")`, and brackets only where
/// precedence needs them.
enum PredicateFormatter {
    static func format(_ p: ObjectPredicate) -> String {
        switch p {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .and(let parts): return parts.map { operand($0) }.joined(separator: " AND ")
        case .or(let parts): return parts.map { operand($0) }.joined(separator: " OR ")
        case .not(let q): return "NOT " + operand(q)
        case .comparison(let c):
            var s = c.quantifier == .direct ? "" : c.quantifier.rawValue + " "
            s += format(c.left) + " " + c.op.rawValue + options(c.options) + " " + format(c.right)
            return s
        }
    }

    /// A predicate inside AND, OR or NOT: compound ones (NOT included) get brackets.
    private static func operand(_ p: ObjectPredicate) -> String {
        switch p {
        case .and, .or, .not: return "(" + format(p) + ")"
        default: return format(p)
        }
    }

    private static func options(_ o: StringCompareOptions) -> String {
        var letters = ""
        if o.contains(.caseInsensitive) { letters += "c" }
        if o.contains(.diacriticInsensitive) { letters += "d" }
        if o.contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }

    static func format(_ e: ObjectExpression) -> String {
        switch e {
        case .evaluatedObject: return "SELF"
        case .constant(let v): return format(v)
        case .variable(let name): return "$" + name
        case .keyPath(let base, let path):
            let keys = KeyPath.components(path).map { key($0) }.joined(separator: ".")
            guard let base else { return keys }
            return postfixOperand(base) + "." + keys
        case .index(let base, let kind):
            let inside: String
            switch kind {
            case .first: inside = "FIRST"
            case .last: inside = "LAST"
            case .size: inside = "SIZE"
            case .at(.keyPath(nil, let k)) where PredicateKeywords.optionWords.contains(k.lowercased()): inside = "#" + k
            case .at(let i): inside = format(i)
            }
            return postfixOperand(base) + "[" + inside + "]"
        case .aggregate(let items): return "{" + items.map { format($0) }.joined(separator: ", ") + "}"
        case .function(let selector, let args):
            if let symbol = PredicateFunctions.infix[selector], args.count == 2 {
                // An operand that is itself an operator expression always gets brackets.
                return infixOperand(args[0]) + " " + symbol + " " + infixOperand(args[1])
            }
            if selector == "onesComplement:", args.count == 1 {
                // Prefix operators chain without brackets: "~~x", as it was written.
                if case .function("onesComplement:", let inner) = args[0], inner.count == 1 { return "~" + format(args[0]) }
                return "~" + infixOperand(args[0])
            }
            if selector == "now" || selector == "random" { return selector + "()" }
            return selector + "(" + args.map { format($0) }.joined(separator: ", ") + ")"
        case .method(let receiver, let selector, let args):
            // Foundation prints a space before the comma that follows the selector.
            let head = "FUNCTION(" + format(receiver) + ", " + quote(selector)
            return head + (args.isEmpty ? "" : " , " + args.map { format($0) }.joined(separator: ", ")) + ")"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))"
        case .cast(let v, let type): return "CAST(\(format(v)), \(quote(type)))"
        case .conditional(let p, let a, let b): return "TERNARY(\(format(p)), \(format(a)), \(format(b)))"
        }
    }

    private static func isOperator(_ e: ObjectExpression) -> Bool {
        if case .function(let selector, let args) = e {
            return (PredicateFunctions.infix[selector] != nil && args.count == 2) || selector == "onesComplement:"
        }
        return false
    }

    private static func infixOperand(_ e: ObjectExpression) -> String {
        isOperator(e) ? "(" + format(e) + ")" : format(e)
    }

    /// The base of `.key` or `[i]`: an operator expression or a number gets brackets
    /// (`(2).x`, since `2.x` would read as a number).
    private static func postfixOperand(_ e: ObjectExpression) -> String {
        if case .constant(.scalar) = e { return "(" + format(e) + ")" }
        return infixOperand(e)
    }

    /// A key, `#`-escaped when it is spelled like a keyword or does not start like a name.
    private static func key(_ k: String) -> String {
        if KeyPath.isCollectionOperator(k) { return k }
        let startsLikeName = k.unicodeScalars.first.map { $0 == "_" || $0.properties.isAlphabetic } ?? false
        return !startsLikeName || PredicateKeywords.reserved.contains(k.uppercased()) ? "#" + k : k
    }

    static func format(_ v: PredicateValue) -> String {
        switch v {
        case .scalar(let s): return format(s)
        case .collection(let items): return "{" + items.map { format($0) }.joined(separator: ", ") + "}"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { format(d[$0]!) }.joined(separator: ", ") + "}"
        case .object(let o): return quote(String(describing: o))
        }
    }

    static func format(_ v: AttributeValue) -> String {
        switch v {
        case .null: return "nil"
        case .integer(let i): return String(i)
        case .double(let d): return number(d)
        case .boolean(let b): return b ? "1" : "0"
        case .string(let s): return quote(s)
        case .date(let d): return "CAST(" + fixed6(d.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        case .decimal(let d): return d.description
        case .data(let d): return "<" + d.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() + ">"
        case .uuid(let u): return quote(u.uuidString)
        case .uri(let u): return quote(u)
        case .transformable(let t): return quote(t.description)
        }
    }

    /// A double as NSNumber prints it: integral values without a fraction.
    static func number(_ d: Double) -> String {
        if d.isFinite, d.rounded() == d, Swift.abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// Six decimals, as `%f` prints them.
    private static func fixed6(_ d: Double) -> String {
        let negative = d < 0
        let micro = (Swift.abs(d) * 1_000_000).rounded()
        guard micro < 9e18 else { return String(d) }
        let m = Int64(micro)
        let fraction = String(m % 1_000_000)
        return (negative ? "-" : "") + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// Double quotes; only `"` and `\` are escaped, everything else is written as it is.
    static func quote(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }
}
