/// A raw DEFLATE (RFC 1951) decoder, for the compiled models Core Data keeps DEFLATE-
/// compressed in a store's `Z_MODELCACHE`. The input is untrusted: every read is bounds
/// checked, code tables are validated, and the output is capped, so a damaged or hostile
/// stream is an error, never a crash or a runaway allocation.
enum Inflate {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The decompressed bytes of a raw DEFLATE stream (no zlib or gzip header).
    static func decompress(_ input: [UInt8], limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        var reader = BitReader(bytes: input)
        var out: [UInt8] = []
        out.reserveCapacity(min(limit, input.count * 4))
        var last = false
        while !last {
            last = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                try storedBlock(&reader, &out, limit)
            case 1:
                try codedBlock(&reader, &out, limit, fixedLiterals, fixedDistances)
            case 2:
                let (literals, distances) = try dynamicTables(&reader)
                try codedBlock(&reader, &out, limit, literals, distances)
            default:
                throw Failure(description: "a DEFLATE block of the reserved type 3")
            }
        }
        return out
    }

    private struct BitReader {
        let bytes: [UInt8]
        var position = 0
        var buffer: UInt32 = 0
        var count = 0

        mutating func bits(_ n: Int) throws(Failure) -> Int {
            while count < n {
                guard position < bytes.count else { throw Failure(description: "the DEFLATE stream ends early") }
                buffer |= UInt32(bytes[position]) << UInt32(count)
                position += 1
                count += 8
            }
            let value = Int(buffer & ((1 << UInt32(n)) - 1))
            buffer >>= UInt32(n)
            count -= n
            return value
        }

        mutating func alignToByte() {
            buffer = 0
            count = 0
        }
    }

    /// Canonical Huffman codes as counts per length and symbols in code order (RFC 1951 §3.2.2).
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        /// Refuses over-subscribed codes, and incomplete ones as zlib does: all but a
        /// literal/length or distance code of a single one-bit code.
        init(lengths: [Int], codeLengths: Bool = false) throws(Failure) {
            for l in lengths { counts[l] += 1 }
            counts[0] = 0
            var left = 1
            for length in 1..<16 {
                left <<= 1
                left -= counts[length]
                if left < 0 { throw Failure(description: "an over-subscribed DEFLATE code") }
            }
            let longest = counts.lastIndex { $0 > 0 } ?? 0
            if left > 0, longest > 0, codeLengths || longest != 1 {
                throw Failure(description: "an incomplete DEFLATE code")
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, l) in lengths.enumerated() where l != 0 {
                symbols[offsets[l]] = symbol
                offsets[l] += 1
            }
        }

        func decode(_ reader: inout BitReader) throws(Failure) -> Int {
            var code = 0, first = 0, index = 0
            for length in 1..<16 {
                code |= try reader.bits(1)
                let count = counts[length]
                if code - count < first { return symbols[index + (code - first)] }
                index += count
                first += count
                first <<= 1
                code <<= 1
            }
            throw Failure(description: "an invalid DEFLATE code")
        }
    }

    // The length and distance tables of RFC 1951 §3.2.5, shared with `Deflate`.
    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                                       4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static let fixedLiterals: Huffman = {
        var lengths = [Int](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        return try! Huffman(lengths: lengths)  // a constant table, valid by construction
    }()
    // 32 codes (RFC 1951 §3.2.6), so the code is complete; 30 and 31 are refused when used.
    private static let fixedDistances: Huffman = try! Huffman(lengths: [Int](repeating: 5, count: 32))

    private static func storedBlock(_ reader: inout BitReader, _ out: inout [UInt8], _ limit: Int) throws(Failure) {
        reader.alignToByte()
        let p = reader.position
        guard p + 4 <= reader.bytes.count else { throw Failure(description: "the DEFLATE stream ends early") }
        let length = Int(reader.bytes[p]) | Int(reader.bytes[p + 1]) << 8
        let check = Int(reader.bytes[p + 2]) | Int(reader.bytes[p + 3]) << 8
        guard length == ~check & 0xFFFF else { throw Failure(description: "a stored DEFLATE block with a damaged length") }
        guard p + 4 + length <= reader.bytes.count else { throw Failure(description: "the DEFLATE stream ends early") }
        guard out.count + length <= limit else { throw Failure(description: "the DEFLATE stream expands beyond \(limit) bytes") }
        out.append(contentsOf: reader.bytes[(p + 4)..<(p + 4 + length)])
        reader.position = p + 4 + length
    }

    private static func dynamicTables(_ reader: inout BitReader) throws(Failure) -> (Huffman, Huffman) {
        let literalCount = try reader.bits(5) + 257
        let distanceCount = try reader.bits(5) + 1
        let codeCount = try reader.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Failure(description: "a DEFLATE block with too many codes") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for i in 0..<codeCount { codeLengths[order[i]] = try reader.bits(3) }
        let lengthCode = try Huffman(lengths: codeLengths, codeLengths: true)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try lengthCode.decode(&reader)
            switch symbol {
            case 0...15: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure(description: "a DEFLATE length repeat with nothing to repeat") }
                lengths += [Int](repeating: previous, count: 3 + (try reader.bits(2)))
            case 17: lengths += [Int](repeating: 0, count: 3 + (try reader.bits(3)))
            default: lengths += [Int](repeating: 0, count: 11 + (try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount, lengths[256] != 0 else {
            throw Failure(description: "DEFLATE code lengths that do not fit their tables")
        }
        return (try Huffman(lengths: Array(lengths[0..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...])))
    }

    private static func codedBlock(_ reader: inout BitReader, _ out: inout [UInt8], _ limit: Int, _ literals: Huffman, _ distances: Huffman)
        throws(Failure)
    {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                guard out.count < limit else { throw Failure(description: "the DEFLATE stream expands beyond \(limit) bytes") }
                out.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < lengthBase.count else { throw Failure(description: "an invalid DEFLATE length code") }
            let length = lengthBase[lengthIndex] + (try reader.bits(lengthExtra[lengthIndex]))
            let distanceSymbol = try distances.decode(&reader)
            guard distanceSymbol < distanceBase.count else { throw Failure(description: "an invalid DEFLATE distance code") }
            let distance = distanceBase[distanceSymbol] + (try reader.bits(distanceExtra[distanceSymbol]))
            guard distance <= out.count else { throw Failure(description: "a DEFLATE distance before the start of the output") }
            guard out.count + length <= limit else { throw Failure(description: "the DEFLATE stream expands beyond \(limit) bytes") }
            let start = out.count - distance
            for i in 0..<length { out.append(out[start + i]) }
        }
    }
}
