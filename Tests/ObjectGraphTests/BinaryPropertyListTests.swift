import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// The one binary property-list reader (`BinaryPropertyList`): store metadata, Binary
/// store files and compiled models all go through it, and no byte sequence traps it.
final class BinaryPropertyListTests: XCTestCase {
    /// A property list of hand-placed objects: `objects` are encoded objects (marker and
    /// payload), the offset table and trailer are computed unless overridden.
    static func plist(_ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1,
                      count: UInt64? = nil, table: UInt64? = nil, offsetSize: UInt8 = 1) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects { offsets.append(out.count); out += o }
        let tableAt = out.count
        for o in offsets { out += be(UInt64(o), Int(offsetSize)) }
        out += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
        out += be(count ?? UInt64(objects.count), 8) + be(top, 8) + be(table ?? UInt64(tableAt), 8)
        return out
    }

    static func be(_ v: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> UInt64((size - 1 - $0) * 8)) }
    }

    /// A UID whose 8-byte value has the top bit set: the input that used to kill the process.
    static let hugeUID = plist([[0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])

    /// The smallest such file: the UID's last 7 bytes overlap the offset table and trailer.
    static let hugeUIDOverlapping: [UInt8] = Array("bplist00".utf8) + [0x87, 0x80, 0x08] + [0, 0, 0, 0, 0, 0, 1, 1]
        + be(1, 8) + be(0, 8) + be(10, 8)

    func testRoundTripAndFoundationAgreement() throws {
        let value: PropertyListValue = .dictionary([
            "NSStoreType": .string("SQLite"),
            "NSStoreModelVersionHashes": .dictionary(["Book": .data(Array(repeating: 7, count: 32))]),
            "NSStoreModelVersionIdentifiers": .array([.string("1"), .string("ünï")]),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "big": .integer(-5), "real": .real(2.5), "flag": .boolean(true),
            "huge": .integer(Int64.max), "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)),
        ])
        let bytes = BinaryPropertyList.encode(value)
        XCTAssertEqual(try BinaryPropertyList.decode(bytes), value)
        // Foundation's reader agrees, so Apple's tools can read what we write.
        let decoded = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
        XCTAssertEqual(decoded?["NSStoreType"] as? String, "SQLite")
        XCTAssertEqual((decoded?["NSStoreModelVersionIdentifiers"] as? [String])?.last, "ünï")
        XCTAssertEqual(decoded?["NSStoreModelVersionHashesVersion"] as? Int, 3)
    }

    /// Keyed archives' objects: UIDs of every size, and equal values written once.
    func testWritesUIDsAndSharesEqualValues() throws {
        let names = (0..<300).map { "name \($0 % 7)" }
        let top: BinaryPropertyList.Object = .dict([
            "uids": .array([.uid(0), .uid(255), .uid(256), .uid(70_000), .uid(4_000_000_000)]),
            "names": .array(names.map { .string($0) }), "numbers": .array([.int(1), .bool(true), .real(1), .int(1), .int(-1)]),
        ])
        let shared = BinaryPropertyList.encode(top, uniquing: true), plain = BinaryPropertyList.encode(top, uniquing: false)
        XCTAssertEqual(try BinaryPropertyList.decodeObjects(shared), top)
        XCTAssertEqual(try BinaryPropertyList.decodeObjects(plain), top)
        XCTAssertLessThan(shared.count, plain.count / 2)
        // Foundation's reader agrees.
        let decoded = try PropertyListSerialization.propertyList(from: Data(shared), format: nil) as? [String: Any]
        XCTAssertEqual(decoded?["names"] as? [String], names)
    }

    func testReadsWhatFoundationWrites() throws {
        let archive = try NSKeyedArchiver.archivedData(withRootObject: ["a": [1, 2], "b": "x"] as NSDictionary, requiringSecureCoding: false)
        guard case .dict(let top) = try BinaryPropertyList.decodeObjects(Array(archive)) else { return XCTFail("not a dictionary") }
        XCTAssertEqual(top["$archiver"], .string("NSKeyedArchiver"))
        XCTAssertNotNil(top["$top"].flatMap { if case .dict(let d) = $0 { d["root"]?.uid } else { nil } })
        let plist = try PropertyListSerialization.data(fromPropertyList: ["k": [1.5, "é", Data([1, 2])]], format: .binary, options: 0)
        XCTAssertEqual(try BinaryPropertyList.decode(Array(plist)), .dictionary(["k": .array([.real(1.5), .string("é"), .data([1, 2])])]))
    }

    func testUIDsAreKeptForKeyedArchivesAndReadAsIntegersElsewhere() throws {
        let bytes = Self.plist([[0xD1, 1, 2], [0x54] + Array("root".utf8), [0x80, 0x07]])
        XCTAssertEqual(try BinaryPropertyList.decodeObjects(bytes), .dict(["root": .uid(7)]))
        XCTAssertEqual(try BinaryPropertyList.decode(bytes), .dictionary(["root": .integer(7)]))
    }

    func testUIDWithTheTopBitSetIsAnError() {
        XCTAssertThrowsError(try BinaryPropertyList.decode(Self.hugeUID)) { XCTAssertTrue("\($0)".contains("UID"), "\($0)") }
        for bytes in [Self.hugeUID, Self.hugeUIDOverlapping] {
            XCTAssertThrowsError(try BinaryPropertyList.decode(bytes))
            XCTAssertThrowsError(try BinaryPropertyList.decodeObjects(bytes))
        }
        // UIDs longer than 8 bytes read past their object; they are refused.
        XCTAssertThrowsError(try BinaryPropertyList.decode(Self.plist([[0x8F] + Array(repeating: 0xFF, count: 16)])))
        // The largest UID that fits an Int is fine.
        XCTAssertEqual(try BinaryPropertyList.decodeObjects(Self.plist([[0x87, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])), .uid(Int.max))
    }

    func testEveryIntegerFromTheFileIsChecked() {
        let string: [UInt8] = [0x51, 0x61]
        let cases: [(String, [UInt8])] = [
            ("count too large", Self.plist([string], count: UInt64.max)),
            ("count beyond the table", Self.plist([string], count: 1 << 62)),
            ("top beyond count", Self.plist([string], top: UInt64.max)),
            ("table offset huge", Self.plist([string], table: UInt64.max)),
            ("table offset inside the header", Self.plist([string], table: 3)),
            ("offset size 0", Self.plist([string], offsetSize: 0)),
            ("offset size 9", Self.plist([string], offsetSize: 9)),
            ("reference size 0", Self.plist([[0xA1, 0]], refSize: 0)),
            ("reference size 255", Self.plist([[0xA1, 0]], refSize: 255)),
            ("object offset past the table", Self.plist([string], offsetSize: 8) .replacing(at: 10, with: Self.be(UInt64.max, 8))),
            ("reference past count", Self.plist([[0xA1, 0xFF]])),
            ("reference with top bit", Self.plist([[0xA1] + Self.be(UInt64.max, 8)], refSize: 8)),
            ("data length huge", Self.plist([[0x4F, 0x13] + Self.be(UInt64.max, 8)])),
            ("string length huge", Self.plist([[0x5F, 0x13] + Self.be(UInt64(Int.max), 8)])),
            ("utf-16 length overflows when doubled", Self.plist([[0x6F, 0x13] + Self.be(UInt64(Int.max / 2 + 1), 8)])),
            ("array count overflows by reference size", Self.plist([[0xAF, 0x13] + Self.be(UInt64(Int.max / 4), 8)], refSize: 8)),
            ("dictionary count huge", Self.plist([[0xDF, 0x13] + Self.be(1 << 61, 8)], refSize: 8)),
            ("count marker of 16 bytes", Self.plist([[0x5F, 0x14] + Array(repeating: 0xFF, count: 16)])),
            ("count marker not an integer", Self.plist([[0x5F, 0x51, 0x61]])),
            ("integer of 32 bytes", Self.plist([[0x15] + Array(repeating: 0xFF, count: 32)])),
            ("real of 2 bytes", Self.plist([[0x21, 0, 0]])),
            ("truncated date", Self.plist([[0x33, 0]])),
            ("non-string key", Self.plist([[0xD1, 1, 1], [0x10, 1]])),
            ("unknown type", Self.plist([[0x70]])),
            ("array containing itself", Self.plist([[0xA1, 0]])),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try BinaryPropertyList.decodeObjects(bytes), name)
            XCTAssertThrowsError(try BinaryPropertyList.decode(bytes), name)
        }
    }

    /// Sixty arrays, each holding the next one twice, would build 2^60 objects.
    func testSharedCollectionsCannotExplode() {
        var objects: [[UInt8]] = (0..<60).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x10, 1])
        let start = Date()
        XCTAssertThrowsError(try BinaryPropertyList.decode(Self.plist(objects))) { XCTAssertTrue("\($0)".contains("too many objects"), "\($0)") }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// Every truncation and every single-byte change of a metadata plist and of a keyed
    /// archive decodes or fails; none traps.
    func testDamagedFilesGiveErrorsNotCrashes() throws {
        let metadata = BinaryPropertyList.encode(.dictionary([
            "a": .string("b"), "n": .integer(1 << 40), "list": .array([.real(1), .data([1, 2, 3]), .string("ü")]),
        ]))
        let archive = Array(try NSKeyedArchiver.archivedData(withRootObject: ["x": [1, "y"]] as NSDictionary, requiringSecureCoding: false))
        for original in [metadata, archive, Self.hugeUID] {
            for length in 0..<original.count { _ = try? BinaryPropertyList.decodeObjects(Array(original.prefix(length))) }
            for i in 0..<original.count {
                for replacement: UInt8 in [0x00, 0x0F, 0x7F, 0x80, 0x8F, 0xFF, original[i] ^ 0x01] {
                    var copy = original
                    copy[i] = replacement
                    _ = try? BinaryPropertyList.decode(copy)
                    _ = try? KeyedArchive(copy)
                }
            }
        }
        XCTAssertThrowsError(try BinaryPropertyList.decode(Array("hello".utf8)))
    }

    func testKeyedArchiveRootMustBeAnObject() {
        // {"$archiver": "NSKeyedArchiver", "$objects": ["$null"], "$top": {"root": UID 5}}
        let bytes = Self.plist([
            [0xD3, 1, 2, 3, 4, 5, 6],
            [0x59] + Array("$archiver".utf8), [0x58] + Array("$objects".utf8), [0x54] + Array("$top".utf8),
            [0x5F, 0x10, 15] + Array("NSKeyedArchiver".utf8), [0xA1, 7], [0xD1, 8, 9],
            [0x55] + Array("$null".utf8), [0x54] + Array("root".utf8), [0x80, 5],
        ])
        XCTAssertThrowsError(try KeyedArchive(bytes)) { XCTAssertTrue("\($0)".contains("root UID 5"), "\($0)") }
        XCTAssertThrowsError(try CompiledModelReader.read(bytes, source: "x.mom"))
    }

    // MARK: Through the stores

    func testBinaryStoreFileWithAHugeUIDIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (i, plist) in [Self.hugeUID, Self.hugeUIDOverlapping].enumerated() {
            let path = dir + "/huge-uid-\(i).binary"
            let bytes = BinaryStore.header + plist
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
            let error = expectError { _ = try coordinator.addPersistentStore(type: StoreType.binary, path: path) }
            XCTAssertEqual(error?.code, ErrorCode.storeInvalidType)
            XCTAssertTrue(error?.message.contains("cannot be read") ?? false, error?.message ?? "")
            XCTAssertNotNil(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: StoreType.binary, at: path) })
            // The refused file is left as it was.
            XCTAssertEqual(FileManager.default.contents(atPath: path).map(Array.init), bytes)
        }
    }

    func testStoreMetadataWithAHugeUIDIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/huge-uid.sqlite"
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path)
            try stack.coordinator.removePersistentStore(stack.store)
        }
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        var s: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ?", -1, &s, nil), SQLITE_OK)
        let bytes = Self.hugeUID
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(s, 1, $0.baseAddress, Int32($0.count), nil) }
        XCTAssertEqual(sqlite3_step(s), SQLITE_DONE)
        sqlite3_finalize(s)
        sqlite3_close(db)
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        let error = expectError { _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }
        XCTAssertEqual(error?.code, ErrorCode.storeInvalidType)
        XCTAssertNotNil(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: StoreType.sqlite, at: path) })
    }
}

private extension Array where Element == UInt8 {
    func replacing(at index: Int, with bytes: [UInt8]) -> [UInt8] {
        var copy = self
        copy.replaceSubrange(index..<index + bytes.count, with: bytes)
        return copy
    }
}
