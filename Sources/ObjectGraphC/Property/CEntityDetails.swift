import ObjectGraph

// og_entity_*, og_property_*, og_attribute_*, og_relationship_*, og_fetched_property_*:
// the details of entities and properties beyond slots and values.


@_cdecl("og_property_is_transient")
public func og_property_is_transient(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try required(out, "out").pointee = x.isTransient
        return OG_OK
    }
}

@_cdecl("og_property_renaming_identifier")
public func og_property_renaming_identifier(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try property(p).renamingIdentifier }
}

@_cdecl("og_property_user_info")
public func og_property_user_info(_ p: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try property(p).userInfo[try string(key, "the key")] }
}

@_cdecl("og_attribute_value_transformer_name")
public func og_attribute_value_transformer_name(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyKind(p, AttributeDescription.self, "an attribute").valueTransformerName }
}

@_cdecl("og_relationship_counts")
public func og_relationship_counts(_ p: OpaquePointer?, _ min: UnsafeMutablePointer<Int64>?, _ max: UnsafeMutablePointer<Int64>?,
                                   _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try propertyKind(p, RelationshipDescription.self, "a relationship")
        try required(min, "min").pointee = Int64(r.minCount)
        try required(max, "max").pointee = Int64(r.maxCount)
        return OG_OK
    }
}

@_cdecl("og_relationship_is_ordered")
public func og_relationship_is_ordered(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try propertyKind(p, RelationshipDescription.self, "a relationship")
        try required(out, "out").pointee = r.isOrdered
        return OG_OK
    }
}

@_cdecl("og_fetched_property_entity")
public func og_fetched_property_entity(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyKind(p, FetchedPropertyDescription.self, "a fetched property").fetchRequest.entityName }
}

@_cdecl("og_fetched_property_predicate")
public func og_fetched_property_predicate(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try propertyKind(p, FetchedPropertyDescription.self, "a fetched property").fetchRequest.predicateFormat }
}
