import FoundationEssentials
import ObjectGraph

// og_fetch_request_* functions that go with store routing: this handle family's part of that concern.

@_cdecl("og_fetch_request_set_affected_stores")
public func og_fetch_request_set_affected_stores(_ r: OpaquePointer?, _ list: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let request = try handles.get(r, FetchRequestBox.self).request
        guard count >= 0 else { throw .invalidArgument("the count is negative") }
        var stores: [PersistentStore] = []
        if count > 0 {
            guard let list else { throw .invalidArgument("the store array is NULL but the count is \(count)") }
            for i in 0..<count { stores.append(try handles.get(list[i], StoreBox.self).store) }
        }
        request.affectedStores = stores.isEmpty ? nil : stores
        return OG_OK
    }
}
