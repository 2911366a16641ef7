import ObjectGraph

// og_entity_set_name and og_property_set_name: renaming before the model is used
// (include/objectgraph.h documents them).

@_cdecl("og_entity_set_name")
public func og_entity_set_name(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        try handles.get(e, EntityBox.self).entity.setName(try string(name, "the name"))
    }
}
