import ObjectGraph

// og_property_* functions that go with model renaming: this handle family's part of that concern.

@_cdecl("og_property_set_name")
public func og_property_set_name(_ p: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        try handles.get(p, PropertyBox.self).property.setName(try string(name, "the name"))
    }
}
