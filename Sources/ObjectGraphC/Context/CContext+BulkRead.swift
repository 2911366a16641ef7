import ObjectGraph

// og_context_* functions that go with bulk read: this handle family's part of that concern.

@_cdecl("og_context_change_counter")
public func og_context_change_counter(_ c: OpaquePointer?) -> UnsafePointer<UInt64>? {
    (try? handles.get(c, ContextBox.self))?.context.valueChangeCounter
}
