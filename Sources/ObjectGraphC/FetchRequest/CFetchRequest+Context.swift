import ObjectGraph

// og_fetch_request_* functions that go with context: this handle family's part of that concern.

@_cdecl("og_fetch_request_new")
public func og_fetch_request_new(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(FetchRequestBox(FetchRequest(entityName: try string(name, "the entity name"))))
    }
}

@_cdecl("og_fetch_request_add_sort")
public func og_fetch_request_add_sort(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ ascending: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try handles.get(r, FetchRequestBox.self).request
        request.sortKeys.append(SortKey(try string(key, "the sort key"), ascending: ascending))
        return OG_OK
    }
}

@_cdecl("og_fetch_request_release")
public func og_fetch_request_release(_ r: OpaquePointer?) {
    handles.release(r, FetchRequestBox.self)
}
