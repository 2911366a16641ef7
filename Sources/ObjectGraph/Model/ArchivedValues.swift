import FoundationEssentials

/// Attribute values as Foundation archives them (default values, predicate constants):
/// numbers, strings and data stand for themselves; dates, UUIDs, URLs and decimal numbers
/// are objects of their class. Both directions, so that what is written reads back.
enum ArchivedValues {
    typealias Object = BinaryPropertyList.Object

    static func write(_ v: AttributeValue, _ archive: KeyedArchiveWriter) -> Object {
        switch v {
        case .null: return KeyedArchiveWriter.null
        case .integer(let i): return archive.value(.int(i))
        case .double(let d): return archive.value(.real(d))
        case .boolean(let b): return archive.value(.bool(b))
        case .string(let s): return archive.string(s)
        case .data(let d): return archive.value(.data(Array(d)))
        case .date(let d): return archive.object(nil, "NSDate") { [("NS.time", .real(d.timeIntervalSinceReferenceDate))] }
        case .uuid(let u):
            let b = u.uuid
            let bytes = [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7, b.8, b.9, b.10, b.11, b.12, b.13, b.14, b.15]
            return archive.object(nil, "NSUUID") { [("NS.uuidbytes", .data(bytes))] }
        case .uri(let s): return archive.object(nil, "NSURL") { [("NS.base", KeyedArchiveWriter.null), ("NS.relative", archive.string(s))] }
        case .decimal(let d): return decimal(d, archive)
        case .transformable(let t): return SecureArchive.write(t, archive)
        }
    }

    static func read(_ archive: KeyedArchive, _ ref: Object?) -> AttributeValue? {
        guard let o = archive.resolve(ref) else { return nil }
        switch o {
        case .bool(let b): return .boolean(b)
        case .int(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(Data(d))
        default: break
        }
        let field = { (key: String) in o.dict?[key] }
        switch archive.className(ref) {
        case "NSString", "NSMutableString": return archive.string(ref).map { .string($0) }
        case "NSDate": if case .real(let t)? = field("NS.time") { return .date(Date(timeIntervalSinceReferenceDate: t)) }
        case "NSUUID": if case .data(let b)? = field("NS.uuidbytes"), b.count == 16 {
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
        case "NSURL": if let s = archive.string(field("NS.relative")), ValueText.isURI(s) { return .uri(s) }
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder": return decimal(o.dict ?? [:]).map { .decimal($0) }
        default: break
        }
        return nil
    }

    // MARK: Decimal numbers

    /// An NSDecimalNumber: the mantissa as eight 16-bit words, least significant first, in
    /// little-endian bytes (`NS.mantissa.bo` 1), and a power of ten.
    private static func decimal(_ d: Decimal, _ archive: KeyedArchiveWriter) -> Object {
        var text = d.description
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        guard !d.isNaN, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return KeyedArchiveWriter.null }
        var digits = text.filter { $0 != "." }
        var exponent = -(text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0)
        digits = String(digits.drop { $0 == "0" })
        while digits.count > 1, digits.hasSuffix("0") {
            digits.removeLast()
            exponent += 1
        }
        // 8 words hold 38 decimal digits, as many as a Decimal has.
        var words = [UInt16](repeating: 0, count: 8)
        for c in digits.utf8 {
            var carry = UInt32(c - UInt8(ascii: "0"))
            for i in words.indices {
                let v = UInt32(words[i]) * 10 + carry
                words[i] = UInt16(truncatingIfNeeded: v)
                carry = v >> 16
            }
        }
        let length = (words.lastIndex { $0 != 0 } ?? -1) + 1
        return archive.object(nil, "NSDecimalNumber") {
            [("NS.exponent", .int(Int64(exponent))), ("NS.length", .int(Int64(length))), ("NS.negative", .bool(negative && length > 0)),
             ("NS.compact", .bool(true)), ("NS.mantissa", .data(words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
             ("NS.mantissa.bo", .int(1))]
        }
    }

    private static func decimal(_ fields: [String: Object]) -> Decimal? {
        guard case .data(let bytes)? = fields["NS.mantissa"], let exponent = fields["NS.exponent"]?.int, (-128...127).contains(exponent),
            let length = fields["NS.length"]?.int, (0...8).contains(length), bytes.count >= 2 * Int(length)
        else { return nil }
        let bigEndian = fields["NS.mantissa.bo"]?.int.map { $0 != 1 } ?? false
        var words: [UInt16] = []
        for i in 0..<Int(length) {
            let (high, low) = bigEndian ? (bytes[2 * i], bytes[2 * i + 1]) : (bytes[2 * i + 1], bytes[2 * i])
            words.append(UInt16(high) << 8 | UInt16(low))
        }
        guard length > 0 else { return fields["NS.negative"]?.bool == true ? nil : Decimal(0) }  // negative with no digits is NaN
        // The mantissa's decimal digits, by repeated division by ten.
        var digits: [Character] = []
        while words.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for i in words.indices.reversed() {
                let v = remainder << 16 | UInt32(words[i])
                words[i] = UInt16(v / 10)
                remainder = v % 10
            }
            digits.append(Character(String(remainder)))
        }
        let sign = fields["NS.negative"]?.bool == true ? "-" : ""
        return Decimal(string: sign + String(digits.reversed()) + "e" + String(exponent)).flatMap { $0.isNaN ? nil : $0 }
    }
}
