import ObjectGraph
import XCTest

final class PredicateSmokeTests: XCTestCase {
    func check(_ format: String, _ args: [PredicateValue] = [], _ object: PredicateValue, _ expected: Bool, canonical: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let p = try ObjectPredicate(format: format, arguments: args)
        XCTAssertEqual(try p.evaluate(with: object), expected, format, file: file, line: line)
        if let canonical { XCTAssertEqual(p.predicateFormat, canonical, file: file, line: line) }
        let again = try ObjectPredicate(format: p.predicateFormat)
        XCTAssertEqual(again, p, "round trip of \(p.predicateFormat)", file: file, line: line)
    }

    func testBasics() throws {
        let person: PredicateValue = ["name": "Zoë", "age": 31, "tags": ["a", "b"], "books": [["pages": 10], ["pages": 30]]]
        try check("age > 30", [], person, true, canonical: "age > 30")
        try check("age = %d AND name ==[cd] 'ZOE'", [31], person, true, canonical: "age == 31 AND name ==[cd] \"ZOE\"")
        try check("(age < 3 or age > 40) || NOT name BEGINSWITH 'Z'", [], person, false, canonical: "(age < 3 OR age > 40) OR (NOT name BEGINSWITH \"Z\")")
        try check("ANY books.pages > 20", [], person, true)
        try check("ALL books.pages > 20", [], person, false)
        try check("NONE books.pages > 40", [], person, true, canonical: "NOT ANY books.pages > 40")
        try check("books.@sum.pages == 40", [], person, true)
        try check("books.@count BETWEEN {1, 2}", [], person, true, canonical: "books.@count BETWEEN {1, 2}")
        try check("SUBQUERY(books, $b, $b.pages > 20).@count == 1", [], person, true)
        try check("%K LIKE 'Z?*'", ["name"], person, true, canonical: "name LIKE \"Z?*\"")
        try check("name MATCHES '[A-Z].*'", [], person, true)
        try check("(age + 1) * 2 == 64", [], person, true, canonical: "(age + 1) * 2 == 64")
        try check("'a' IN tags AND tags CONTAINS 'b'", [], person, true)
        try check("missing == nil", [], person, true, canonical: "missing == nil")
        try check("uppercase(name) == 'ZOË'", [], person, true, canonical: "uppercase:(name) == \"ZOË\"")
        try check("straße ==[c] 'STRASSE'", [], ["straße": "Straße"], true, canonical: "straße ==[c] \"STRASSE\"")
    }

    /// Inputs the fuzzer found: each must be an error or round-trip, never a crash.
    func testFuzzerFindings() throws {
        XCTAssertEqual(expectError { _ = try ObjectPredicate(format: "r=5e34444") }?.code, ErrorCode.predicateSyntax)
        // A combining mark after "@" or "." stays a separate scalar of the key path.
        for format in ["@\u{65E}2BCnal_hd == 6", "a.\u{65E}b == 1"] {
            let p = try ObjectPredicate(format: format)
            XCTAssertEqual(try ObjectPredicate(format: p.predicateFormat), p, format)
        }
        // A key read from a number prints with brackets, so "2." is not read as a number.
        let numberBase = try ObjectPredicate(format: "a= 2.CAST")
        XCTAssertEqual(numberBase.predicateFormat, "a == (2).#CAST")
        XCTAssertEqual(try ObjectPredicate(format: numberBase.predicateFormat), numberBase)
        // Deep brackets parse in linear time, and too deep is an error, not a crash.
        let nested = String(repeating: "(", count: 200) + "a > 1" + String(repeating: ")", count: 200)
        XCTAssertEqual(try ObjectPredicate(format: nested).predicateFormat, "a > 1")
        let tooDeep = String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000) + " > 1"
        XCTAssertEqual(expectError { _ = try ObjectPredicate(format: tooDeep) }?.code, ErrorCode.predicateSyntax)
        XCTAssertEqual(expectError { _ = try ObjectPredicate(format: String(repeating: "NOT ", count: 10000) + "a > 1") }?.code, ErrorCode.predicateSyntax)
        // A chain of prefix operators prints without brackets, so it parses back within the depth bound.
        let chain = "sum({2, " + String(repeating: "~", count: 200) + "1}) == 1"
        let chained = try ObjectPredicate(format: chain)
        XCTAssertEqual(try ObjectPredicate(format: chained.predicateFormat), chained)
        // A long machine-made chain stays flat, so its text parses back whatever its length.
        let chainOfOrs = (1...2000).map { "id == \($0)" }.joined(separator: " OR ")
        let ors = try ObjectPredicate(format: chainOfOrs)
        XCTAssertEqual(ors.predicateFormat, chainOfOrs)
        XCTAssertEqual(try ObjectPredicate(format: ors.predicateFormat), ors)
        let nots = String(repeating: "NOT ", count: 200) + "a > 1"
        let negated = try ObjectPredicate(format: nots)
        XCTAssertEqual(try ObjectPredicate(format: negated.predicateFormat), negated)
        let escaped = try ObjectPredicate(format: "#0 > ss")
        XCTAssertEqual(escaped.predicateFormat, "#0 > ss")
        XCTAssertEqual(try ObjectPredicate(format: escaped.predicateFormat), escaped)
        // An index that is a key spelled like comparison options prints escaped: "name[c]"
        // alone reads as options in the wrong place.
        for (format, printed) in [("name [#c]== 'mag'", "name[#c] == \"mag\""), ("a[#CD] > 1", "a[#CD] > 1"), ("a[#n.x] > 1", "a[n.x] > 1")] {
            let p = try ObjectPredicate(format: format)
            XCTAssertEqual(p.predicateFormat, printed, format)
            XCTAssertEqual(try ObjectPredicate(format: p.predicateFormat), p, format)
        }
    }

    func testEvaluationErrorsNameTheComparisonKeyPathAndTypes() {
        let error = expectError { _ = try ObjectPredicate(format: "name > 3").evaluate(with: ["name": "Ann"]) }
        XCTAssertEqual(error?.code, ErrorCode.predicateEvaluation)
        XCTAssertEqual(error?.message, "in 'name > 3': cannot compare a string with an integer")
        XCTAssertEqual(error?.userInfoValue(forKey: ErrorUserInfoKey.validationKey), "name")
    }

    /// Xcode writes length rules as predicates on the string's `length`, evaluated with the
    /// value as SELF.
    func testStringLengthReadsLikeNSString() throws {
        XCTAssertTrue(try ObjectPredicate(format: "length >= 3 AND length <= 5").evaluate(with: "abcd"))
        XCTAssertFalse(try ObjectPredicate(format: "(length >= 3 AND length <= 50)").evaluate(with: "ab"))
        XCTAssertTrue(try ObjectPredicate(format: "name.length == 3").evaluate(with: ["name": "Zoë"]))
    }

    func testErrors() throws {
        XCTAssertThrowsError(try ObjectPredicate(format: "age > ")) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateSyntax)
            XCTAssertTrue((e as? ObjectGraphError)?.message.contains("position 6") ?? false, "\(e)")
        }
        XCTAssertThrowsError(try ObjectPredicate(format: "age > %@")) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateArgument)
        }
        XCTAssertThrowsError(try ObjectPredicate(format: "age > $x").evaluate(with: [:])) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateVariable)
        }
        // Any selector parses and prints (models carry such predicates); calling one off
        // the allow-list is an evaluation error.
        let unknown = try ObjectPredicate(format: "FUNCTION(SELF, 'deleteEverything') == 1")
        XCTAssertEqual(unknown.predicateFormat, "FUNCTION(SELF, \"deleteEverything\") == 1")
        XCTAssertThrowsError(try unknown.evaluate(with: ["a": 1])) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateEvaluation)
            XCTAssertTrue((e as? ObjectGraphError)?.message.contains("not allowed") ?? false, "\(e)")
        }
        // BETWEEN with the wrong number of bounds parses and fails when evaluated.
        let three = try ObjectPredicate(format: "age BETWEEN {1, 2, 3}")
        XCTAssertThrowsError(try three.evaluate(with: ["age": 2])) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateEvaluation)
            XCTAssertTrue((e as? ObjectGraphError)?.message.contains("got 3 bounds") ?? false, "\(e)")
        }
        XCTAssertThrowsError(try ObjectPredicate(format: "FUNCTION(SELF, 'length', 1) == 1")) { e in
            XCTAssertEqual((e as? ObjectGraphError)?.code, ErrorCode.predicateSyntax)
        }
    }
}
