import ObjectGraph

/// One fuzzing input: parse it as a format string (with a few arguments for its
/// specifiers), and when it parses, print it, parse the printed form back, and evaluate
/// both on a small object. Parse and evaluation errors are expected; crashes, hangs and
/// a canonical text that does not parse back are the findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let arguments: [PredicateValue] = ["name", 3, 2.5, ["a", 1], "x.y", true, nil]
    guard let predicate = try? ObjectPredicate(format: text, arguments: arguments) else { return 0 }
    let printed = predicate.predicateFormat
    let again: ObjectPredicate
    do {
        again = try ObjectPredicate(format: printed)
    } catch {
        // Foundation brackets every operator operand, so a long left-nested arithmetic
        // chain prints deeper than it was written; past the nesting bound that is a
        // documented syntax error, not a finding.
        if error.code == ErrorCode.predicateSyntax, error.message.contains("nested more than") { return 0 }
        fatalError("the canonical text of \(text.debugDescription) does not parse: \(printed.debugDescription): \(error)")
    }
    if again != predicate {
        fatalError("\(text.debugDescription) prints as \(printed.debugDescription), which parses to a different predicate")
    }
    let object: PredicateValue = [
        "name": "Zoë", "age": 31, "score": 2.5, "tags": ["a", "b"],
        "pets": [["name": "Rex", "age": 3], ["name": "Ω", "age": nil]], "team": ["name": "Blue"],
    ]
    _ = try? predicate.evaluate(with: object, variables: ["x": 1, "name": "Zoë"])
    return 0
}

/// SwiftPM links an executable's entry point under the name `<target>_main`; hand it to
/// libFuzzer's driver, which parses the command line and runs the fuzzing loop.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("fuzz_predicate_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzPredicate)
}
