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
func propertyMapping(_ h: OpaquePointer?) throws(ObjectGraphError) -> PropertyMapping { try handles.get(h, PropertyMappingBox.self).mapping }

/// `list[index]`, or an error naming the list and its length.
func element<T>(_ list: [T], _ index: Int, _ what: String) throws(ObjectGraphError) -> T {
    guard index >= 0, index < list.count else { throw .invalidArgument("\(what) index \(index) is out of range (there are \(list.count))") }
    return list[index]
}

/// Inserts at `index` (0 ... count), or an error naming the list.
func insert<T>(_ item: T, into list: inout [T], at index: Int, _ what: String) throws(ObjectGraphError) {
    guard index >= 0, index <= list.count else { throw .invalidArgument("\(what) index \(index) is out of range (0 to \(list.count))") }
    list.insert(item, at: index)
}

func remove<T>(from list: inout [T], at index: Int, _ what: String) throws(ObjectGraphError) {
    guard index >= 0, index < list.count else { throw .invalidArgument("\(what) index \(index) is out of range (there are \(list.count))") }
    list.remove(at: index)
}

/// A 32-byte version hash from C, or nil for NULL.
func versionHash(_ p: UnsafePointer<UInt8>?) -> [UInt8]? {
    p.map { Array(UnsafeBufferPointer(start: $0, count: 32)) }
}

/// Copies a 32-byte hash out; OG_NULL when there is none.
func hashOut(_ hash: [UInt8]?, _ out: UnsafeMutablePointer<UInt8>?) throws(ObjectGraphError) -> Int32 {
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

// The two property-mapping lists of an entity mapping share their implementation.

func count(_ e: OpaquePointer?, _ list: KeyPath<EntityMapping, [PropertyMapping]>) -> Int {
    (try? entityMapping(e))?[keyPath: list].count ?? 0
}

func at(_ e: OpaquePointer?, _ list: KeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ what: String, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(PropertyMappingBox(try element(try entityMapping(e)[keyPath: list], index, what)))
    }
}

func append(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        mapping[keyPath: list].append(try propertyMapping(p))
    }
}

func insertAt(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ p: OpaquePointer?,
                      _ what: String, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        let item = try propertyMapping(p)
        try insert(item, into: &mapping[keyPath: list], at: index, what)
    }
}

func removeAt(_ e: OpaquePointer?, _ list: ReferenceWritableKeyPath<EntityMapping, [PropertyMapping]>, _ index: Int, _ what: String,
                      _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let mapping = try entityMapping(e)
        try remove(from: &mapping[keyPath: list], at: index, what)
    }
}

// MARK: Property mappings
