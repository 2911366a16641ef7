import ObjectGraph

// og_entity_*, og_property_*, og_attribute_*, og_relationship_*, og_fetched_property_*:
// the details of entities and properties beyond slots and values.

private func entity(_ e: OpaquePointer?) throws(ObjectGraphError) -> EntityDescription { try handles.get(e, EntityBox.self).entity }
private func property(_ p: OpaquePointer?) throws(ObjectGraphError) -> PropertyDescription { try handles.get(p, PropertyBox.self).property }

private func kind<T>(_ p: OpaquePointer?, _ type: T.Type, _ expected: String) throws(ObjectGraphError) -> T {
    let x = try property(p)
    guard let t = x as? T else { throw .wrongKind(key: x.name, entity: x.entity?.name ?? "?", expected: expected) }
    return t
}

@_cdecl("og_entity_class_name")
public func og_entity_class_name(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).managedObjectClassName }
}

@_cdecl("og_entity_renaming_identifier")
public func og_entity_renaming_identifier(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).renamingIdentifier }
}

@_cdecl("og_entity_user_info")
public func og_entity_user_info(_ e: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).userInfo[try string(key, "the key")] }
}

@_cdecl("og_entity_subentity_count")
public func og_entity_subentity_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.subentities.count ?? 0 }

@_cdecl("og_entity_subentity_at")
public func og_entity_subentity_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let subs = try entity(e).subentities.sorted { $0.name < $1.name }
        guard index >= 0, index < subs.count else { throw .invalidArgument("subentity index \(index) is out of range (there are \(subs.count))") }
        return try lendEntity(subs[index], near: e)
    }
}

@_cdecl("og_entity_is_kind_of")
public func og_entity_is_kind_of(_ e: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try entity(e), y = try entity(other)
        try required(out, "out").pointee = x.isKind(of: y)
        return OG_OK
    }
}

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
    text(err) { () throws(ObjectGraphError) in try kind(p, AttributeDescription.self, "an attribute").valueTransformerName }
}

@_cdecl("og_relationship_counts")
public func og_relationship_counts(_ p: OpaquePointer?, _ min: UnsafeMutablePointer<Int64>?, _ max: UnsafeMutablePointer<Int64>?,
                                   _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try kind(p, RelationshipDescription.self, "a relationship")
        try required(min, "min").pointee = Int64(r.minCount)
        try required(max, "max").pointee = Int64(r.maxCount)
        return OG_OK
    }
}

@_cdecl("og_relationship_is_ordered")
public func og_relationship_is_ordered(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let r = try kind(p, RelationshipDescription.self, "a relationship")
        try required(out, "out").pointee = r.isOrdered
        return OG_OK
    }
}

@_cdecl("og_fetched_property_entity")
public func og_fetched_property_entity(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try kind(p, FetchedPropertyDescription.self, "a fetched property").fetchRequest.entityName }
}

@_cdecl("og_fetched_property_predicate")
public func og_fetched_property_predicate(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try kind(p, FetchedPropertyDescription.self, "a fetched property").fetchRequest.predicateFormat }
}
