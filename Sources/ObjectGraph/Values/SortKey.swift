/// One sort criterion of a fetch (Foundation's NSSortDescriptor): a key path (through
/// to-one relationships), a direction and a comparison. Nil sorts before every value when
/// ascending, as in Core Data's SQLite store; ties keep primary-key order.
public struct SortKey: Sendable, Hashable {
    public var key: String
    public var ascending: Bool
    public var comparison: SortComparison

    public init(_ key: String, ascending: Bool = true, comparison: SortComparison = .compare) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }
}

/// How a sort key compares strings (other values always compare by value).
public enum SortComparison: String, Sendable, Hashable, CaseIterable {
    /// `compare:`: by Unicode scalar, which is SQLite's byte order of UTF-8.
    case compare = "compare:"
    /// `caseInsensitiveCompare:`: after full case folding.
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    /// `localizedStandardCompare:` (Finder order). On Linux there is no locale database, so
    /// it means: ignore case and diacritics, and compare runs of digits by their value
    /// ("file2" before "file10"); ties fall back to `compare:`.
    case localizedStandardCompare = "localizedStandardCompare:"

    /// The SQLite collation the store registers for this comparison.
    public var collation: String? {
        switch self {
        case .compare: nil
        case .caseInsensitiveCompare: "OG_CASEINSENSITIVE"
        case .localizedStandardCompare: "OG_LOCALIZEDSTANDARD"
        }
    }
}
