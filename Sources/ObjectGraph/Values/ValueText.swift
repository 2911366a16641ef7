import FoundationEssentials

/// Text forms of values that cross the API edges (C strings, JSON model files).
public enum ValueText {
    /// A decimal from its plain decimal notation ("-12.50", "3e2"); nil if it is not one.
    public static func decimal(_ text: String) -> Decimal? {
        let trimmed = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        guard !trimmed.isEmpty,
            trimmed.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || "+-.eE".unicodeScalars.contains($0) }),
            let d = Decimal(string: trimmed), !d.isNaN
        else { return nil }
        return d
    }

    /// A decimal holding `value`, or nil when no decimal can: infinities, NaN and
    /// magnitudes beyond what `Decimal(Double)` converts (about 1e146). A magnitude below
    /// the smallest it converts (about 1e-109) is zero. (`Decimal(Double)` traps on an
    /// infinity and answers NaN for the others.)
    public static func decimal(_ value: Double) -> Decimal? {
        guard value.isFinite else { return nil }
        let d = Decimal(value)
        if !d.isNaN { return d }
        return abs(value) < 1 ? Decimal(0) : nil
    }

    /// A date from ISO-8601 text in UTC, with or without fractional seconds.
    public static func date(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: .iso8601) { return d }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Whether `text` is a URI a URI attribute takes (an absolute one, with a scheme).
    public static func isURI(_ text: String) -> Bool { uri(text) != nil }

    /// A URI: an absolute URL with a scheme. Relative references are refused.
    public static func uri(_ text: String) -> URL? {
        guard let url = URL(string: text), url.scheme != nil else { return nil }
        return url
    }
}
