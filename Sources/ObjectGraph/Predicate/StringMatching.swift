@_spi(_Unicode) import Swift
import FoundationEssentials
import Synchronization

/// The string operations of the language, written once and used both by the in-memory
/// evaluator and by the functions the SQLite store registers, so SQL and memory agree.
///
/// Without options strings compare by Unicode scalar, which is also SQLite's byte order of
/// UTF-8. `[d]` decomposes (NFD) and drops combining marks; `[c]` applies full case
/// folding (upper- then lower-case, so "ß" equals "SS"). Both are locale-independent.
public enum StringMatching {
    /// `s` as the scalars a comparison with `options` sees.
    public static func fold(_ s: String, _ options: StringCompareOptions) -> [Unicode.Scalar] {
        let insensitive = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
        if !insensitive { return Array(s.unicodeScalars) }
        var view = String.UnicodeScalarView()
        for scalar in s._nfd {
            if options.contains(.diacriticInsensitive), scalar.properties.canonicalCombiningClass != .notReordered
                || scalar.properties.generalCategory == .nonspacingMark
            {
                continue
            }
            view.append(scalar)
        }
        var folded = String(view)
        if options.contains(.caseInsensitive) { folded = folded.uppercased().lowercased() }
        return Array(folded.unicodeScalars)
    }

    public static func compare(_ a: String, _ b: String, _ options: StringCompareOptions) -> Int {
        let x = fold(a, options), y = fold(b, options)
        for (p, q) in zip(x, y) where p != q { return p.value < q.value ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    public static func equal(_ a: String, _ b: String, _ options: StringCompareOptions) -> Bool {
        fold(a, options) == fold(b, options)
    }

    // As Foundation decides them: an empty string begins, ends and is contained in no string.

    public static func beginsWith(_ s: String, _ prefix: String, _ options: StringCompareOptions) -> Bool {
        let x = fold(s, options), p = fold(prefix, options)
        return !p.isEmpty && x.count >= p.count && Array(x[0..<p.count]) == p
    }

    public static func endsWith(_ s: String, _ suffix: String, _ options: StringCompareOptions) -> Bool {
        let x = fold(s, options), p = fold(suffix, options)
        return !p.isEmpty && x.count >= p.count && Array(x[(x.count - p.count)...]) == p
    }

    public static func contains(_ s: String, _ part: String, _ options: StringCompareOptions) -> Bool {
        let x = fold(s, options), p = fold(part, options)
        if p.isEmpty { return false }
        if p.count > x.count { return false }
        for start in 0...(x.count - p.count) where x[start] == p[0] {
            if Array(x[start..<(start + p.count)]) == p { return true }
        }
        return false
    }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one; `\*`, `\?` and `\\`
    /// match themselves. The whole string must match.
    public static func like(_ s: String, _ pattern: String, _ options: StringCompareOptions) -> Bool {
        enum Piece: Equatable { case literal(Unicode.Scalar), one, any }
        var pieces: [Piece] = []
        var escaped = false
        for c in fold(pattern, options) {
            if escaped { pieces.append(.literal(c)); escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "*": pieces.append(.any)
            case "?": pieces.append(.one)
            default: pieces.append(.literal(c))
            }
        }
        if escaped { pieces.append(.literal("\\")) }
        let text = fold(s, options)
        // Greedy matching with one backtrack point per `*`, linear in practice.
        var t = 0, p = 0
        var star: Int? = nil, starText = 0
        while t < text.count {
            if p < pieces.count, pieces[p] == .one || pieces[p] == .literal(text[t]) {
                t += 1; p += 1
            } else if p < pieces.count, pieces[p] == .any {
                star = p; starText = t; p += 1
            } else if let s = star {
                p = s + 1; starText += 1; t = starText
            } else {
                return false
            }
        }
        while p < pieces.count, pieces[p] == .any { p += 1 }
        return p == pieces.count
    }

    /// A compiled regular expression; matching does not mutate it, so threads may share it.
    private final class CompiledRegex: @unchecked Sendable {
        let regex: Regex<AnyRegexOutput>
        init(_ regex: Regex<AnyRegexOutput>) { self.regex = regex }
    }

    private static let regexCache = Mutex<[String: CompiledRegex]>([:])

    /// `MATCHES`: the whole string matches the regular expression (ICU-style syntax as
    /// Swift's `Regex` reads it). `[c]` matches case-insensitively; `[d]` folds the string.
    public static func matches(_ s: String, _ pattern: String, _ options: StringCompareOptions) throws(ObjectGraphError) -> Bool {
        let key = (options.contains(.caseInsensitive) ? "i:" : "s:") + pattern
        let cached = regexCache.withLock { $0[key]?.regex }
        let regex: Regex<AnyRegexOutput>
        if let cached {
            regex = cached
        } else {
            do {
                var r = try Regex(pattern)
                if options.contains(.caseInsensitive) { r = r.ignoresCase() }
                regex = r
            } catch {
                throw .predicateEvaluation("'\(pattern)' is not a valid regular expression: \(error)")
            }
            let compiled = CompiledRegex(regex)
            regexCache.withLock { cache in
                if cache.count > 256 { cache.removeAll() }
                cache[key] = compiled
            }
        }
        var subject = s
        if options.contains(.diacriticInsensitive) {
            subject = String(String.UnicodeScalarView(fold(s, [.diacriticInsensitive])))
        }
        return subject.wholeMatch(of: regex) != nil
    }
}
