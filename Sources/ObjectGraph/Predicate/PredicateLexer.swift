import FoundationEssentials

/// One token of a predicate format string, with the character offset where it starts.
struct PredicateToken {
    enum Kind: Equatable {
        case identifier(String)      // a key, or a keyword (compared case-insensitively)
        case escapedIdentifier(String) // `#name`: always a key, never a keyword
        case string(String)
        case integer(Int64)
        case double(Double)
        case variable(String)        // `$name`
        case collectionOperator(String) // `@count`
        case formatSpecifier(String) // `%@`, `%K`, `%d`, …
        case punctuation(String)     // operators and brackets
        case end
    }

    let kind: Kind
    let position: Int
    let text: String

    /// The keyword this token spells, uppercased, if it is a bare identifier.
    var keyword: String? {
        if case .identifier(let s) = kind { return s.uppercased() }
        return nil
    }
}

/// Splits a format string into tokens. Keywords are recognised later by the parser, so
/// `#`-escaped words and ordinary identifiers differ only in their kind.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var i = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    static func tokenize(_ text: String) throws(ObjectGraphError) -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let t = try lexer.next()
            tokens.append(t)
            if t.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        i + offset < scalars.count ? scalars[i + offset] : nil
    }

    private func text(from start: Int) -> String {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[start..<i])
        return String(s)
    }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c)
    }

    private func error(_ message: String, at position: Int) -> ObjectGraphError {
        let end = min(scalars.count, position + 12)
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[min(position, scalars.count)..<end])
        return .predicateSyntax(message, position: position, token: String(s))
    }

    mutating func next() throws(ObjectGraphError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { i += 1 }
        let start = i
        guard let c = peek() else { return PredicateToken(kind: .end, position: i, text: "") }
        func make(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, position: start, text: text(from: start))
        }
        if Self.isIdentifierStart(c) {
            i += 1
            while let d = peek(), Self.isIdentifierPart(d) { i += 1 }
            // UTI-CONFORMS-TO and UTI-EQUALS are the only keywords with hyphens.
            let word = text(from: start)
            if word.uppercased() == "UTI", peek() == "-" {
                for candidate in ["-CONFORMS-TO", "-EQUALS"] {
                    let cs = Array(candidate.unicodeScalars)
                    if i + cs.count <= scalars.count,
                        String(String.UnicodeScalarView(scalars[i..<(i + cs.count)])).uppercased() == candidate
                    {
                        i += cs.count
                        return make(.identifier(text(from: start)))
                    }
                }
            }
            return make(.identifier(word))
        }
        if ("0"..."9").contains(c) || (c == "." && peek(1).map { ("0"..."9").contains($0) } == true) {
            return try number(start)
        }
        switch c {
        case "\"", "'":
            return try string(start, quote: c)
        case "#":
            i += 1
            let nameStart = i
            while let d = peek(), Self.isIdentifierPart(d) { i += 1 }
            guard i > nameStart else { throw error("expected a key after '#'", at: start) }
            return make(.escapedIdentifier(text(from: nameStart)))
        case "$":
            i += 1
            let nameStart = i
            guard let d = peek(), Self.isIdentifierStart(d) else { throw error("expected a variable name after '$'", at: start) }
            while let d = peek(), Self.isIdentifierPart(d) { i += 1 }
            return make(.variable(text(from: nameStart)))
        case "@":
            i += 1
            let nameStart = i
            while let d = peek(), Self.isIdentifierPart(d) { i += 1 }
            guard i > nameStart else { throw error("expected a collection operator after '@'", at: start) }
            return make(.collectionOperator(text(from: nameStart)))
        case "%":
            return try formatSpecifier(start)
        default:
            break
        }
        for op in ["**", "==", "=<", "=>", "!=", "<>", "<<", ">>", "<=", ">=", "&&", "||", ":=",
                   "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", ":",
                   "&", "|", "^", "~"] {
            let os = Array(op.unicodeScalars)
            if i + os.count <= scalars.count && Array(scalars[i..<(i + os.count)]) == os {
                i += os.count
                return make(.punctuation(op))
            }
        }
        throw error("unexpected character '\(c)'", at: start)
    }

    private mutating func number(_ start: Int) throws(ObjectGraphError) -> PredicateToken {
        func finish(_ kind: PredicateToken.Kind) throws(ObjectGraphError) -> PredicateToken {
            if let d = peek(), Self.isIdentifierPart(d) { throw error("malformed number", at: start) }
            return PredicateToken(kind: kind, position: start, text: text(from: start))
        }
        if peek() == "0", let p = peek(1), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][Character(p)] {
            i += 2
            let digitsStart = i
            while let d = peek(), Character(d).hexDigitValue.map({ $0 < radix }) == true { i += 1 }
            let digits = text(from: digitsStart)
            guard let v = Int64(digits, radix: radix) else { throw error("malformed number", at: start) }
            return try finish(.integer(v))
        }
        var isDouble = false
        while let d = peek(), ("0"..."9").contains(d) { i += 1 }
        if peek() == ".", let d = peek(1), ("0"..."9").contains(d) {
            isDouble = true
            i += 1
            while let d = peek(), ("0"..."9").contains(d) { i += 1 }
        } else if peek() == ".", !(peek(1).map(Self.isIdentifierStart) ?? false), peek(1) != "@" {
            // `3.` is a number; `a.3` never reaches here and `3.b` is an error later.
            isDouble = true
            i += 1
        }
        if let e = peek(), e == "e" || e == "E" {
            var j = i + 1
            if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
            if j < scalars.count, ("0"..."9").contains(scalars[j]) {
                isDouble = true
                i = j
                while let d = peek(), ("0"..."9").contains(d) { i += 1 }
            }
        }
        let t = text(from: start)
        if !isDouble, let v = Int64(t) { return try finish(.integer(v)) }
        guard let v = Double(t) else { throw error("malformed number", at: start) }
        guard v.isFinite else { throw error("number out of range", at: start) }
        return try finish(.double(v))
    }

    private mutating func string(_ start: Int, quote: Unicode.Scalar) throws(ObjectGraphError) -> PredicateToken {
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek() else { throw error("unterminated string", at: start) }
            i += 1
            if c == quote { break }
            guard c == "\\" else { out.append(c); continue }
            guard let e = peek() else { throw error("unterminated string", at: start) }
            i += 1
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "0": out.append("\0")
            case "u":
                var hex = ""
                for _ in 0..<4 {
                    guard let h = peek(), Character(h).isHexDigit else { throw error("malformed \\u escape", at: i) }
                    hex.unicodeScalars.append(h)
                    i += 1
                }
                guard let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) else {
                    throw error("malformed \\u escape", at: i - 6)
                }
                out.append(s)
            default: out.append(e)  // \\, \", \' and any other escaped character stand for themselves
            }
        }
        return PredicateToken(kind: .string(String(out)), position: start, text: text(from: start))
    }

    private mutating func formatSpecifier(_ start: Int) throws(ObjectGraphError) -> PredicateToken {
        i += 1
        // Flags, width and precision are accepted and ignored; the length and conversion decide.
        while let d = peek(), "-+ 0#123456789.".unicodeScalars.contains(d) { i += 1 }
        var spec = ""
        while let d = peek(), "hlqLjzt".unicodeScalars.contains(d) { spec.unicodeScalars.append(d); i += 1 }
        guard let conversion = peek() else { throw error("incomplete format specifier", at: start) }
        i += 1
        guard "@KdiouxXfeEgGscCp%".unicodeScalars.contains(conversion) else {
            throw error("unknown format specifier '%\(spec)\(conversion)'", at: start)
        }
        spec.unicodeScalars.append(conversion)
        if spec == "%" { throw error("'%%' has no meaning outside a quoted string", at: start) }
        return PredicateToken(kind: .formatSpecifier(spec), position: start, text: text(from: start))
    }
}
