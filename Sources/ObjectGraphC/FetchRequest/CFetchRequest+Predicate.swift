import FoundationEssentials
import ObjectGraph

// og_fetch_request_* functions that go with predicate: this handle family's part of that concern.

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
