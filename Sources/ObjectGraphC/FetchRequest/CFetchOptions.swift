import ObjectGraph

// og_fetch_request_* options of object fetches: window, batch size, subentities, pending
// changes, property values, faults and prefetching (include/objectgraph.h documents them).

/// The request behind a handle (every og_fetch_request_* call starts here).
func fetchRequest(_ r: OpaquePointer?) throws(ObjectGraphError) -> FetchRequest {
    try handles.get(r, FetchRequestBox.self).request
}

/// Sets one count option; a size_t beyond Int's range arrives negative and is refused.
func setCount(_ r: OpaquePointer?, _ n: Int, _ err: ErrorOut, _ set: (FetchRequest, Int) -> Void) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        guard n >= 0 else { throw .invalidArgument("a fetch limit, offset or batch size cannot be negative") }
        set(try fetchRequest(r), n)
        return OG_OK
    }
}

func getCount(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut, _ get: (FetchRequest) -> Int) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try fetchRequest(r)
        try required(out, "out").pointee = get(request)
        return OG_OK
    }
}

func setFlag(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut, _ set: (FetchRequest, Bool) -> Void) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        set(try fetchRequest(r), on)
        return OG_OK
    }
}

func getFlag(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut, _ get: (FetchRequest) -> Bool) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try fetchRequest(r)
        try required(out, "out").pointee = get(request)
        return OG_OK
    }
}

@_cdecl("og_fetch_request_set_limit")
public func og_fetch_request_set_limit(_ r: OpaquePointer?, _ n: Int, _ err: ErrorOut) -> Int32 {
    setCount(r, n, err) { $0.fetchLimit = $1 }
}

@_cdecl("og_fetch_request_limit")
public func og_fetch_request_limit(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    getCount(r, out, err) { $0.fetchLimit }
}

@_cdecl("og_fetch_request_set_offset")
public func og_fetch_request_set_offset(_ r: OpaquePointer?, _ n: Int, _ err: ErrorOut) -> Int32 {
    setCount(r, n, err) { $0.fetchOffset = $1 }
}

@_cdecl("og_fetch_request_offset")
public func og_fetch_request_offset(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    getCount(r, out, err) { $0.fetchOffset }
}

@_cdecl("og_fetch_request_set_batch_size")
public func og_fetch_request_set_batch_size(_ r: OpaquePointer?, _ n: Int, _ err: ErrorOut) -> Int32 {
    setCount(r, n, err) { $0.fetchBatchSize = $1 }
}

@_cdecl("og_fetch_request_batch_size")
public func og_fetch_request_batch_size(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    getCount(r, out, err) { $0.fetchBatchSize }
}

@_cdecl("og_fetch_request_set_includes_subentities")
public func og_fetch_request_set_includes_subentities(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.includesSubentities = $1 }
}

@_cdecl("og_fetch_request_includes_subentities")
public func og_fetch_request_includes_subentities(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.includesSubentities }
}

@_cdecl("og_fetch_request_set_includes_pending_changes")
public func og_fetch_request_set_includes_pending_changes(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.includesPendingChanges = $1 }
}

@_cdecl("og_fetch_request_includes_pending_changes")
public func og_fetch_request_includes_pending_changes(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.includesPendingChanges }
}

@_cdecl("og_fetch_request_set_includes_property_values")
public func og_fetch_request_set_includes_property_values(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.includesPropertyValues = $1 }
}

@_cdecl("og_fetch_request_includes_property_values")
public func og_fetch_request_includes_property_values(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.includesPropertyValues }
}

@_cdecl("og_fetch_request_set_returns_objects_as_faults")
public func og_fetch_request_set_returns_objects_as_faults(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.returnsObjectsAsFaults = $1 }
}

@_cdecl("og_fetch_request_returns_objects_as_faults")
public func og_fetch_request_returns_objects_as_faults(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.returnsObjectsAsFaults }
}

@_cdecl("og_fetch_request_add_prefetch_key_path")
public func og_fetch_request_add_prefetch_key_path(_ r: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try fetchRequest(r)
        let keyPath = try string(path, "key_path")
        guard !keyPath.isEmpty else { throw .invalidArgument("a prefetching key path cannot be empty") }
        request.relationshipKeyPathsForPrefetching.append(keyPath)
        return OG_OK
    }
}

@_cdecl("og_fetch_request_prefetch_key_path_count")
public func og_fetch_request_prefetch_key_path_count(_ r: OpaquePointer?) -> Int {
    (try? fetchRequest(r))?.relationshipKeyPathsForPrefetching.count ?? 0
}

// Reading a request back: what an incremental store's execute_fetch is given.

@_cdecl("og_fetch_request_entity_name")
public func og_fetch_request_entity_name(_ r: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(r, FetchRequestBox.self)).map { UnsafePointer($0.lent($0.request.entityName).pointer) }
}

@_cdecl("og_fetch_request_predicate")
public func og_fetch_request_predicate(_ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        guard let p = try handles.get(r, FetchRequestBox.self).request.predicate else { return nil }
        return handles.make(PredicateBox(p))
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_fetch_request_sort_count")
public func og_fetch_request_sort_count(_ r: OpaquePointer?) -> Int {
    (try? handles.get(r, FetchRequestBox.self))?.request.sortKeys.count ?? 0
}

@_cdecl("og_fetch_request_sort_key_at")
public func og_fetch_request_sort_key_at(_ r: OpaquePointer?, _ index: Int, _ ascending: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(r, FetchRequestBox.self)
        let keys = box.request.sortKeys
        guard index >= 0, index < keys.count else {
            throw .invalidArgument("sort index \(index) is out of range (the request has \(keys.count))")
        }
        ascending?.pointee = keys[index].ascending
        return UnsafePointer(box.lent(keys[index].key).pointer)
    } catch {
        report(error, err)
        return nil
    }
}
