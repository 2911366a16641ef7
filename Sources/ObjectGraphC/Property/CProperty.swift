import ObjectGraph

// og_property_*, og_attribute_*, og_relationship_*: properties of entities.

@_cdecl("og_property_name")
public func og_property_name(_ p: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(p, PropertyBox.self)).map { UnsafePointer($0.name.pointer) }
}

@_cdecl("og_property_kind_of")
public func og_property_kind_of(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try required(out, "out").pointee = x is RelationshipDescription ? 1 : x is FetchedPropertyDescription ? 2 : 0
        return OG_OK
    }
}

@_cdecl("og_property_entity")
public func og_property_entity(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let e = (try? property(p))?.entity else { return nil }
    return try? lendEntity(e, near: p)
}

@_cdecl("og_property_is_optional")
public func og_property_is_optional(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try required(out, "out").pointee = x.isOptional
        return OG_OK
    }
}

@_cdecl("og_property_set_optional")
public func og_property_set_optional(_ p: OpaquePointer?, _ optional: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try property(p).setOptional(optional)
        return OG_OK
    }
}

@_cdecl("og_attribute_type_of")
public func og_attribute_type_of(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try required(out, "out").pointee = Int32(a.attributeType.rawValue)
        return OG_OK
    }
}

@_cdecl("og_attribute_default")
public func og_attribute_default(_ p: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(try attribute(p).defaultValue)) }
}

@_cdecl("og_attribute_set_default")
public func og_attribute_set_default(_ p: OpaquePointer?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setDefaultValue(try handles.get(v, ValueBox.self).attributeValue())
        return OG_OK
    }
}

@_cdecl("og_relationship_destination")
public func og_relationship_destination(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let d = (try? relationship(p))?.destinationEntity else { return nil }
    return try? lendEntity(d, near: p)
}

@_cdecl("og_relationship_inverse")
public func og_relationship_inverse(_ p: OpaquePointer?) -> OpaquePointer? {
    guard let inverse = (try? relationship(p))?.inverseRelationship else { return nil }
    return try? lendProperty(inverse, near: p)
}

@_cdecl("og_relationship_set_inverse")
public func og_relationship_set_inverse(_ p: OpaquePointer?, _ inverse: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        try r.setInverse(inverse == nil ? nil : try relationship(inverse))
        return OG_OK
    }
}

@_cdecl("og_relationship_is_to_many")
public func og_relationship_is_to_many(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        try required(out, "out").pointee = r.isToMany
        return OG_OK
    }
}

@_cdecl("og_relationship_set_to_many")
public func og_relationship_set_to_many(_ p: OpaquePointer?, _ toMany: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try relationship(p).setToMany(toMany)
        return OG_OK
    }
}

@_cdecl("og_relationship_delete_rule")
public func og_relationship_delete_rule(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        try required(out, "out").pointee = Int32(r.deleteRule.rawValue)
        return OG_OK
    }
}

@_cdecl("og_relationship_set_delete_rule")
public func og_relationship_set_delete_rule(_ p: OpaquePointer?, _ rule: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        try r.setDeleteRule(try cEnum(rule))
        return OG_OK
    }
}
