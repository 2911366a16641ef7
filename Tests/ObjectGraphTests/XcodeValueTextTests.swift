import Foundation
@testable import ObjectGraph
import XCTest

/// Foundation's lenient NSString conversions, as Core Data's model compiler applies them
/// to Xcode's default and bound strings (XcodeValueText.swift).
final class XcodeValueTextTests: XCTestCase {
    func testLongLongValue() {
        let cases: [(String, Int64)] = [
            ("42", 42), ("  -7", -7), ("+3", 3), ("12abc", 12), ("abc", 0), ("", 0), ("NO", 0), ("1.9", 1),
            ("99999999999999999999", Int64.max), ("-99999999999999999999", Int64.min), ("- 5", 0),
        ]
        for (text, expected) in cases { XCTAssertEqual(XcodeValueText.longLongValue(text), expected, text) }
    }

    func testDoubleValue() {
        let cases: [(String, Double)] = [("2.5", 2.5), (" -1e3x", -1000), (".5", 0.5), ("7.", 7), ("1e", 1), ("two", 0), ("", 0)]
        for (text, expected) in cases { XCTAssertEqual(XcodeValueText.doubleValue(text), expected, text) }
    }

    func testBoolValue() {
        let truths = ["YES", "yes", "Y", "true", "T", "1", "9", " 2", "+0001", "-1"]
        let lies = ["NO", "no", "false", "0", "000", "", "abc", "0.5", "--1"]
        for t in truths { XCTAssertTrue(XcodeValueText.boolValue(t), t) }
        for f in lies { XCTAssertFalse(XcodeValueText.boolValue(f), f) }
    }

    func testValuesByTypeAndWhetherTheTextWasExact() {
        func check(_ text: String, _ type: AttributeType, _ value: AttributeValue?, exact: Bool = true) {
            let r = XcodeValueText.value(text, type: type)
            XCTAssertEqual(r?.value, value, "\(text) as \(type)")
            if value != nil { XCTAssertEqual(r?.exact, exact, "\(text) as \(type)") }
        }
        check("5", .integer32, .integer(5))
        check("NO", .integer32, .integer(0), exact: false)
        check("YES", .integer16, .integer(1), exact: false)
        check("0.0", .integer64, .integer(0), exact: false)
        check("YES", .double, .double(1), exact: false)
        check("3.25", .float, .double(3.25))
        check("1.5x", .decimal, .decimal(Decimal(string: "1.5")!), exact: false)
        check("x", .decimal, .decimal(0), exact: false)
        check("NO", .boolean, .boolean(false))
        check("1", .boolean, .boolean(true))
        check("true", .boolean, .boolean(true), exact: false)
        check("anything", .string, .string("anything"))
        check("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        check("nope", .uuid, nil)
        check("https://example.com/a", .uri, .uri("https://example.com/a"))
        check("not a uri", .uri, nil)
        check("1", .binaryData, nil)
        check("1", .transformable, nil)
        check("1", .undefined, nil)
    }
}
