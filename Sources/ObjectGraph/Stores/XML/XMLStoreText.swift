import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How values are spelled in an XML store file (docs/store-format.md, "XML store files").
enum XMLStoreText {
    /// Text content and attribute values: XML's five special characters as entities, and a
    /// carriage return as a character reference (a reader would otherwise turn CR LF into LF).
    static func escape(_ s: String, attribute: Bool = false) -> String {
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x0D || (attribute && ($0 == 0x22 || $0 < 0x20)) }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The first character XML 1.0 cannot hold (C0 controls but tab, line feed and carriage
    /// return), or nil: Apple's reader refuses a file holding one, so a save refuses it first.
    static func unwritableCharacter(_ s: String) -> Unicode.Scalar? {
        for u in s.unicodeScalars where u.value < 0x20 && u != "\t" && u != "\n" && u != "\r" { return u }
        for u in s.unicodeScalars where u.value == 0xFFFE || u.value == 0xFFFF { return u }
        return nil
    }

    /// A float or double: the shortest text that reads back as the same number, without a
    /// trailing `.0` for whole numbers (Apple writes `5`).
    static func number(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// A date as seconds since 2001-01-01 UTC with 20 decimals, as Apple writes it
    /// (`259495720.56406000256538391113`): the exact expansion of the stored double.
    static func date(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return number(seconds) }
        var buffer = [CChar](repeating: 0, count: 400)
        let n = withVaList([seconds]) { vsnprintf(&buffer, buffer.count, "%.20f", $0) }
        guard n > 0, Int(n) < buffer.count else { return number(seconds) }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
