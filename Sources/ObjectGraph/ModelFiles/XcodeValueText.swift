import FoundationEssentials

/// How Xcode's `defaultValueString`, `minValueString` and `maxValueString` become values.
/// Xcode keeps the text as typed, even after the attribute's type changed (an Integer 32
/// whose default is `NO`, left from when it was a Boolean), and its model compiler turns it
/// into a value with Foundation's lenient NSString conversions instead of refusing it. So
/// does this reader, documented in docs/model-format.md:
///
/// - integers: `longLongValue` (leading spaces, a sign, the digits up to the first other
///   character; 0 when there are none; saturated on overflow), with Xcode's Boolean
///   spellings `YES` and `NO` read as 1 and 0;
/// - doubles, floats and decimals: `doubleValue` likewise (the longest number at the start,
///   else 0), `YES`/`NO` as 1 and 0;
/// - Booleans: `boolValue` (true on a leading `Y`, `y`, `T`, `t` or a digit 1–9 after an
///   optional sign and zeros);
/// - UUIDs and URIs that do not parse, and types that take no value, give no value.
///
/// The result says whether the text was already in the type's own spelling, so the reader
/// can warn about the others.
enum XcodeValueText {
    struct Reading {
        let value: AttributeValue
        /// False when a lenient conversion was needed.
        let exact: Bool
    }

    /// `text` read as a value of `type`; nil when the type takes no such value.
    static func value(_ text: String, type: AttributeType) -> Reading? {
        switch type {
        case .integer16, .integer32, .integer64:
            if let i = Int64(text) { return Reading(value: .integer(i), exact: true) }
            if let b = boolSpelling(text) { return Reading(value: .integer(b ? 1 : 0), exact: false) }
            return Reading(value: .integer(longLongValue(text)), exact: false)
        case .double, .float:
            if let d = Double(text), d.isFinite { return Reading(value: .double(d), exact: true) }
            if let b = boolSpelling(text) { return Reading(value: .double(b ? 1 : 0), exact: false) }
            return Reading(value: .double(doubleValue(text)), exact: false)
        case .decimal:
            if let d = ValueText.decimal(text) { return Reading(value: .decimal(d), exact: true) }
            if let b = boolSpelling(text) { return Reading(value: .decimal(b ? 1 : 0), exact: false) }
            let prefix = numberPrefix(text)
            return Reading(value: .decimal(prefix.flatMap { ValueText.decimal($0) } ?? 0), exact: false)
        case .boolean:
            switch text {
            case "YES", "1": return Reading(value: .boolean(true), exact: true)
            case "NO", "0": return Reading(value: .boolean(false), exact: true)
            default: return Reading(value: .boolean(boolValue(text)), exact: false)
            }
        case .string:
            return Reading(value: .string(text), exact: true)
        case .uuid:
            return UUID(uuidString: text).map { Reading(value: .uuid($0), exact: true) }
        case .uri:
            return ValueText.isURI(text) ? Reading(value: .uri(text), exact: true) : nil
        case .date:
            return seconds(text).map { Reading(value: .date(Date(timeIntervalSinceReferenceDate: $0.value)), exact: $0.exact) }
        case .undefined, .objectID, .binaryData, .transformable:
            return nil
        }
    }

    /// Seconds since 2001 (`defaultDateTimeInterval` and the date bounds), read like
    /// `doubleValue`.
    static func seconds(_ text: String) -> (value: Double, exact: Bool)? {
        if let d = Double(text), d.isFinite { return (d, true) }
        return (doubleValue(text), false)
    }

    /// A length bound (`minValueString` of a string or binary attribute), read like
    /// `longLongValue`.
    static func length(_ text: String) -> (value: Int, exact: Bool) {
        if let i = Int(text) { return (i, true) }
        return (Int(clamping: longLongValue(text)), false)
    }

    private static func boolSpelling(_ text: String) -> Bool? {
        switch text {
        case "YES": true
        case "NO": false
        default: nil
        }
    }

    private static func isSpace(_ c: Unicode.Scalar) -> Bool { c.properties.isWhitespace }

    /// NSString `longLongValue`.
    static func longLongValue(_ text: String) -> Int64 {
        var scalars = Substring(text).unicodeScalars.drop(while: isSpace)
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflow = false
        for c in scalars {
            guard ("0"..."9").contains(c) else { break }
            let digit = UInt64(c.value - 0x30)
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 { overflow = true; break }
            magnitude = s
        }
        if negative {
            if overflow || magnitude > UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        if overflow || magnitude > UInt64(Int64.max) { return Int64.max }
        return Int64(magnitude)
    }

    /// NSString `doubleValue`.
    static func doubleValue(_ text: String) -> Double {
        numberPrefix(text).flatMap { Double($0) }.map { $0.isFinite ? $0 : ($0 < 0 ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude) } ?? 0
    }

    /// NSString `boolValue`.
    static func boolValue(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars.drop(while: isSpace)
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        scalars = scalars.drop { $0 == "0" }
        guard let c = scalars.first else { return false }
        return "YyTt123456789".unicodeScalars.contains(c)
    }

    /// The longest decimal number at the start of `text` after leading spaces: a sign,
    /// digits, a fraction and an exponent (nil when there is no digit).
    static func numberPrefix(_ text: String) -> String? {
        let scalars = Array(Substring(text).unicodeScalars.drop(while: isSpace))
        var i = 0, out = ""
        func digits() -> Int {
            var n = 0
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { out.unicodeScalars.append(scalars[i]); i += 1; n += 1 }
            return n
        }
        if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { out.unicodeScalars.append(scalars[i]); i += 1 }
        var count = digits()
        if i < scalars.count, scalars[i] == "." {
            if count == 0 { out += "0" }  // Swift's Double needs a digit before the point
            out += "."
            i += 1
            count += digits()
        }
        guard count > 0 else { return nil }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            let mark = (i, out)
            out += "e"
            i += 1
            if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { out.unicodeScalars.append(scalars[i]); i += 1 }
            if digits() == 0 { (i, out) = mark }
        }
        if out.hasSuffix(".") { out += "0" }
        return out
    }
}
