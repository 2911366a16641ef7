import FoundationEssentials
import ObjectGraph

// og_store_* functions that go with store routing: this handle family's part of that concern.

@_cdecl("og_store_configuration")
public func og_store_configuration(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self))?.configuration.map { UnsafePointer($0.pointer) }
}

@_cdecl("og_store_options")
public func og_store_options(_ s: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ValueBox(content: boxed(.dictionary(try handles.get(s, StoreBox.self).store.options))))
    }
}
