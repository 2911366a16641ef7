import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The functions a predicate may call: Foundation's built-in NSExpression functions and a
/// short allow-list of methods for `FUNCTION(…)`. Nothing else is callable.
enum PredicateFunctions {
    /// Built-in functions by selector, with their argument count (-1: one or more).
    static let arity: [String: Int] = [
        "sum:": -1, "count:": -1, "min:": -1, "max:": -1, "average:": -1, "median:": -1, "mode:": -1,
        "stddev:": -1, "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1, "ceiling:": 1,
        "abs:": 1, "trunc:": 1, "floor:": 1, "uppercase:": 1, "lowercase:": 1, "add:to:": 2,
        "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2, "bitwiseAnd:with:": 2,
        "bitwiseOr:with:": 2, "bitwiseXor:with:": 2, "leftshift:by:": 2, "rightshift:by:": 2,
        "onesComplement:": 1, "noindex:": 1, "now": 0, "random": 0, "randomn:": 1,
    ]

    /// Methods `FUNCTION(receiver, 'selector', …)` may call, with their argument count.
    static let methods: [String: Int] = [
        "uppercaseString": 0, "lowercaseString": 0, "capitalizedString": 0, "length": 0, "stringByAppendingString:": 1,
        "stringValue": 0, "integerValue": 0, "doubleValue": 0, "boolValue": 0, "count": 0,
    ]

    static let castTypes: Set<String> = ["NSDate", "NSNumber", "NSString"]

    /// The infix operators Foundation prints for the arithmetic and bitwise functions.
    static let infix: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
        "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|", "bitwiseXor:with:": "^", "leftshift:by:": "<<", "rightshift:by:": ">>",
    ]

    // MARK: Evaluation

    static func call(_ selector: String, _ args: [PredicateValue]) throws(ObjectGraphError) -> PredicateValue {
        switch selector {
        case "now": return .scalar(.date(Date()))
        case "random": return .scalar(.double(Double.random(in: 0..<1)))
        case "randomn:":
            let n = try integer(args[0], selector)
            guard n > 0 else { throw .predicateEvaluation("randomn: needs a positive bound, got \(n)") }
            return .scalar(.integer(Int64.random(in: 0..<n)))
        case "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:":
            if args.count == 1, args[0].elements == nil {
                throw .predicateEvaluation("\(selector) needs a collection, got a \(args[0].kindName)")
            }
            let values = list(args)
            if (selector == "min:" || selector == "max:"), values.allSatisfy(\.isNull) {
                throw .predicateEvaluation("\(selector) of an empty collection has no value")
            }
            return try statistic(selector, values)
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            return try arithmetic(selector, args[0], args[1])
        case "sqrt:", "log:", "ln:", "exp:", "ceiling:", "trunc:", "floor:":
            if args[0].isNull { return .null }
            let x = try double(args[0], selector)
            let functions: [String: (Double) -> Double] = [
                "sqrt:": { $0.squareRoot() }, "log:": { log10($0) }, "ln:": { log($0) }, "exp:": { exp($0) },
                "ceiling:": { $0.rounded(.up) }, "trunc:": { $0.rounded(.towardZero) }, "floor:": { $0.rounded(.down) },
            ]
            return .scalar(.double(functions[selector]!(x)))
        case "abs:":
            switch args[0] {
            case .scalar(.integer(let i)) where i != .min: return .scalar(.integer(Swift.abs(i)))
            case .scalar(.null): return .null
            default: return .scalar(.double(Swift.abs(try double(args[0], selector))))
            }
        case "uppercase:", "lowercase:":
            if args[0].isNull { return .null }
            guard case .scalar(.string(let s)) = args[0] else { throw wrongType(selector, "a string", args[0]) }
            return .scalar(.string(selector == "uppercase:" ? s.uppercased() : s.lowercased()))
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            let a = try integer(args[0], selector), b = try integer(args[1], selector)
            switch selector {
            case "bitwiseAnd:with:": return .scalar(.integer(a & b))
            case "bitwiseOr:with:": return .scalar(.integer(a | b))
            case "bitwiseXor:with:": return .scalar(.integer(a ^ b))
            case "leftshift:by:": return .scalar(.integer(a << b))
            default: return .scalar(.integer(a >> b))
            }
        case "onesComplement:": return .scalar(.integer(~(try integer(args[0], selector))))
        case "noindex:": return args[0]
        default: throw .predicateEvaluation("unknown function \(selector)")
        }
    }

    static func callMethod(_ selector: String, on receiver: PredicateValue, _ args: [PredicateValue]) throws(ObjectGraphError) -> PredicateValue {
        guard methods[selector] != nil else {
            throw .predicateEvaluation("FUNCTION may call only \(methods.keys.sorted().joined(separator: ", ")); '\(selector)' is not allowed")
        }
        if receiver.isNull { return .null }
        switch (selector, receiver) {
        case ("uppercaseString", .scalar(.string(let s))): return .scalar(.string(s.uppercased()))
        case ("lowercaseString", .scalar(.string(let s))): return .scalar(.string(s.lowercased()))
        case ("capitalizedString", .scalar(.string(let s))): return .scalar(.string(capitalized(s)))
        case ("length", .scalar(.string(let s))): return .scalar(.integer(Int64(s.utf16.count)))
        case ("stringByAppendingString:", .scalar(.string(let s))):
            guard case .scalar(.string(let t)) = args[0] else { throw wrongType(selector, "a string argument", args[0]) }
            return .scalar(.string(s + t))
        case ("stringValue", .scalar(let v)): return try cast(.scalar(v), to: "NSString")
        case ("integerValue", .scalar(let v)):
            if case .string(let s) = v { return .scalar(.integer(Int64(s.trimmedSpaces) ?? 0)) }
            let d = try double(.scalar(v), selector)
            guard let i = Int64(exactly: d.rounded(.towardZero)) else {
                throw .predicateEvaluation("\(selector) of \(d): not within the range of a 64-bit integer")
            }
            return .scalar(.integer(i))
        case ("doubleValue", .scalar(let v)):
            if case .string(let s) = v { return .scalar(.double(Double(s.trimmedSpaces) ?? 0)) }
            return .scalar(.double(try double(.scalar(v), selector)))
        case ("boolValue", .scalar(let v)):
            if case .string(let s) = v { return .scalar(.boolean(["y", "Y", "t", "T", "1", "2", "3", "4", "5", "6", "7", "8", "9"].contains(s.first.map(String.init) ?? ""))) }
            return .scalar(.boolean(try double(.scalar(v), selector) != 0))
        case ("count", _):
            guard let elements = receiver.elements else { throw wrongType(selector, "a collection", receiver) }
            return .scalar(.integer(Int64(elements.count)))
        default:
            throw wrongType(selector, "a receiver that responds to it", receiver)
        }
    }

    static func cast(_ value: PredicateValue, to type: String) throws(ObjectGraphError) -> PredicateValue {
        if value.isNull { return .null }
        guard case .scalar(let v) = value else { throw wrongType("CAST", "a single value", value) }
        switch type {
        case "NSDate":
            if case .date = v { return value }
            if case .string(let s) = v, let d = try? Date(s, strategy: .iso8601) { return .scalar(.date(d)) }
            guard let seconds = ValueComparison.number(v) else { throw wrongType("CAST to NSDate", "a number of seconds since 2001", value) }
            return .scalar(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case "NSNumber":
            switch v {
            case .integer, .double, .boolean, .decimal: return value
            case .date(let d): return .scalar(.double(d.timeIntervalSinceReferenceDate))
            case .string(let s):
                let t = s.trimmedSpaces
                if let i = Int64(t) { return .scalar(.integer(i)) }
                if let d = Double(t) { return .scalar(.double(d)) }
                throw .predicateEvaluation("CAST: '\(s)' is not a number")
            default: throw wrongType("CAST to NSNumber", "a number, string or date", value)
            }
        default:
            switch v {
            case .string: return value
            case .integer(let i): return .scalar(.string(String(i)))
            case .double(let d): return .scalar(.string(PredicateFormatter.number(d)))
            case .boolean(let b): return .scalar(.string(b ? "1" : "0"))
            case .decimal(let d): return .scalar(.string(d.description))
            case .date(let d): return .scalar(.string(d.formatted(.iso8601)))
            case .uuid(let u): return .scalar(.string(u.uuidString))
            case .uri(let u): return .scalar(.string(u))
            case .data, .null, .transformable: throw wrongType("CAST to NSString", "a value with a text form", value)
            }
        }
    }

    // MARK: Helpers

    private static func wrongType(_ what: String, _ expected: String, _ got: PredicateValue) -> ObjectGraphError {
        .predicateEvaluation("\(what) needs \(expected), got a \(got.kindName)")
    }

    private static func double(_ v: PredicateValue, _ what: String) throws(ObjectGraphError) -> Double {
        if case .scalar(let s) = v, let d = ValueComparison.number(s) { return d }
        throw wrongType(what, "a number", v)
    }

    private static func integer(_ v: PredicateValue, _ what: String) throws(ObjectGraphError) -> Int64 {
        switch v {
        case .scalar(.integer(let i)): return i
        case .scalar(.boolean(let b)): return b ? 1 : 0
        case .scalar(.double(let d)) where d.rounded() == d && Swift.abs(d) < 9.2e18: return Int64(d)
        default: throw wrongType(what, "an integer", v)
        }
    }

    /// The values a statistic runs over: one collection argument, or the arguments themselves.
    private static func list(_ args: [PredicateValue]) -> [PredicateValue] {
        if args.count == 1, let elements = args[0].elements { return elements }
        return args
    }

    static func arithmetic(_ selector: String, _ a: PredicateValue, _ b: PredicateValue) throws(ObjectGraphError) -> PredicateValue {
        if a.isNull || b.isNull {
            throw .predicateEvaluation("\(selector) cannot compute with nil (\(a.kindName), \(b.kindName))")
        }
        // Dates move by seconds; two dates subtract to seconds.
        if case .scalar(.date(let d)) = a {
            if selector == "from:subtract:", case .scalar(.date(let e)) = b {
                return .scalar(.double(d.timeIntervalSince(e)))
            }
            let s = try double(b, selector)
            if selector == "add:to:" { return .scalar(.date(d.addingTimeInterval(s))) }
            if selector == "from:subtract:" { return .scalar(.date(d.addingTimeInterval(-s))) }
        }
        if case .scalar(.date(let d)) = b, selector == "add:to:" {
            return .scalar(.date(d.addingTimeInterval(try double(a, selector))))
        }
        if case .scalar(.integer(let x)) = a, case .scalar(.integer(let y)) = b {
            switch selector {
            case "add:to:":
                let (r, o) = x.addingReportingOverflow(y)
                if !o { return .scalar(.integer(r)) }
            case "from:subtract:":
                let (r, o) = x.subtractingReportingOverflow(y)
                if !o { return .scalar(.integer(r)) }
            case "multiply:by:":
                let (r, o) = x.multipliedReportingOverflow(by: y)
                if !o { return .scalar(.integer(r)) }
            case "modulus:by:", "divide:by:":
                // Integers divide as integers, as NSNumber arithmetic does.
                guard y != 0 else { throw .predicateEvaluation(selector == "divide:by:" ? "division by zero" : "modulus by zero") }
                return .scalar(.integer(selector == "divide:by:" ? x.dividedReportingOverflow(by: y).partialValue : x.remainderReportingOverflow(dividingBy: y).partialValue))
            default: break
            }
        }
        let x = try double(a, selector), y = try double(b, selector)
        switch selector {
        case "add:to:": return .scalar(.double(x + y))
        case "from:subtract:": return .scalar(.double(x - y))
        case "multiply:by:": return .scalar(.double(x * y))
        case "divide:by:":
            guard y != 0 else { throw .predicateEvaluation("division by zero") }
            return .scalar(.double(x / y))
        case "modulus:by:":
            guard y != 0 else { throw .predicateEvaluation("modulus by zero") }
            return .scalar(.double(x.truncatingRemainder(dividingBy: y)))
        default: return .scalar(.double(pow(x, y)))
        }
    }

    /// Statistics over values; nil members are skipped. An empty list sums to 0 and has no
    /// average, minimum or maximum (nil), as SQL's aggregates behave.
    static func statistic(_ selector: String, _ values: [PredicateValue]) throws(ObjectGraphError) -> PredicateValue {
        let present = values.filter { !$0.isNull }
        switch selector {
        case "count:": return .scalar(.integer(Int64(values.count)))
        case "min:", "max:":
            guard var best = present.first else { return .null }
            for v in present.dropFirst() {
                let c = try ValueComparison.order(v, best) ?? 0
                if selector == "min:" ? c < 0 : c > 0 { best = v }
            }
            return best
        case "sum:":
            var intSum: Int64 = 0
            var allIntegers = true
            var doubleSum = 0.0
            for v in present {
                if case .scalar(.integer(let i)) = v, allIntegers {
                    let (r, o) = intSum.addingReportingOverflow(i)
                    if !o { intSum = r } else { allIntegers = false; doubleSum = Double(intSum) + Double(i); continue }
                } else {
                    if allIntegers { doubleSum = Double(intSum); allIntegers = false }
                    doubleSum += try double(v, selector)
                }
            }
            return allIntegers ? .scalar(.integer(intSum)) : .scalar(.double(doubleSum))
        default:
            var numbers: [Double] = []
            for v in present { numbers.append(try double(v, selector)) }
            guard !numbers.isEmpty else { return .null }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            switch selector {
            case "average:": return .scalar(.double(mean))
            case "median:":
                let s = numbers.sorted()
                let m = s.count / 2
                return .scalar(.double(s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2))
            case "mode:":
                // Every most frequent value, in order of first appearance.
                var counts: [Double: Int] = [:]
                for n in numbers { counts[n, default: 0] += 1 }
                let top = counts.values.max()!
                var modes: [PredicateValue] = []
                var seen = Set<Double>()
                for (n, v) in zip(numbers, present) where counts[n] == top && seen.insert(n).inserted { modes.append(v) }
                return .collection(modes)
            default:
                let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
                return .scalar(.double(variance.squareRoot()))
            }
        }
    }
}

extension String {
    /// The string without leading and trailing white space.
    var trimmedSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}

/// Every word with its first letter in capitals and the rest in lower case.
private func capitalized(_ s: String) -> String {
    var out = ""
    var startOfWord = true
    for c in s {
        if c.isLetter || c.isNumber {
            out += startOfWord ? c.uppercased() : c.lowercased()
            startOfWord = false
        } else {
            out.append(c)
            startOfWord = true
        }
    }
    return out
}
