import ObjectGraph

// og_entity_mapping_* functions that go with mapping model: this handle family's part of that concern.

@_cdecl("og_entity_mapping_new")
public func og_entity_mapping_new(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(EntityMappingBox(EntityMapping(name: try string(name, "the entity mapping's name"))))
    }
}

@_cdecl("og_entity_mapping_release")
public func og_entity_mapping_release(_ e: OpaquePointer?) {
    handles.release(e, EntityMappingBox.self)
}

@_cdecl("og_entity_mapping_name")
public func og_entity_mapping_name(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).name }
}

@_cdecl("og_entity_mapping_set_name")
public func og_entity_mapping_set_name(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).name = try string(name, "the entity mapping's name") }
}

@_cdecl("og_entity_mapping_kind_of")
public func og_entity_mapping_kind_of(_ e: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let kind = try entityMapping(e).kind
        try required(out, "out").pointee = Int32(kind.rawValue)
    }
}

@_cdecl("og_entity_mapping_set_kind")
public func og_entity_mapping_set_kind(_ e: OpaquePointer?, _ kind: Int32, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        mapping.kind = try cEnum(kind)
    }
}

@_cdecl("og_entity_mapping_source_entity")
public func og_entity_mapping_source_entity(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).sourceEntityName }
}

@_cdecl("og_entity_mapping_set_source_entity")
public func og_entity_mapping_set_source_entity(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).sourceEntityName = try optionalString(name, "the source entity name") }
}

@_cdecl("og_entity_mapping_destination_entity")
public func og_entity_mapping_destination_entity(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).destinationEntityName }
}

@_cdecl("og_entity_mapping_set_destination_entity")
public func og_entity_mapping_set_destination_entity(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        try entityMapping(e).destinationEntityName = try optionalString(name, "the destination entity name")
    }
}

@_cdecl("og_entity_mapping_source_version_hash")
public func og_entity_mapping_source_version_hash(_ e: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try hashOut(try entityMapping(e).sourceEntityVersionHash, out) }
}

@_cdecl("og_entity_mapping_set_source_version_hash")
public func og_entity_mapping_set_source_version_hash(_ e: OpaquePointer?, _ hash: UnsafePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).sourceEntityVersionHash = versionHash(hash) }
}

@_cdecl("og_entity_mapping_destination_version_hash")
public func og_entity_mapping_destination_version_hash(_ e: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try hashOut(try entityMapping(e).destinationEntityVersionHash, out) }
}

@_cdecl("og_entity_mapping_set_destination_version_hash")
public func og_entity_mapping_set_destination_version_hash(_ e: OpaquePointer?, _ hash: UnsafePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).destinationEntityVersionHash = versionHash(hash) }
}

@_cdecl("og_entity_mapping_source_expression")
public func og_entity_mapping_source_expression(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).sourceExpression }
}

@_cdecl("og_entity_mapping_set_source_expression")
public func og_entity_mapping_set_source_expression(_ e: OpaquePointer?, _ expression: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).sourceExpression = try optionalString(expression, "the source expression") }
}

@_cdecl("og_entity_mapping_policy")
public func og_entity_mapping_policy(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).migrationPolicyName }
}

@_cdecl("og_entity_mapping_set_policy")
public func og_entity_mapping_set_policy(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try entityMapping(e).migrationPolicyName = try optionalString(name, "the policy name") }
}

@_cdecl("og_entity_mapping_user_info_count")
public func og_entity_mapping_user_info_count(_ e: OpaquePointer?) -> Int { (try? entityMapping(e))?.userInfo.count ?? 0 }

@_cdecl("og_entity_mapping_user_info_key_at")
public func og_entity_mapping_user_info_key_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try entityMapping(e).userInfo.keys.sorted(), index, "user-info key") }
}

@_cdecl("og_entity_mapping_user_info")
public func og_entity_mapping_user_info(_ e: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entityMapping(e).userInfo[try string(key, "the key")] }
}

@_cdecl("og_entity_mapping_set_user_info")
public func og_entity_mapping_set_user_info(_ e: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                            _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        mapping.userInfo = try dictionary(keys, values, count)
    }
}

@_cdecl("og_entity_mapping_attribute_mapping_count")
public func og_entity_mapping_attribute_mapping_count(_ e: OpaquePointer?) -> Int { count(e, \.attributeMappings) }

@_cdecl("og_entity_mapping_attribute_mapping_at")
public func og_entity_mapping_attribute_mapping_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    at(e, \.attributeMappings, index, "attribute mapping", err)
}

@_cdecl("og_entity_mapping_append_attribute_mapping")
public func og_entity_mapping_append_attribute_mapping(_ e: OpaquePointer?, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    append(e, \.attributeMappings, p, err)
}

@_cdecl("og_entity_mapping_insert_attribute_mapping")
public func og_entity_mapping_insert_attribute_mapping(_ e: OpaquePointer?, _ index: Int, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    insertAt(e, \.attributeMappings, index, p, "attribute mapping", err)
}

@_cdecl("og_entity_mapping_remove_attribute_mapping_at")
public func og_entity_mapping_remove_attribute_mapping_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> Int32 {
    removeAt(e, \.attributeMappings, index, "attribute mapping", err)
}

@_cdecl("og_entity_mapping_relationship_mapping_count")
public func og_entity_mapping_relationship_mapping_count(_ e: OpaquePointer?) -> Int { count(e, \.relationshipMappings) }

@_cdecl("og_entity_mapping_relationship_mapping_at")
public func og_entity_mapping_relationship_mapping_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    at(e, \.relationshipMappings, index, "relationship mapping", err)
}

@_cdecl("og_entity_mapping_append_relationship_mapping")
public func og_entity_mapping_append_relationship_mapping(_ e: OpaquePointer?, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    append(e, \.relationshipMappings, p, err)
}

@_cdecl("og_entity_mapping_insert_relationship_mapping")
public func og_entity_mapping_insert_relationship_mapping(_ e: OpaquePointer?, _ index: Int, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    insertAt(e, \.relationshipMappings, index, p, "relationship mapping", err)
}

@_cdecl("og_entity_mapping_remove_relationship_mapping_at")
public func og_entity_mapping_remove_relationship_mapping_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> Int32 {
    removeAt(e, \.relationshipMappings, index, "relationship mapping", err)
}
