import ObjectGraph

// og_results_* functions that go with context: this handle family's part of that concern.

@_cdecl("og_results_count")
public func og_results_count(_ r: OpaquePointer?) -> Int {
    (try? handles.get(r, ResultsBox.self))?.objects.count ?? 0
}

@_cdecl("og_results_object_at")
public func og_results_object_at(_ r: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    // The common case in one lock: the result's objects lent already, this one not given back since.
    if let lent = handles.withBox(r, ResultsBox.self, { results in
        results.lentAll && index >= 0 && index < results.objects.count
            ? handles.lentHandleLocked(of: results.objects[index], by: results.contextHandle) : nil
    }) {
        return lent
    }
    return handle(err) { () throws(ObjectGraphError) in
        let results = try handles.get(r, ResultsBox.self)
        guard index >= 0, index < results.objects.count else {
            throw .invalidArgument("result index \(index) is out of range (there are \(results.objects.count))")
        }
        // The first object asked for lends them all; one given back since is lent again alone.
        if try !handles.withLock({ () throws(ObjectGraphError) in results.lentAll }) { try results.lendAll() }
        return try lendObject(results.objects[index], from: results.contextHandle)
    }
}

@_cdecl("og_results_release")
public func og_results_release(_ r: OpaquePointer?) {
    handles.release(r, ResultsBox.self)
}
