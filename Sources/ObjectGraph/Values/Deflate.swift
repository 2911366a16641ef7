/// A raw DEFLATE (RFC 1951) encoder, for the compiled model a store keeps in
/// `Z_MODELCACHE`: one block with the fixed Huffman codes, and LZ77 matches found through
/// hash chains. Compiled models repeat their keys and class names, which is what LZ77
/// finds; Core Data and any zlib (`inflate` with -15 window bits) read the result.
enum Deflate {
    static let windowSize = 32768
    static let minimumMatch = 3
    static let maximumMatch = 258
    /// How many earlier positions with the same hash are tried: enough for models, bounded
    /// so that repetitive input stays linear.
    static let chainLimit = 64

    /// The raw DEFLATE stream (no zlib or gzip header) of `input`.
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var out = BitWriter()
        out.write(1, bits: 1)  // the last block
        out.write(1, bits: 2)  // compressed with the fixed codes
        let hashBits = 15
        var head = [Int](repeating: -1, count: 1 << hashBits)
        var previous = [Int](repeating: -1, count: input.count)
        func hash(_ i: Int) -> Int {
            (Int(input[i]) << 10 ^ Int(input[i + 1]) << 5 ^ Int(input[i + 2])) & (1 << hashBits - 1)
        }
        func insert(_ i: Int) {
            guard i + minimumMatch <= input.count else { return }
            let h = hash(i)
            previous[i] = head[h]
            head[h] = i
        }
        var i = 0
        while i < input.count {
            var bestLength = 0, bestDistance = 0
            if i + minimumMatch <= input.count {
                let limit = min(maximumMatch, input.count - i)
                var candidate = head[hash(i)]
                var tries = chainLimit
                while candidate >= 0, i - candidate <= windowSize, tries > 0 {
                    var length = 0
                    while length < limit, input[candidate + length] == input[i + length] { length += 1 }
                    if length > bestLength {
                        (bestLength, bestDistance) = (length, i - candidate)
                        if length == limit { break }
                    }
                    candidate = previous[candidate]
                    tries -= 1
                }
            }
            if bestLength >= minimumMatch {
                out.writeLength(bestLength)
                out.writeDistance(bestDistance)
                for j in i..<(i + bestLength) { insert(j) }
                i += bestLength
            } else {
                out.writeLiteral(Int(input[i]))
                insert(i)
                i += 1
            }
        }
        out.writeLiteral(256)  // end of block
        return out.finish()
    }

    /// Writes bits least significant first, as DEFLATE packs them; Huffman codes are
    /// reversed first because they are defined most significant bit first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var count = 0

        mutating func write(_ value: Int, bits: Int) {
            buffer |= UInt32(value) << UInt32(count)
            count += bits
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                count -= 8
            }
        }

        mutating func writeCode(_ code: Int, bits: Int) {
            var reversed = 0
            for b in 0..<bits where code & (1 << b) != 0 { reversed |= 1 << (bits - 1 - b) }
            write(reversed, bits: bits)
        }

        /// A literal/length symbol in the fixed code (RFC 1951 §3.2.6).
        mutating func writeLiteral(_ symbol: Int) {
            switch symbol {
            case 0...143: writeCode(0x30 + symbol, bits: 8)
            case 144...255: writeCode(0x190 + symbol - 144, bits: 9)
            case 256...279: writeCode(symbol - 256, bits: 7)
            default: writeCode(0xC0 + symbol - 280, bits: 8)
            }
        }

        mutating func writeLength(_ length: Int) {
            let index = Inflate.lengthBase.lastIndex { $0 <= length }!  // lengths start at 3, the first base
            writeLiteral(257 + index)
            write(length - Inflate.lengthBase[index], bits: Inflate.lengthExtra[index])
        }

        mutating func writeDistance(_ distance: Int) {
            let index = Inflate.distanceBase.lastIndex { $0 <= distance }!  // distances start at 1, the first base
            writeCode(index, bits: 5)
            write(distance - Inflate.distanceBase[index], bits: Inflate.distanceExtra[index])
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
            return bytes
        }
    }
}
