/// The string operators in PostgreSQL's SQL, which has no `og_str`: without options they
/// compare Unicode scalars, as the evaluator does, and run exactly; with `[c]` or `[d]`,
/// and `MATCHES`, they become wider conditions that narrow the rows the evaluator then
/// decides (only where `supersetAllowed`).
extension SQLPredicateTranslator {
    /// A string operator without options in PostgreSQL, where it compares Unicode scalars
    /// as the evaluator does: `text`'s column (or expression) against `pattern`, which must
    /// be a constant (nil otherwise). An empty pattern matches nothing, as in Foundation; a
    /// nil value matches nothing (FALSE, never NULL, so NOT and ALL see what memory sees).
    mutating func plainStringOperation(_ op: SQLiteFunctions.StringOperation, _ text: Operand, _ pattern: Operand) -> String? {
        guard text.constant == nil, case .scalar(.string(let p))? = pattern.constant else { return nil }
        if p.isEmpty && op != .like { return no }
        guard !p.utf8.contains(0), let a = value(text) else { return nil }
        switch op {
        case .beginsWith:
            return bindConstant(.string(p)).map { "COALESCE(starts_with(\(a), \($0)), FALSE)" }
        case .endsWith:
            return bindConstant(.string(p)).map { "COALESCE(right(\(a), \(p.unicodeScalars.count)) = \($0), FALSE)" }
        case .contains:
            return bindConstant(.string(p)).map { "COALESCE(strpos(\(a), \($0)) > 0, FALSE)" }
        case .like:
            return bindConstant(.string(Self.likePattern(p))).map { "COALESCE(\(a) LIKE \($0) ESCAPE '\\', FALSE)" }
        default:
            return nil
        }
    }

    /// A string operator with `[c]` or `[d]` in PostgreSQL, which has no function folding
    /// as the evaluator does (`StringMatching.fold`), as a condition selecting a superset of
    /// its rows; nil unless `supersetAllowed`. For ASCII text the evaluator's folding is
    /// ASCII lower-casing (`[c]`) or nothing (`[d]`), so the server decides those rows
    /// exactly against the folded constant; rows with any other character are kept for
    /// memory to decide. `text` must be a column and `pattern` a constant string.
    mutating func foldedSuperset(_ op: ComparisonOperator, text: Operand, pattern: Operand, _ folding: StringCompareOptions) -> String? {
        guard supersetAllowed, text.constant == nil, text.kind == .string, case .scalar(.string(let p))? = pattern.constant,
            let column = value(text)
        else { return nil }
        let folded = String(String.UnicodeScalarView(StringMatching.fold(p, folding)))
        guard !folded.utf8.contains(0) else { return nil }
        let ascii = Operand(sql: folding.contains(.caseInsensitive) ? "lower(\(column) COLLATE \"C\")" : column, kind: .string)
        let constant = Operand(sql: "", kind: .string, constant: .scalar(.string(folded)))
        let decided: String?
        switch op {
        case .equal, .notEqual:
            decided = value(constant).map { dialect.same(ascii.sql, $0, negate: op == .notEqual) }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            decided = value(constant).map { "\(ascii.sql) COLLATE \"C\" \(op.rawValue) \($0)" }
        case .beginsWith: decided = plainStringOperation(.beginsWith, ascii, constant)
        case .endsWith: decided = plainStringOperation(.endsWith, ascii, constant)
        case .contains: decided = plainStringOperation(.contains, ascii, constant)
        case .like: decided = plainStringOperation(.like, ascii, constant)
        default: decided = nil
        }
        guard let decided else { return nil }
        return "\(dialect.falseIfNull("octet_length(\(column)) <> char_length(\(column))")) OR (\(decided))"
    }

    /// `MATCHES` in PostgreSQL, whose regular expressions are not the evaluator's (Swift's
    /// `Regex`, which matches whole characters under canonical equivalence), as a condition
    /// selecting a superset of its rows; nil unless `supersetAllowed`. A whole match must
    /// begin with the pattern's literal prefix, so the text starts with it: the prefix is
    /// the pattern's leading plain ASCII characters, up to the first that has a meaning in
    /// the syntax, less the last when a quantifier follows it, and none at all when the
    /// pattern has an alternation anywhere. "K", ";" and "`" end it too: the Kelvin sign,
    /// the Greek question mark and the Greek varia are canonically equivalent to them.
    mutating func literalPrefixSuperset(text: Operand, pattern: Operand) -> String? {
        guard supersetAllowed, text.constant == nil, case .scalar(.string(let p))? = pattern.constant, !p.contains("|") else { return nil }
        var prefix: [Unicode.Scalar] = []
        var next: Unicode.Scalar? = nil
        for c in p.unicodeScalars {
            let plain = c.value >= 0x20 && c.value < 0x7F && !"\\^$.?*+()[]{}K;`".unicodeScalars.contains(c)
            if !plain {
                next = c
                break
            }
            prefix.append(c)
        }
        if let next, "?*{".unicodeScalars.contains(next), !prefix.isEmpty { prefix.removeLast() }
        guard !prefix.isEmpty else { return nil }
        return plainStringOperation(.beginsWith, text, Operand(sql: "", kind: .string, constant: .scalar(.string(String(String.UnicodeScalarView(prefix))))))
    }

    /// The predicate language's LIKE pattern (`*`, `?`, and `\` escaping them) as SQL's,
    /// with `\` as the escape: `%`, `_` and `\` of the text are escaped.
    static func likePattern(_ pattern: String) -> String {
        var out = ""
        var escaped = false
        for c in pattern.unicodeScalars {
            if escaped {
                if c == "%" || c == "_" || c == "\\" { out += "\\" }
                out.unicodeScalars.append(c)
                escaped = false
                continue
            }
            switch c {
            case "\\": escaped = true
            case "*": out += "%"
            case "?": out += "_"
            case "%", "_": out += "\\" + String(c)
            default: out.unicodeScalars.append(c)
            }
        }
        if escaped { out += "\\\\" }
        return out
    }
}
