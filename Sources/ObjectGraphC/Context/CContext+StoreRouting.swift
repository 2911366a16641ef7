import FoundationEssentials
import ObjectGraph

// og_context_* functions that go with store routing: this handle family's part of that concern.

@_cdecl("og_context_assign_object")
public func og_context_assign_object(_ x: OpaquePointer?, _ o: OpaquePointer?, _ s: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let context = try handles.get(x, ContextBox.self).context
        try context.assign(try handles.get(o, ManagedObject.self), to: try handles.get(s, StoreBox.self).store)
        return OG_OK
    }
}
