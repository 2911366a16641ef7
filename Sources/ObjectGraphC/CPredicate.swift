import FoundationEssentials
import ObjectGraph

// og_predicate_*, and the composite og_value kinds predicates take as arguments and
// evaluate against: arrays, dictionaries, managed objects, object IDs and entities.

private func contents(_ items: UnsafePointer<OpaquePointer?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [PredicateValue] {
    guard count >= 0 else { throw .invalidArgument("the number of \(what) is negative") }
    if count == 0 { return [] }
    guard let items else { throw .invalidArgument("the \(what) array is NULL but the count is \(count)") }
    var out: [PredicateValue] = []
    for i in 0..<count { out.append(try handles.get(items[i], ValueBox.self).content) }
    return out
}

private func names(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [String] {
    guard count >= 0 else { throw .invalidArgument("the number of \(what) is negative") }
    if count == 0 { return [] }
    guard let list else { throw .invalidArgument("the \(what) array is NULL but the count is \(count)") }
    var out: [String] = []
    for i in 0..<count { out.append(try string(list[i], "\(what) \(i)")) }
    return out
}

private func variables(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<OpaquePointer?>?, _ count: Int) throws(ObjectGraphError) -> [String: PredicateValue] {
    let k = try names(keys, count, "variable name")
    let v = try contents(values, count, "variable values")
    return Dictionary(zip(k, v), uniquingKeysWith: { _, last in last })
}

@_cdecl("og_value_new_array")
public func og_value_new_array(_ items: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(content: .collection(try contents(items, count, "items")))) }
}

@_cdecl("og_value_new_dictionary")
public func og_value_new_dictionary(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<OpaquePointer?>?,
                                    _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ValueBox(content: .dictionary(try variables(keys, values, count))))
    }
}

@_cdecl("og_value_new_object")
public func og_value_new_object(_ o: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in 
        handles.make(ValueBox(content: .object(try handles.get(o, ManagedObject.self)), owner: try handles.owner(of: o)))
    }
}

@_cdecl("og_value_new_object_id")
public func og_value_new_object_id(_ o: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in objectIDValue(try handles.get(o, ManagedObject.self).objectID) }
}

@_cdecl("og_value_new_object_id_uri")
public func og_value_new_object_id_uri(_ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let text = try string(uri, "the URI")
        guard let id = ObjectIDReference(uriRepresentation: text) else {
            throw .invalidArgument("'\(text)' is not an object ID URI (x-coredata://<store>/<Entity>/p<key> or x-coredata:///<Entity>/t<id>)")
        }
        return handles.make(ValueBox(content: .object(id)))
    }
}

@_cdecl("og_value_new_entity")
public func og_value_new_entity(_ e: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(content: .object(try handles.get(e, EntityBox.self).entity))) }
}

@_cdecl("og_value_count")
public func og_value_count(_ v: OpaquePointer?) -> Int {
    guard let box = try? handles.get(v, ValueBox.self) else { return 0 }
    switch box.content {
    case .collection(let items): return items.count
    case .dictionary(let d): return d.count
    default: return box.fields?.count ?? 0
    }
}

@_cdecl("og_value_item_at")
public func og_value_item_at(_ v: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let items: [PredicateValue]
        switch box.content {
        case .collection(let c): items = c
        case .dictionary(let d): items = box.keys.map { d[$0]! }
        default:
            guard let fields = box.fields else { throw .invalidArgument("the value is a \(box.content.kindName), not an array or dictionary") }
            items = fields.map(\.1)
        }
        guard index >= 0, index < items.count else { throw .invalidArgument("index \(index) is out of range (there are \(items.count))") }
        return handles.make(ValueBox(content: items[index], owner: box.owner))
    }
}

@_cdecl("og_value_key_at")
public func og_value_key_at(_ v: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(v, ValueBox.self)
        guard box.content.isDictionary || box.fields != nil else {
            throw ObjectGraphError.invalidArgument("the value is a \(box.content.kindName), not a dictionary")
        }
        guard index >= 0, index < box.keys.count else { throw ObjectGraphError.invalidArgument("index \(index) is out of range (there are \(box.keys.count))") }
        return UnsafePointer(box.cKeys[index].pointer)
    } catch {
        report(error, err)
        return nil
    }
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

@_cdecl("og_fetch_request_set_predicate")
public func og_fetch_request_set_predicate(_ r: OpaquePointer?, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try handles.get(r, FetchRequestBox.self).request
        request.predicate = p == nil ? nil : try handles.get(p, PredicateBox.self).predicate
        return OG_OK
    }
}

@_cdecl("og_fetch_request_add_sort_comparison")
public func og_fetch_request_add_sort_comparison(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ ascending: Bool,
                                                 _ comparison: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try handles.get(r, FetchRequestBox.self).request
        let comparisons: [Int32: SortComparison] = [0: .compare, 1: .caseInsensitiveCompare, 2: .localizedStandardCompare]
        guard let c = comparisons[comparison] else { throw .invalidArgument("\(comparison) is not an og_sort_comparison") }
        request.sortKeys.append(SortKey(try string(key, "the sort key"), ascending: ascending, comparison: c))
        return OG_OK
    }
}

@_cdecl("og_model_fetch_request_from_template")
public func og_model_fetch_request_from_template(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                                 _ values: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        let request = try model.fetchRequest(fromTemplateNamed: try string(name, "the template name"),
                                             substitutionVariables: try variables(keys, values, count))
        return handles.make(FetchRequestBox(request))
    }
}
