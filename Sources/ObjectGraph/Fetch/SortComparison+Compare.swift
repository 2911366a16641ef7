/// How sort comparisons order strings: the string folding of the predicate language, so
/// that sorting and `[c]`/`[d]` comparisons agree.
extension SortComparison {
    /// Compares two strings; the store's collations call this too.
    public func compare(_ a: String, _ b: String) -> Int {
        switch self {
        case .compare: return StringMatching.compare(a, b, [])
        case .caseInsensitiveCompare:
            let c = StringMatching.compare(a, b, .caseInsensitive)
            return c != 0 ? c : StringMatching.compare(a, b, [])
        case .localizedStandardCompare:
            let c = Self.numericCompare(
                StringMatching.fold(a, [.caseInsensitive, .diacriticInsensitive]),
                StringMatching.fold(b, [.caseInsensitive, .diacriticInsensitive]))
            return c != 0 ? c : StringMatching.compare(a, b, [])
        }
    }

    /// Scalar order, except that runs of ASCII digits compare by numeric value.
    private static func numericCompare(_ x: [Unicode.Scalar], _ y: [Unicode.Scalar]) -> Int {
        func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var a = i, b = j
                while a < x.count && isDigit(x[a]) { a += 1 }
                while b < y.count && isDigit(y[b]) { b += 1 }
                // Compare without leading zeros: longer is larger, then digit by digit.
                var p = i, q = j
                while p < a - 1 && x[p] == "0" { p += 1 }
                while q < b - 1 && y[q] == "0" { q += 1 }
                if a - p != b - q { return a - p < b - q ? -1 : 1 }
                while p < a {
                    if x[p] != y[q] { return x[p].value < y[q].value ? -1 : 1 }
                    p += 1; q += 1
                }
                i = a; j = b
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value ? -1 : 1 }
                i += 1; j += 1
            }
        }
        return x.count - i == y.count - j ? 0 : (x.count - i < y.count - j ? -1 : 1)
    }
}
