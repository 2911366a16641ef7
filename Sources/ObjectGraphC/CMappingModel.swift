import ObjectGraph

// og_mapping_model_*, og_entity_mapping_*, og_property_mapping_*: mapping models and their parts.
// The three are shared, never copied: every handle is a NEW reference to the same Swift
// object, so an edit through one handle shows through every other.

final class MappingModelBox: HandleBox {
    static let kindName = "an og_mapping_model"
    let mapping: MappingModel
    init(_ mapping: MappingModel) { self.mapping = mapping }
}

final class EntityMappingBox: HandleBox {
    static let kindName = "an og_entity_mapping"
    let mapping: EntityMapping
    init(_ mapping: EntityMapping) { self.mapping = mapping }
}

final class PropertyMappingBox: HandleBox {
    static let kindName = "an og_property_mapping"
    let mapping: PropertyMapping
    init(_ mapping: PropertyMapping) { self.mapping = mapping }
}

func mappingModel(_ h: OpaquePointer?) throws(ObjectGraphError) -> MappingModel { try handles.get(h, MappingModelBox.self).mapping }
func entityMapping(_ h: OpaquePointer?) throws(ObjectGraphError) -> EntityMapping { try handles.get(h, EntityMappingBox.self).mapping }
private func propertyMapping(_ h: OpaquePointer?) throws(ObjectGraphError) -> PropertyMapping { try handles.get(h, PropertyMappingBox.self).mapping }

/// `list[index]`, or an error naming the list and its length.
private func element<T>(_ list: [T], _ index: Int, _ what: String) throws(ObjectGraphError) -> T {
    guard index >= 0, index < list.count else { throw .invalidArgument("\(what) index \(index) is out of range (there are \(list.count))") }
    return list[index]
}

/// Inserts at `index` (0 ... count), or an error naming the list.
private func insert<T>(_ item: T, into list: inout [T], at index: Int, _ what: String) throws(ObjectGraphError) {
    guard index >= 0, index <= list.count else { throw .invalidArgument("\(what) index \(index) is out of range (0 to \(list.count))") }
    list.insert(item, at: index)
}

private func remove<T>(from list: inout [T], at index: Int, _ what: String) throws(ObjectGraphError) {
    guard index >= 0, index < list.count else { throw .invalidArgument("\(what) index \(index) is out of range (there are \(list.count))") }
    list.remove(at: index)
}

/// A 32-byte version hash from C, or nil for NULL.
private func versionHash(_ p: UnsafePointer<UInt8>?) -> [UInt8]? {
    p.map { Array(UnsafeBufferPointer(start: $0, count: 32)) }
}

/// Copies a 32-byte hash out; OG_NULL when there is none.
private func hashOut(_ hash: [UInt8]?, _ out: UnsafeMutablePointer<UInt8>?) throws(ObjectGraphError) -> Int32 {
    let out = try required(out, "out")
    guard let hash, hash.count == 32 else {
        for i in 0..<32 { out[i] = 0 }
        return OG_NULL
    }
    for (i, b) in hash.enumerated() { out[i] = b }
    return OG_OK
}

// MARK: Mapping models

@_cdecl("og_mapping_model_new")
public func og_mapping_model_new() -> OpaquePointer? {
    handles.make(MappingModelBox(MappingModel()))
}

@_cdecl("og_mapping_model_infer")
public func og_mapping_model_infer(_ s: OpaquePointer?, _ d: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let source = try handles.get(s, ModelBox.self).model
        let destination = try handles.get(d, ModelBox.self).model
        return handles.make(MappingModelBox(try MappingModel.inferred(from: source, to: destination)))
    }
}

@_cdecl("og_mapping_model_copy")
public func og_mapping_model_copy(_ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(MappingModelBox(try mappingModel(m).copy())) }
}

@_cdecl("og_mapping_model_load")
public func og_mapping_model_load(_ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(MappingModelBox(try MappingModel.load(path: try string(path, "the path"))))
    }
}

@_cdecl("og_mapping_model_save")
public func og_mapping_model_save(_ m: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try mappingModel(m).save(path: try string(path, "the path"))
        return OG_OK
    }
}

@_cdecl("og_mapping_model_entity_mapping_count")
public func og_mapping_model_entity_mapping_count(_ m: OpaquePointer?) -> Int {
    (try? mappingModel(m))?.entityMappings.count ?? 0
}

@_cdecl("og_mapping_model_entity_mapping_at")
public func og_mapping_model_entity_mapping_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(EntityMappingBox(try element(try mappingModel(m).entityMappings, index, "entity mapping")))
    }
}

@_cdecl("og_mapping_model_append_entity_mapping")
public func og_mapping_model_append_entity_mapping(_ m: OpaquePointer?, _ e: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let model = try mappingModel(m)
        model.entityMappings.append(try entityMapping(e))
    }
}

@_cdecl("og_mapping_model_insert_entity_mapping")
public func og_mapping_model_insert_entity_mapping(_ m: OpaquePointer?, _ index: Int, _ e: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let model = try mappingModel(m)
        try insert(try entityMapping(e), into: &model.entityMappings, at: index, "entity mapping")
    }
}

@_cdecl("og_mapping_model_remove_entity_mapping_at")
public func og_mapping_model_remove_entity_mapping_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let model = try mappingModel(m)
        try remove(from: &model.entityMappings, at: index, "entity mapping")
    }
}

@_cdecl("og_mapping_model_release")
public func og_mapping_model_release(_ m: OpaquePointer?) {
    handles.release(m, MappingModelBox.self)
}

// MARK: Entity mappings

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
        guard let k = EntityMappingKind(rawValue: Int(kind)) else { throw .invalidArgument("\(kind) is not an og_entity_mapping_kind") }
        mapping.kind = k
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

// The two property-mapping lists of an entity mapping share their implementation.

private func count(_ e: OpaquePointer?, _ list: KeyPath<EntityMapping, [PropertyMapping]>) -> Int {
    (try? entityMapping(e))?[keyPath: list].count ?? 0
}

private func at(_ e: OpaquePointer?, _ list: KeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ what: String, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(PropertyMappingBox(try element(try entityMapping(e)[keyPath: list], index, what)))
    }
}

private func append(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        mapping[keyPath: list].append(try propertyMapping(p))
    }
}

private func insertAt(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ p: OpaquePointer?,
                      _ what: String, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        let item = try propertyMapping(p)
        try insert(item, into: &mapping[keyPath: list], at: index, what)
    }
}

private func removeAt(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ what: String,
                      _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        try remove(from: &mapping[keyPath: list], at: index, what)
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

// MARK: Property mappings

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
