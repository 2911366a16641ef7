import Foundation
@testable import ObjectGraph
import XCTest

/// Runs every case of Tests/Predicates/cases.json (shared with the C test and the pytest):
/// parse with the typed arguments, compare the canonical text, check that it parses back to
/// an equal predicate, and evaluate against the case's object and variables.
final class PredicateTableTests: XCTestCase {
    static let tablePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Predicates/cases.json").path

    static let errorCodes = [
        "parse": ErrorCode.predicateSyntax, "argument": ErrorCode.predicateArgument,
        "variable": ErrorCode.predicateVariable, "evaluate": ErrorCode.predicateEvaluation,
    ]

    func testTable() throws {
        guard case .object(let root) = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: Self.tablePath))),
            case .array(let cases)? = root["cases"]
        else { return XCTFail("cannot read \(Self.tablePath)") }
        XCTAssertGreaterThanOrEqual(cases.count, 400)
        var failures: [String] = []
        for case .object(let c) in cases {
            if let failure = run(c) { failures.append(failure) }
        }
        for f in failures.prefix(60) { XCTFail(f) }
        print("predicate table: \(cases.count) cases, \(failures.count) failures")
    }

    private func run(_ c: [String: JSONValue]) -> String? {
        guard case .string(let id)? = c["id"], case .string(let format)? = c["format"] else { return "malformed case \(c)" }
        var args: [PredicateValue] = []
        if case .array(let list)? = c["args"] { args = list.map(Self.typedArgument) }
        let object = c["object"].map(Self.plainValue) ?? .dictionary([:])
        var variables: [String: PredicateValue] = [:]
        if case .object(let v)? = c["variables"] { variables = v.mapValues(Self.plainValue) }
        var expectedError: Int? = nil
        if case .string(let kind)? = c["error"] { expectedError = Self.errorCodes[kind] }

        let predicate: ObjectPredicate
        do throws(ObjectGraphError) {
            predicate = try ObjectPredicate(format: format, arguments: args)
        } catch {
            return error.code == expectedError ? nil : "\(id): \(format) failed to parse: \(error)"
        }
        if case .string(let canonical)? = c["canonical"], predicate.predicateFormat != canonical {
            return "\(id): \(format) prints as\n  \(predicate.predicateFormat)\nexpected\n  \(canonical)"
        }
        do {
            let again = try ObjectPredicate(format: predicate.predicateFormat)
            if again != predicate { return "\(id): \(predicate.predicateFormat) parses back to a different predicate \(again)" }
        } catch { return "\(id): the canonical text \(predicate.predicateFormat) does not parse: \(error)" }
        do throws(ObjectGraphError) {
            let result = try predicate.evaluate(with: object, variables: variables)
            if let expectedError { return "\(id): \(format) evaluated to \(result), expected error \(expectedError)" }
            if case .bool(let expected)? = c["result"], expected != result {
                return "\(id): \(format) on \(object) gave \(result), expected \(expected)"
            }
        } catch {
            if error.code != expectedError { return "\(id): \(format) failed to evaluate: \(error)" }
        }
        return nil
    }

    /// `{"int": 3}`, `{"string": "x"}`, `{"key": "a.b"}`, `{"date": s}`, `{"array": […]}` …
    static func typedArgument(_ v: JSONValue) -> PredicateValue {
        guard case .object(let o) = v, let (kind, value) = o.first else { return .null }
        switch (kind, value) {
        case ("int", .integer(let i)): return .scalar(.integer(i))
        case ("double", .number(let d)): return .scalar(.double(d))
        case ("double", .integer(let i)): return .scalar(.double(Double(i)))
        case ("bool", .bool(let b)): return .scalar(.boolean(b))
        case ("string", .string(let s)), ("key", .string(let s)): return .scalar(.string(s))
        case ("date", .number(let d)): return .scalar(.date(Date(timeIntervalSinceReferenceDate: d)))
        case ("date", .integer(let i)): return .scalar(.date(Date(timeIntervalSinceReferenceDate: Double(i))))
        case ("array", .array(let items)): return .collection(items.map(typedArgument))
        default: return .null
        }
    }

    /// Plain JSON as a predicate value; `{"$date": s}` is a date.
    static func plainValue(_ v: JSONValue) -> PredicateValue {
        switch v {
        case .null: return .null
        case .bool(let b): return .scalar(.boolean(b))
        case .integer(let i): return .scalar(.integer(i))
        case .number(let d): return .scalar(.double(d))
        case .string(let s): return .scalar(.string(s))
        case .array(let items): return .collection(items.map(plainValue))
        case .object(let o):
            if o.count == 1, let d = o["$date"] {
                switch d {
                case .integer(let i): return .scalar(.date(Date(timeIntervalSinceReferenceDate: Double(i))))
                case .number(let x): return .scalar(.date(Date(timeIntervalSinceReferenceDate: x)))
                default: break
                }
            }
            return .dictionary(o.mapValues(plainValue))
        }
    }
}
