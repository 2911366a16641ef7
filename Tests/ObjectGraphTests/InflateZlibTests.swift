import CZlib
import Foundation
@testable import ObjectGraph
import XCTest

/// The DEFLATE decoder (`Inflate.swift`) reads untrusted stores (`Z_MODELCACHE`): it must
/// agree with zlib, the reference decoder and what Core Data compresses with. Random data
/// compressed by zlib with every level and strategy inflates back to the data; random
/// damage to those streams, and random bytes, decode to exactly what zlib decodes, or are
/// refused where zlib refuses them. The generator is seeded: a failure names its seed and
/// case, and `OG_INFLATE_SEED` replays it.
final class InflateZlibTests: XCTestCase {
    let seed = UInt64(ProcessInfo.processInfo.environment["OG_INFLATE_SEED"] ?? "") ?? 0x0B_1EC7_6AF1

    func testZlibStreamsOfRandomDataInflate() throws {
        var random = SeededGenerator(seed: seed)
        let strategies: [(String, Int32)] = [
            ("default", Z_DEFAULT_STRATEGY), ("filtered", Z_FILTERED), ("huffman only", Z_HUFFMAN_ONLY),
            ("rle", Z_RLE), ("fixed", Z_FIXED),
        ]
        var cases = 0
        for round in 0..<40 {
            let data = randomData(&random)
            for level in [0, 1, 6, 9] as [Int32] {
                for (name, strategy) in strategies where level != 0 || strategy == Z_DEFAULT_STRATEGY {
                    let stream = try zlibDeflate(data, level: level, strategy: strategy)
                    let label = "seed \(seed) round \(round): \(data.count) bytes, level \(level), \(name)"
                    XCTAssertEqual(try Inflate.decompress(stream), data, label)
                    cases += 1
                }
            }
        }
        XCTAssertEqual(cases, 640)
    }

    func testDamagedStreamsAndRandomBytesDecodeAsZlibDoes() throws {
        var random = SeededGenerator(seed: seed &+ 1)
        var agreed = (decoded: 0, refused: 0)
        for round in 0..<4000 {
            let input: [UInt8]
            if round % 4 == 0 {
                input = (0..<random.below(600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                var stream = try zlibDeflate(randomData(&random, upTo: 3000), level: [1, 6, 9][random.below(3)],
                                             strategy: [Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY][random.below(3)])
                damage(&stream, &random)
                input = stream
            }
            let label = "seed \(seed &+ 1) round \(round): \(input.count) bytes"
            let (expected, refusal) = zlibInflate(input, limit: 1 << 20)
            let ours = Result { () throws(Inflate.Failure) -> [UInt8] in try Inflate.decompress(input, limit: 1 << 20) }
            switch (expected, ours) {
            case (.some(let bytes), .success(let decoded)):
                XCTAssertEqual(decoded, bytes, label)
                agreed.decoded += 1
            case (.none, .failure):
                agreed.refused += 1
            case (.some, .failure(let error)):
                XCTFail("\(label): zlib decodes it, Inflate refuses it: \(error)")
            case (.none, .success(let decoded)):
                XCTFail("\(label): zlib refuses it (\(refusal)), Inflate decodes \(decoded.count) bytes")
            }
        }
        // Both kinds must really occur, or the comparison proves little.
        XCTAssertGreaterThan(agreed.decoded, 200)
        XCTAssertGreaterThan(agreed.refused, 200)
    }

    // MARK: - data

    /// Noise, text-like bytes, runs, repeats at every distance, or a mix, up to `upTo` bytes.
    func randomData(_ random: inout SeededGenerator, upTo: Int = 64_000) -> [UInt8] {
        let count = random.below(2) == 0 ? random.below(300) : random.below(upTo)
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let piece = 1 + random.below(4000)
            switch random.below(5) {
            case 0: out += (0..<piece).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1: out += (0..<piece).map { _ in Array("etaoin shrdlu.,\n".utf8)[random.below(16)] }
            case 2: out += [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: piece)
            case 3 where !out.isEmpty:
                let distance = 1 + random.below(min(out.count, 32768))
                for _ in 0..<min(piece, 300) { out.append(out[out.count - distance]) }
            default: out += (0..<piece).map { UInt8(truncatingIfNeeded: $0 % (1 + random.below(7))) }
            }
        }
        return Array(out.prefix(count))
    }

    /// Flips bits, overwrites, inserts, deletes or truncates: one to four times.
    func damage(_ bytes: inout [UInt8], _ random: inout SeededGenerator) {
        for _ in 0..<(1 + random.below(4)) where !bytes.isEmpty {
            let at = random.below(bytes.count)
            switch random.below(5) {
            case 0: bytes[at] ^= UInt8(1 << random.below(8))
            case 1: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
            case 3: bytes.remove(at: at)
            default: bytes.removeLast(bytes.count - at)
            }
        }
    }

    // MARK: - zlib (raw DEFLATE: window bits -15, as in Z_MODELCACHE)

    func zlibDeflate(_ input: [UInt8], level: Int32, strategy: Int32) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ZlibError(what: "deflateInit2")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var source = input
        let status = source.withUnsafeMutableBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = uInt(dst.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ZlibError(what: "deflate: \(status)") }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// What zlib decodes from a whole raw stream, or nil and zlib's reason when it refuses
    /// it (damage, an early end, more than `limit` bytes). Bytes after the final block are
    /// ignored, as Inflate ignores them.
    func zlibInflate(_ input: [UInt8], limit: Int) -> ([UInt8]?, String) {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return (nil, "inflateInit2") }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: limit + 1)
        var source = input
        let status = source.withUnsafeMutableBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = uInt(dst.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) <= limit else {
            return (nil, stream.msg.map { String(cString: $0) } ?? (status == Z_BUF_ERROR ? "the stream ends early" : "status \(status)"))
        }
        return (Array(output.prefix(Int(stream.total_out))), "")
    }

    struct ZlibError: Error { let what: String }
}

extension SeededGenerator {
    /// A number in 0..<n (0 when n is 0 or 1).
    fileprivate mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}
