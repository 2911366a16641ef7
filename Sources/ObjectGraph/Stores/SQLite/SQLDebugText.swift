/// How SQL debug messages write values: blobs longer than 64 bytes abbreviated (a
/// statement with a large BLOB bound would otherwise log it whole, as hex), times with
/// four decimals, counts with their noun.
extension SQLDebug {
    /// Blobs up to this many bytes are shown whole.
    public static let blobDisplayLimit = 64
    /// Bytes shown of a longer blob, before the ellipsis.
    static let blobPrefix = 16

    /// A blob as SQL shows it: `x'00ff…'`, abbreviated past `blobDisplayLimit` bytes to its
    /// first bytes and its length (`x'0001…' (1000 bytes)`).
    public static func blobText<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var hex: [UInt8] = Array("x'".utf8)
        let shown = bytes.count > blobDisplayLimit ? blobPrefix : bytes.count
        hex.reserveCapacity(shown * 2 + 24)
        for byte in bytes.prefix(shown) {
            hex.append(hexDigit(byte >> 4))
            hex.append(hexDigit(byte & 0xF))
        }
        if bytes.count > blobDisplayLimit {
            return String(decoding: hex, as: UTF8.self) + "…' (\(bytes.count) bytes)"
        }
        hex.append(UInt8(ascii: "'"))
        return String(decoding: hex, as: UTF8.self)
    }

    /// `sql` with every blob literal (`x'…'`, as SQLite writes bound blobs in place) longer
    /// than `blobDisplayLimit` bytes abbreviated; text in quotes is left as it is.
    public static func abbreviatingBlobs(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        // Nothing long enough to abbreviate: the text as it is, without a copy.
        guard bytes.count > 2 * blobDisplayLimit + 3 else { return sql }
        var out: [UInt8] = []
        var i = 0, copied = 0
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                i = endOfQuoted(bytes, from: i, quote: c)
            case UInt8(ascii: "["):
                i = endOfQuoted(bytes, from: i, quote: UInt8(ascii: "]"))
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "'"), i == 0 || !isWordByte(bytes[i - 1]) else {
                    i += 1
                    continue
                }
                var j = i + 2
                while j < bytes.count, hexValue(bytes[j]) != nil { j += 1 }
                let digits = j - (i + 2)
                guard j < bytes.count, bytes[j] == UInt8(ascii: "'") else {
                    i = j
                    continue
                }
                if digits % 2 == 0, digits / 2 > blobDisplayLimit {
                    out.append(contentsOf: bytes[copied..<i])
                    out.append(contentsOf: "x'".utf8)
                    out.append(contentsOf: bytes[(i + 2)..<(i + 2 + 2 * blobPrefix)])
                    out.append(contentsOf: "…' (\(digits / 2) bytes)".utf8)
                    copied = j + 1
                }
                i = j + 1
            default:
                i += 1
            }
        }
        if copied == 0 { return sql }  // no blob was long enough
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// Seconds with four decimals, as Core Data's annotations show them ("0.0012").
    static func seconds(_ value: Double) -> String {
        let tenThousandths = Int((max(0, value) * 10_000).rounded())
        let fraction = String(tenThousandths % 10_000)
        return "\(tenThousandths / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }

    /// "1 row", "3 rows", "2 dictionaries".
    static func counted(_ n: Int, _ noun: String) -> String {
        if n == 1 { return "1 \(noun)" }
        return noun.hasSuffix("y") ? "\(n) \(noun.dropLast())ies" : "\(n) \(noun)s"
    }

    /// Past the quoted text that starts at `start` (a doubled quote stays inside it).
    private static func endOfQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8) -> Int {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == quote {
                if i + 1 < bytes.count, bytes[i + 1] == quote, quote != UInt8(ascii: "]") {
                    i += 2
                    continue
                }
                return i + 1
            }
            i += 1
        }
        return i
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c >= 0x80
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ n: UInt8) -> UInt8 {
        n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10
    }
}
