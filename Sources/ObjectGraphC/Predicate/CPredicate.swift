import FoundationEssentials
import ObjectGraph

// og_predicate_*, and the composite og_value kinds predicates take as arguments and
// evaluate against: arrays, dictionaries, managed objects, object IDs and entities.

func contents(_ items: UnsafePointer<OpaquePointer?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [PredicateValue] {
    guard count >= 0 else { throw .invalidArgument("the number of \(what) is negative") }
    if count == 0 { return [] }
    guard let items else { throw .invalidArgument("the \(what) array is NULL but the count is \(count)") }
    var out: [PredicateValue] = []
    for i in 0..<count { out.append(try handles.get(items[i], ValueBox.self).content) }
    return out
}

func names(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [String] {
    guard count >= 0 else { throw .invalidArgument("the number of \(what) is negative") }
    if count == 0 { return [] }
    guard let list else { throw .invalidArgument("the \(what) array is NULL but the count is \(count)") }
    var out: [String] = []
    for i in 0..<count { out.append(try string(list[i], "\(what) \(i)")) }
    return out
}

func variables(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<OpaquePointer?>?, _ count: Int) throws(ObjectGraphError) -> [String: PredicateValue] {
    let k = try names(keys, count, "variable name")
    let v = try contents(values, count, "variable values")
    return Dictionary(zip(k, v), uniquingKeysWith: { _, last in last })
}

extension PredicateValue {
    var isDictionary: Bool { if case .dictionary = self { true } else { false } }
}

@_cdecl("og_predicate_parse")
public func og_predicate_parse(_ format: UnsafePointer<CChar>?, _ args: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let p = try ObjectPredicate(format: try string(format, "the format"), arguments: try contents(args, count, "arguments"))
        return handles.make(PredicateBox(p))
    }
}

@_cdecl("og_predicate_new_comparison")
public func og_predicate_new_comparison(_ keyPath: UnsafePointer<CChar>?, _ op: Int32, _ value: OpaquePointer?,
                                        _ options: Int32, _ quantifier: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let operators: [Int32: ComparisonOperator] = [
            0: .lessThan, 1: .lessThanOrEqual, 2: .greaterThan, 3: .greaterThanOrEqual, 4: .equal, 5: .notEqual,
            6: .matches, 7: .like, 8: .beginsWith, 9: .endsWith, 10: .in, 99: .contains, 100: .between,
        ]
        guard let o = operators[op] else { throw .invalidArgument("\(op) is not an og_comparison_operator") }
        let quantifiers: [Int32: ComparisonQuantifier] = [0: .direct, 1: .all, 2: .any]
        guard let q = quantifiers[quantifier] else { throw .invalidArgument("\(quantifier) is not an og_quantifier") }
        guard options & ~7 == 0 else { throw .invalidArgument("\(options) has bits that are not og_comparison_options") }
        let path = try string(keyPath, "the key path")
        guard !path.isEmpty else { throw .invalidArgument("the key path is empty") }
        let right = try handles.get(value, ValueBox.self).content
        return handles.make(PredicateBox(.compare(
            .key(path), o, .constant(right), quantifier: q, options: StringCompareOptions(rawValue: Int(options)))))
    }
}

@_cdecl("og_predicate_new_compound")
public func og_predicate_new_compound(_ type: Int32, _ parts: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        guard count >= 0, count == 0 || parts != nil else { throw .invalidArgument("the predicate array is NULL or the count is negative") }
        var list: [ObjectPredicate] = []
        for i in 0..<count { list.append(try handles.get(parts![i], PredicateBox.self).predicate) }
        switch type {
        case 0:
            guard list.count == 1 else { throw .invalidArgument("NOT takes exactly one predicate, not \(list.count)") }
            return handles.make(PredicateBox(.not(list[0])))
        case 1: return handles.make(PredicateBox(list.isEmpty ? .truePredicate : .and(list)))
        case 2: return handles.make(PredicateBox(list.isEmpty ? .falsePredicate : .or(list)))
        default: throw .invalidArgument("\(type) is not an og_compound_type")
        }
    }
}

@_cdecl("og_predicate_format")
public func og_predicate_format(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) { return UnsafePointer(try handles.get(p, PredicateBox.self).format.pointer) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_predicate_equal")
public func og_predicate_equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
    guard let x = try? handles.get(a, PredicateBox.self), let y = try? handles.get(b, PredicateBox.self) else { return false }
    return x.predicate == y.predicate
}

@_cdecl("og_predicate_evaluate")
public func og_predicate_evaluate(_ p: OpaquePointer?, _ object: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                  _ values: UnsafePointer<OpaquePointer?>?, _ count: Int, _ out: UnsafeMutablePointer<Bool>?,
                                  _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let predicate = try handles.get(p, PredicateBox.self).predicate
        let target = try handles.get(object, ValueBox.self).content
        let out = try required(out, "out")
        out.pointee = try predicate.evaluate(with: target, variables: try variables(keys, values, count))
        return OG_OK
    }
}

@_cdecl("og_predicate_substitute")
public func og_predicate_substitute(_ p: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                    _ values: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let predicate = try handles.get(p, PredicateBox.self).predicate
        return handles.make(PredicateBox(try predicate.substituting(try variables(keys, values, count))))
    }
}

@_cdecl("og_predicate_release")
public func og_predicate_release(_ p: OpaquePointer?) {
    handles.release(p, PredicateBox.self)
}
