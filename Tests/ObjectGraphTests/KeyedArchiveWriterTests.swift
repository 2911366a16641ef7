import Foundation
@testable import ObjectGraph
import XCTest

/// The keyed-archive writer (`KeyedArchiveWriter.swift`, `ArchivedValues.swift`):
/// Foundation's own unarchiver reads what it writes, and values read back as written.
final class KeyedArchiveWriterTests: XCTestCase {
    func testFoundationUnarchivesWhatWeArchive() throws {
        let archive = KeyedArchiveWriter()
        let when = Date(timeIntervalSinceReferenceDate: 1234.5)
        let uuid = UUID()
        let root = archive.dictionary("NSDictionary", keys: ["list", "name", "set"]) { key in
            switch key {
            case "list":
                return archive.array("NSMutableArray") {
                    [archive.value(.int(42)), archive.value(.real(2.5)), archive.value(.bool(true)), archive.string("é"),
                     ArchivedValues.write(.date(when), archive), ArchivedValues.write(.uuid(uuid), archive),
                     ArchivedValues.write(.uri("https://example.com/x"), archive), archive.value(.data([1, 2, 3]))]
                }
            case "set": return archive.array("NSSet") { [archive.string("a"), archive.string("b")] }
            default: return archive.string("shared")
            }
        }
        let bytes = archive.finish(root: root)
        let object = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(Data(bytes))
        let dict = try XCTUnwrap(object as? NSDictionary)
        XCTAssertEqual(dict["name"] as? String, "shared")
        let list = try XCTUnwrap(dict["list"] as? NSArray)
        XCTAssertEqual(list.count, 8)
        XCTAssertEqual((list[0] as? NSNumber)?.intValue, 42)
        XCTAssertEqual((list[1] as? NSNumber)?.doubleValue, 2.5)
        XCTAssertEqual(list[3] as? String, "é")
        XCTAssertEqual(list[4] as? Date, when)
        XCTAssertEqual(list[5] as? UUID ?? (list[5] as? NSUUID).map { $0 as UUID }, uuid)
        XCTAssertEqual((list[6] as? URL)?.absoluteString ?? (list[6] as? NSURL)?.absoluteString, "https://example.com/x")
        XCTAssertEqual(list[7] as? Data, Data([1, 2, 3]))
        XCTAssertEqual((dict["set"] as? NSSet)?.count, 2)
    }

    /// Every kind of attribute value reads back as it was written, decimals at the edges of
    /// their range included.
    func testValuesReadBackAsWritten() throws {
        let decimals = ["0", "-0.5", "12.50", "0.0000000000000000000000000000000000001", "99999999999999999999999999999999999999",
                        "-340282366920938463463374607431768211455", "1e100", "123456789012345678901234567890.12345678"]
        var values: [AttributeValue] = [.integer(-1), .integer(Int64.max), .double(-0.25), .boolean(false), .string("ü"), .data(Data([0, 255])),
                                        .date(Date(timeIntervalSinceReferenceDate: -5)), .uuid(UUID()), .uri("urn:x:y")]
        values += decimals.map { .decimal(Decimal(string: $0)!) }
        let archive = KeyedArchiveWriter()
        let root = archive.array { values.map { ArchivedValues.write($0, archive) } }
        let read = try KeyedArchive(archive.finish(root: root))
        let members = read.array(read.objects[read.root])
        XCTAssertEqual(members.count, values.count)
        for (value, ref) in zip(values, members) { XCTAssertEqual(ArchivedValues.read(read, ref), value, "\(value)") }
    }

    /// An object met first through a conditional reference keeps that UID; one never met
    /// is `$null`.
    func testConditionalReferences() throws {
        let archive = KeyedArchiveWriter()
        let root = archive.object("root", "NSObject") {
            let later = archive.conditional("later"), never = archive.conditional("never")
            let body = archive.object("later", "NSObject") { [("back", archive.conditional("root"))] }
            XCTAssertEqual(later, body)
            return [("later", later), ("never", never), ("body", body)]
        }
        let read = try KeyedArchive(archive.finish(root: root))
        let fields = try XCTUnwrap(read.objects[read.root].dict)
        XCTAssertEqual(read.resolve(fields["never"]), .string("$null"))
        XCTAssertEqual(read.resolve(fields["later"])?.dict?["back"], .uid(read.root))
    }
}
