import ObjectGraph

// og_*_store_type_* functions that go with coordinator: this handle family's part of that concern.

@_cdecl("og_store_type")
public func og_store_type(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.type.pointer) }
}
