import ObjectGraph

// og_context_* functions that go with bulk read: this handle family's part of that concern.

@_cdecl("og_context_change_counter")
public func og_context_change_counter(_ c: OpaquePointer?) -> UnsafePointer<UInt64>? {
    (try? handles.get(c, ContextBox.self))?.context.valueChangeCounter
}

@_cdecl("og_context_on_next_value_change")
public func og_context_on_next_value_change(_ c: OpaquePointer?, _ callback: BlockCallback?, _ user: UnsafeMutableRawPointer?,
                                            _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextBox(c).context
        guard let callback else {
            try x.onNextValueChange(nil)
            return OG_OK
        }
        let carried = Carried(callback: callback, user: user)
        try x.onNextValueChange { carried.callback(carried.user) }
        return OG_OK
    }
}
