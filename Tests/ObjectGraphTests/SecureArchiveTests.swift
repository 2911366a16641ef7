import Foundation
@testable import ObjectGraph
import XCTest

/// The secure archive of transformable values (`SecureArchive.swift`): Apple's layout
/// byte for byte where it matters, Apple-shaped archives read, unknown classes refused.
final class SecureArchiveTests: XCTestCase {
    typealias Object = BinaryPropertyList.Object

    private func classEntry(_ chain: String...) -> Object {
        .dict(["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })])
    }

    /// An archive laid out as Apple's NSKeyedArchiver writes a mutable dictionary holding a
    /// mutable string, an array, a date, a UUID and a URL.
    private func appleShapedArchive(extraClass: String? = nil) -> Data {
        var objects: [Object] = [
            .string("$null"),
            // 1: the root NSMutableDictionary
            .dict(["NS.keys": .array([.uid(2), .uid(3), .uid(4), .uid(5), .uid(6)]),
                   "NS.objects": .array([.uid(7), .uid(9), .uid(13), .uid(15), .uid(17)]), "$class": .uid(19)]),
            .string("name"), .string("tags"), .string("when"), .string("id"), .string("link"),
            // 7: an NSMutableString
            .dict(["NS.string": .string("Zoë"), "$class": .uid(8)]),
            classEntry("NSMutableString", "NSString", "NSObject"),
            // 9: an NSArray of a string, an integer, a real and a boolean
            .dict(["NS.objects": .array([.uid(10), .uid(11), .uid(12), .uid(20)]), "$class": .uid(21)]),
            .string("red"), .int(7), .real(2.5),
            // 13: an NSDate
            .dict(["NS.time": .real(700_000_000.25), "$class": .uid(14)]),
            classEntry("NSDate", "NSObject"),
            // 15: an NSUUID
            .dict(["NS.uuidbytes": .data(Array(0..<16)), "$class": .uid(16)]),
            classEntry("NSUUID", "NSObject"),
            // 17: an NSURL
            .dict(["NS.base": .uid(0), "NS.relative": .uid(22), "$class": .uid(18)]),
            classEntry("NSURL", "NSObject"),
            classEntry("NSMutableDictionary", "NSDictionary", "NSObject"),
            .bool(true),
            classEntry("NSArray", "NSObject"),
            .string("https://example.com/a"),
        ]
        if let extraClass {
            // The array's last member becomes an instance of another class.
            objects.append(.dict(["$class": .uid(objects.count + 1), "value": .int(1)]))
            objects.append(classEntry(extraClass, "NSObject"))
            objects[9] = .dict(["NS.objects": .array([.uid(10), .uid(objects.count - 2)]), "$class": .uid(21)])
        }
        let top: Object = .dict(["$version": .int(100000), "$archiver": .string("NSKeyedArchiver"),
                                 "$top": .dict(["root": .uid(1)]), "$objects": .array(objects)])
        return Data(BinaryPropertyList.encode(top, uniquing: false))
    }

    func testReadsAnAppleShapedArchive() throws {
        let value = try SecureArchive.decode(appleShapedArchive(), allows: { _ in false })
        let expected: TransformableValue = [
            "name": "Zoë", "tags": ["red", 7, 2.5, true], "when": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.25)),
            "id": .uuid(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))), "link": .url("https://example.com/a"),
        ]
        XCTAssertEqual(value, expected)
    }

    func testRefusesAClassNeitherPlistNorRegistered() throws {
        let archive = appleShapedArchive(extraClass: "Evil")
        let e = expectError { _ = try SecureArchive.decode(archive, allows: { _ in false }) }
        XCTAssertEqual(e?.code, ErrorCode.typeMismatch)
        XCTAssertTrue(e?.message.contains("'Evil'") ?? false, e?.message ?? "")
        // Allowed, the same archive reads as a class name and fields, nothing more.
        guard case .dictionary(let d) = try SecureArchive.decode(archive, allows: { $0 == "Evil" }), case .array(let tags)? = d["tags"] else {
            return XCTFail("not a dictionary with tags")
        }
        XCTAssertEqual(tags.last, .object(ArchivedObject(className: "Evil", fields: ["value": 1])))
    }

    /// What we write has Apple's top-level layout and class entries.
    func testWritesApplesLayout() throws {
        let value: TransformableValue = ["list": [1, "two", .null], "at": .date(Date(timeIntervalSinceReferenceDate: 5))]
        let bytes = SecureArchive.encode(value)
        guard case .dict(let top) = try BinaryPropertyList.decodeObjects(Array(bytes)) else { return XCTFail("no dictionary") }
        XCTAssertEqual(top["$archiver"], .string("NSKeyedArchiver"))
        XCTAssertEqual(top["$version"], .int(100000))
        XCTAssertEqual(top["$top"], .dict(["root": .uid(1)]))
        guard case .array(let objects)? = top["$objects"] else { return XCTFail("no objects") }
        XCTAssertEqual(objects[0], .string("$null"))
        let classes = objects.compactMap { o -> [String]? in
            guard case .dict(let d) = o, case .array(let chain)? = d["$classes"] else { return nil }
            return chain.map { if case .string(let s) = $0 { s } else { "?" } }
        }
        XCTAssertTrue(classes.contains(["NSDictionary", "NSObject"]))
        XCTAssertTrue(classes.contains(["NSArray", "NSObject"]))
        XCTAssertTrue(classes.contains(["NSDate", "NSObject"]))
        XCTAssertTrue(classes.contains(["NSNull", "NSObject"]))
        XCTAssertEqual(try SecureArchive.decode(bytes, allows: { _ in false }), value)
    }

    /// Foundation's secure unarchiver, given only the plist classes, reads what we write.
    func testFoundationSecurelyUnarchivesWhatWeWrite() throws {
        let when = Date(timeIntervalSinceReferenceDate: 1234.5)
        let value: TransformableValue = ["names": ["a", "b"], "count": 3, "ratio": 0.5, "on": true, "when": .date(when), "raw": .data(Data([1, 2]))]
        let classes: [AnyClass] = [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self]
        let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: SecureArchive.encode(value))
        let dict = try XCTUnwrap(object as? NSDictionary)
        XCTAssertEqual(dict["names"] as? [String], ["a", "b"])
        XCTAssertEqual((dict["count"] as? NSNumber)?.intValue, 3)
        XCTAssertEqual(dict["when"] as? Date, when)
        XCTAssertEqual(dict["raw"] as? Data, Data([1, 2]))
    }

    /// Foundation's archiver writes mutable classes; they read as plain values.
    func testReadsFoundationsArchiveOfMutableClasses() throws {
        let dict = NSMutableDictionary()
        dict["s"] = NSMutableString(string: "text")
        dict["a"] = NSMutableArray(array: [1, "x"])
        let bytes = try NSKeyedArchiver.archivedData(withRootObject: dict, requiringSecureCoding: true)
        XCTAssertEqual(try SecureArchive.decode(bytes, allows: { _ in false }), ["s": "text", "a": [1, "x"]])
    }

    func testRefusesMalformedArchivesWithoutCrashing() throws {
        XCTAssertEqual(expectError { _ = try SecureArchive.decode(Data([1, 2, 3]), allows: { _ in true }) }?.code, ErrorCode.typeMismatch)
        // An array that contains itself.
        let objects: [Object] = [.string("$null"), .dict(["NS.objects": .array([.uid(1)]), "$class": .uid(2)]), classEntry("NSArray", "NSObject")]
        let top: Object = .dict(["$version": .int(100000), "$archiver": .string("NSKeyedArchiver"), "$top": .dict(["root": .uid(1)]), "$objects": .array(objects)])
        let cyclic = Data(BinaryPropertyList.encode(top, uniquing: false))
        XCTAssertEqual(expectError { _ = try SecureArchive.decode(cyclic, allows: { _ in true }) }?.code, ErrorCode.typeMismatch)
        // Arrays nested far deeper than any value: refused before the stack runs out.
        var nested: [Object] = [.string("$null"), classEntry("NSArray", "NSObject")]
        for i in 0..<100_000 { nested.append(.dict(["NS.objects": .array(i == 99_999 ? [] : [.uid(nested.count + 1)]), "$class": .uid(1)])) }
        let deepTop: Object = .dict(["$version": .int(100000), "$archiver": .string("NSKeyedArchiver"), "$top": .dict(["root": .uid(2)]), "$objects": .array(nested)])
        let deep = Data(BinaryPropertyList.encode(deepTop, uniquing: false))
        XCTAssertTrue(expectError { _ = try SecureArchive.decode(deep, allows: { _ in true }) }?.message.contains("deep") ?? false)
    }
}
