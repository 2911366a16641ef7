import FoundationEssentials

/// A fetch request as a model stores it: a named template, or the request of a fetched
/// property. The predicate is kept as its format string; `$name` tokens in it are the
/// substitution variables a caller must supply.
public struct FetchRequestTemplate: Sendable, Equatable {
    public var entityName: String
    public var predicateFormat: String?
    public var sortKeys: [SortKey]
    /// 0 means no limit.
    public var fetchLimit: Int
    public var fetchOffset: Int
    public var fetchBatchSize: Int
    public var includesSubentities: Bool
    public var returnsDistinctResults: Bool
    public var returnsObjectsAsFaults: Bool
    public var includesPropertyValues: Bool
    /// `NSFetchRequestResultType`: 0 objects, 1 object IDs, 2 dictionaries, 4 count.
    public var resultType: Int

    public init(entityName: String, predicateFormat: String? = nil, sortKeys: [SortKey] = [], fetchLimit: Int = 0) {
        self.entityName = entityName
        self.predicateFormat = predicateFormat
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        fetchOffset = 0
        fetchBatchSize = 0
        includesSubentities = true
        returnsDistinctResults = false
        returnsObjectsAsFaults = true
        includesPropertyValues = true
        resultType = 0
    }

    /// The variable names (without `$`) the predicate uses, in order of first use.
    public var substitutionVariables: [String] {
        guard let predicateFormat else { return [] }
        var seen: [String] = []
        for token in PredicateVariables.scan(predicateFormat) where !seen.contains(token.name) { seen.append(token.name) }
        return seen
    }

    /// A copy whose predicate has every `$variable` replaced by the literal for its value.
    /// Every variable must be supplied (`.null` tests against nil); a missing one is an
    /// error naming it.
    public func substituting(_ variables: [String: AttributeValue], templateName: String = "the template") throws(ObjectGraphError) -> FetchRequestTemplate {
        var copy = self
        guard let format = predicateFormat else { return copy }
        var out = ""
        var last = format.startIndex
        for token in PredicateVariables.scan(format) {
            guard let value = variables[token.name] else {
                var e = ObjectGraphError.invalidArgument(
                    "fetch request template '\(templateName)': no value for substitution variable $\(token.name)")
                e.userInfo = [("variable", token.name)]
                throw e
            }
            out += format[last..<token.range.lowerBound]
            out += try PredicateVariables.literal(value, variable: token.name)
            last = token.range.upperBound
        }
        out += format[last...]
        copy.predicateFormat = out
        return copy
    }
}

/// Finds `$identifier` tokens in a predicate format string, outside quoted strings, and
/// writes values as predicate literals.
enum PredicateVariables {
    struct Token {
        let name: String
        let range: Range<String.Index>
    }

    static func scan(_ format: String) -> [Token] {
        var tokens: [Token] = []
        var i = format.startIndex
        var quote: Character?
        while i < format.endIndex {
            let c = format[i]
            if let q = quote {
                if c == "\\" {
                    i = format.index(after: i)
                    if i < format.endIndex { i = format.index(after: i) }
                    continue
                }
                if c == q { quote = nil }
                i = format.index(after: i)
                continue
            }
            if c == "\"" || c == "'" {
                quote = c
                i = format.index(after: i)
                continue
            }
            if c == "$" {
                var j = format.index(after: i)
                while j < format.endIndex, isIdentifier(format[j], first: j == format.index(after: i)) { j = format.index(after: j) }
                if j > format.index(after: i) {
                    tokens.append(Token(name: String(format[format.index(after: i)..<j]), range: i..<j))
                    i = j
                    continue
                }
            }
            i = format.index(after: i)
        }
        return tokens
    }

    private static func isIdentifier(_ c: Character, first: Bool) -> Bool {
        c == "_" || c.isLetter || (!first && c.isNumber)
    }

    static func literal(_ value: AttributeValue, variable: String) throws(ObjectGraphError) -> String {
        switch value {
        case .null: return "nil"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .boolean(let b): return b ? "YES" : "NO"
        case .string(let s): return quoted(s)
        case .decimal(let d): return d.description
        case .date(let d): return "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .uuid(let u): return quoted(u.uuidString)
        case .uri(let u): return quoted(u)
        case .data, .transformable:
            throw .invalidArgument("substitution variable $\(variable): \(value.kindName) has no predicate literal")
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }
}
