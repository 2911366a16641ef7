import ObjectGraph

// og_property_mapping_* functions that go with mapping model: this handle family's part of that concern.

@_cdecl("og_property_mapping_new")
public func og_property_mapping_new(_ name: UnsafePointer<CChar>?, _ expression: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let n = try string(name, "the property mapping's name")
        return handles.make(PropertyMappingBox(PropertyMapping(name: n, valueExpression: try optionalString(expression, "the value expression"))))
    }
}

@_cdecl("og_property_mapping_release")
public func og_property_mapping_release(_ p: OpaquePointer?) {
    handles.release(p, PropertyMappingBox.self)
}

@_cdecl("og_property_mapping_name")
public func og_property_mapping_name(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyMapping(p).name }
}

@_cdecl("og_property_mapping_set_name")
public func og_property_mapping_set_name(_ p: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try propertyMapping(p).name = try string(name, "the property mapping's name") }
}

@_cdecl("og_property_mapping_value_expression")
public func og_property_mapping_value_expression(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyMapping(p).valueExpression }
}

@_cdecl("og_property_mapping_set_value_expression")
public func og_property_mapping_set_value_expression(_ p: OpaquePointer?, _ expression: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        try propertyMapping(p).valueExpression = try optionalString(expression, "the value expression")
    }
}

@_cdecl("og_property_mapping_user_info_count")
public func og_property_mapping_user_info_count(_ p: OpaquePointer?) -> Int { (try? propertyMapping(p))?.userInfo.count ?? 0 }

@_cdecl("og_property_mapping_user_info_key_at")
public func og_property_mapping_user_info_key_at(_ p: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try propertyMapping(p).userInfo.keys.sorted(), index, "user-info key") }
}

@_cdecl("og_property_mapping_user_info")
public func og_property_mapping_user_info(_ p: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyMapping(p).userInfo[try string(key, "the key")] }
}

@_cdecl("og_property_mapping_set_user_info")
public func og_property_mapping_set_user_info(_ p: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                              _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try propertyMapping(p)
        mapping.userInfo = try dictionary(keys, values, count)
    }
}
