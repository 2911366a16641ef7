import ObjectGraph

// og_fetch_request_copy and shouldRefreshRefetchedObjects (include/objectgraph.h documents them).

@_cdecl("og_fetch_request_copy")
public func og_fetch_request_copy(_ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(FetchRequestBox(try fetchRequest(r).copy()))
    }
}

@_cdecl("og_fetch_request_set_refreshes_refetched_objects")
public func og_fetch_request_set_refreshes_refetched_objects(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.shouldRefreshRefetchedObjects = $1 }
}

@_cdecl("og_fetch_request_refreshes_refetched_objects")
public func og_fetch_request_refreshes_refetched_objects(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.shouldRefreshRefetchedObjects }
}
