import Foundation
@testable import ObjectGraph
import XCTest

/// The DEFLATE encoder (`Deflate.swift`): what it writes inflates back to the input, and
/// it compresses what compiled models repeat. (zlib reads it too: the Python binding's
/// tests inflate a store's `Z_MODELCACHE` with `zlib.decompress(data, -15)`.)
final class DeflateTests: XCTestCase {
    func roundTrip(_ input: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let compressed = Deflate.compress(input)
        XCTAssertEqual(try Inflate.decompress(compressed), input, label, file: file, line: line)
        return compressed
    }

    func testEveryKindOfInputInflatesBack() throws {
        var random = SystemRandomNumberGenerator()
        let noise = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let cases: [(String, [UInt8])] = [
            ("empty", []), ("one byte", [0x41]), ("two bytes", [0, 255]), ("three equal", [7, 7, 7]),
            ("every byte value", Array(0...255)), ("text", Array("the quick brown fox jumps over the lazy dog. the quick brown fox".utf8)),
            ("a long run", [UInt8](repeating: 0x61, count: 100_000)), ("run of 258", [1] + [UInt8](repeating: 9, count: 259)),
            ("noise", noise), ("noise twice, 70000 apart", noise + noise),
            ("far repeat", Array(noise[0..<1000]) + Array(noise[2000..<34_000]) + Array(noise[0..<1000])),
            ("short period", (0..<5000).map { UInt8($0 % 3) }),
        ]
        for (label, input) in cases { _ = try roundTrip(input, label) }
        // Every match length and many distances.
        for length in 3...258 {
            let input = Array(noise[0..<length]) + Array(noise[500..<(500 + length % 40)]) + Array(noise[0..<length])
            _ = try roundTrip(input, "length \(length)")
        }
        for distance in [1, 2, 3, 4, 5, 7, 8, 9, 24, 25, 32, 33, 100, 1024, 1025, 4096, 4097, 16384, 16385, 24576, 24577, 32767, 32768] {
            let input = Array(noise[0..<10]) + Array(noise[100..<(100 + max(0, distance - 10))]) + Array(noise[0..<10])
            _ = try roundTrip(input, "distance \(distance)")
        }
    }

    func testRepetitiveDataShrinksAndNoiseGrowsLittle() throws {
        let model = CompiledModelWriter.write(try makeLibraryModel())
        let compressed = try roundTrip(model, "a compiled model")
        XCTAssertLessThan(compressed.count, model.count * 4 / 5)
        // 258-byte matches of 13 bits each.
        XCTAssertLessThan(try roundTrip([UInt8](repeating: 0, count: 1 << 20), "a megabyte of zeros").count, 7000)
        let noise = (0..<10_000).map { _ in UInt8.random(in: 0...255) }
        // Fixed codes spend at most 9 bits on a byte.
        XCTAssertLessThanOrEqual(try roundTrip(noise, "noise").count, noise.count * 9 / 8 + 2)
    }

    /// The fixed-code stream of "a" is the three bytes RFC 1951 gives it.
    func testAKnownStream() {
        XCTAssertEqual(Deflate.compress(Array("a".utf8)), [0x4B, 0x04, 0x00])
        XCTAssertEqual(Deflate.compress([]), [0x03, 0x00])
    }
}
