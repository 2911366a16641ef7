import ObjectGraph

// og_entity_*: entities and their properties. Everything they lend is lent by the same
// owner as the entity handle itself (the model, or the context for og_object_entity).

func lendProperty(_ p: PropertyDescription, near handle: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
    try handles.lend(p, from: try handles.owner(of: handle)) { PropertyBox(p) }
}

func lendEntity(_ e: EntityDescription, near handle: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
    try handles.lend(e, from: try handles.owner(of: handle)) { EntityBox(e) }
}

@_cdecl("og_entity_name")
public func og_entity_name(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(e, EntityBox.self)).map { UnsafePointer($0.name.pointer) }
}

@_cdecl("og_entity_superentity")
public func og_entity_superentity(_ e: OpaquePointer?) -> OpaquePointer? {
    guard let parent = (try? entity(e))?.superentity else { return nil }
    return try? lendEntity(parent, near: e)
}

@_cdecl("og_entity_set_superentity")
public func og_entity_set_superentity(_ e: OpaquePointer?, _ parent: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let child = try entity(e)
        try child.setSuperentity(parent == nil ? nil : try entity(parent))
        return OG_OK
    }
}

@_cdecl("og_entity_is_abstract")
public func og_entity_is_abstract(_ e: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try required(out, "out").pointee = x.isAbstract
        return OG_OK
    }
}

@_cdecl("og_entity_set_abstract")
public func og_entity_set_abstract(_ e: OpaquePointer?, _ abstract: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try entity(e).setAbstract(abstract)
        return OG_OK
    }
}

@_cdecl("og_entity_property_count")
public func og_entity_property_count(_ e: OpaquePointer?) -> Int {
    (try? entity(e))?.properties.count ?? 0
}

@_cdecl("og_entity_property_at")
public func og_entity_property_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let properties = try entity(e).properties
        guard index >= 0, index < properties.count else {
            throw .invalidArgument("property index \(index) is out of range (the entity has \(properties.count))")
        }
        return try lendProperty(properties[index], near: e)
    }
}

@_cdecl("og_entity_property")
public func og_entity_property(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let n = try string(name, "the property name")
        guard let p = x.property(named: n) else { throw .unknownKey(n, entity: x.name) }
        return try lendProperty(p, near: e)
    }
}

@_cdecl("og_entity_slot")
public func og_entity_slot(_ e: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int64 {
    do throws(ObjectGraphError) {
        let x = try entity(e)
        let k = try string(key, "the key")
        guard let slot = x.slot(forKey: k) else { throw ObjectGraphError.unknownKey(k, entity: x.name) }
        return Int64(slot)
    } catch {
        report(error, err)
        return -1
    }
}

@_cdecl("og_entity_version_hash")
public func og_entity_version_hash(_ e: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let out = try required(out, "out")
        for (i, b) in x.versionHash.enumerated() { out[i] = b }
        return OG_OK
    }
}

@_cdecl("og_entity_add_attribute")
public func og_entity_add_attribute(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ type: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let n = try string(name, "the attribute name")
        return try lendProperty(try x.addAttribute(named: n, type: try cEnum(type)), near: e)
    }
}

@_cdecl("og_entity_add_relationship")
public func og_entity_add_relationship(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ destination: OpaquePointer?,
                                       _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let n = try string(name, "the relationship name")
        return try lendProperty(try x.addRelationship(named: n, destination: try entity(destination)), near: e)
    }
}
