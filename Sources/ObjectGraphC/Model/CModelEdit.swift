import FoundationEssentials
import ObjectGraph

// og_model_* for changing a model and for what it says about stores: version identifiers,
// configurations, fetch request templates, localization, version hashes, compatibility
// with store metadata, merging, and loading every model of a directory.

/// `count` strings of a caller's array; NULL is allowed only when `count` is 0.
func strings(_ p: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [String] {
    guard count > 0 else { return [] }
    guard let p else { throw .invalidArgument("\(what) is NULL but the count is \(count)") }
    var out: [String] = []
    for i in 0..<count { out.append(try string(p[i], "\(what)[\(i)]")) }
    return out
}

/// A caller's string that may be NULL (nil).
func optionalString(_ p: UnsafePointer<CChar>?, _ what: String) throws(ObjectGraphError) -> String? {
    p == nil ? nil : try string(p, what)
}

/// A string → string dictionary from parallel arrays of keys and values.
func dictionary(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int)
    throws(ObjectGraphError) -> [String: String]
{
    let k = try strings(keys, count, "keys"), v = try strings(values, count, "values")
    var out: [String: String] = [:]
    for (key, value) in zip(k, v) { out[key] = value }
    return out
}

/// `count` handles of kind `T` from a caller's array.
func boxes<T: AnyObject>(_ p: UnsafePointer<OpaquePointer?>?, _ count: Int, _ type: T.Type, _ what: String) throws(ObjectGraphError) -> [T] {
    guard count > 0 else { return [] }
    guard let p else { throw .invalidArgument("\(what) is NULL but the count is \(count)") }
    var out: [T] = []
    for i in 0..<count { out.append(try handles.get(p[i], T.self)) }
    return out
}

/// Store metadata holding only `NSStoreModelVersionHashes`: `count` entity names and,
/// for each, 32 bytes of `hashes` (count × 32 bytes, back to back).
func hashMetadata(_ names: UnsafePointer<UnsafePointer<CChar>?>?, _ hashes: UnsafePointer<UInt8>?, _ count: Int)
    throws(ObjectGraphError) -> [String: PropertyListValue]
{
    let n = try strings(names, count, "names")
    guard count == 0 || hashes != nil else { throw .invalidArgument("hashes is NULL but the count is \(count)") }
    var stored: [String: PropertyListValue] = [:]
    for (i, name) in n.enumerated() { stored[name] = .data(Array(UnsafeBufferPointer(start: hashes! + 32 * i, count: 32))) }
    return [StoreMetadataKey.modelVersionHashes: .dictionary(stored)]
}

func template(_ x: ManagedObjectModel, _ name: UnsafePointer<CChar>?) throws(ObjectGraphError) -> FetchRequestTemplate {
    let n = try string(name, "the template name")
    guard let t = x.fetchRequestTemplate(named: n) else { throw .invalidArgument("the model has no fetch request template named '\(n)'") }
    return t
}

func configurationEntities(_ x: ManagedObjectModel, _ name: UnsafePointer<CChar>?) throws(ObjectGraphError) -> [EntityDescription] {
    let config = try optionalString(name, "the configuration")
    guard let members = x.entities(forConfiguration: config) else { throw .invalidArgument("the model has no configuration '\(config ?? "")'") }
    return config == nil ? members.sorted { $0.name < $1.name } : members
}

// MARK: Entities

@_cdecl("og_model_remove_entity")
public func og_model_remove_entity(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try model(m).removeEntity(named: try string(name, "the entity name"))
        return OG_OK
    }
}

// MARK: Version identifiers

@_cdecl("og_model_set_version_identifiers")
public func og_model_set_version_identifiers(_ m: OpaquePointer?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
                                             _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        try x.setVersionIdentifiers(try strings(ids, count, "identifiers"))
        return OG_OK
    }
}

// MARK: Configurations

@_cdecl("og_model_set_configuration_entities")
public func og_model_set_configuration_entities(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ entities: UnsafePointer<OpaquePointer?>?,
                                                _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        let n = try string(name, "the configuration")
        try x.setEntities(try boxes(entities, count, EntityBox.self, "entities").map(\.entity), forConfiguration: n)
        return OG_OK
    }
}

@_cdecl("og_model_configuration_entity_count")
public func og_model_configuration_entity_count(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int>?,
                                                _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let members = try configurationEntities(try model(m), name)
        try required(out, "out").pointee = members.count
        return OG_OK
    }
}

@_cdecl("og_model_configuration_entity_at")
public func og_model_configuration_entity_at(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let members = try configurationEntities(try model(m), name)
        guard index >= 0, index < members.count else {
            throw .invalidArgument("entity index \(index) is out of range (the configuration has \(members.count))")
        }
        return try lendEntity(members[index], from: m)
    }
}

// MARK: Fetch request templates

@_cdecl("og_model_set_template")
public func og_model_set_template(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ entity: UnsafePointer<CChar>?,
                                  _ predicate: UnsafePointer<CChar>?, _ sortKeys: UnsafePointer<UnsafePointer<CChar>?>?,
                                  _ ascending: UnsafePointer<Bool>?, _ sortCount: Int, _ fetchLimit: Int64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        let n = try string(name, "the template name")
        let keys = try strings(sortKeys, sortCount, "sort_keys")
        guard sortCount == 0 || ascending != nil else { throw .invalidArgument("ascending is NULL but the sort count is \(sortCount)") }
        guard fetchLimit >= 0 else { throw .invalidArgument("the fetch limit \(fetchLimit) is negative") }
        let sorts = keys.enumerated().map { SortKey($0.element, ascending: ascending![$0.offset]) }
        let t = FetchRequestTemplate(entityName: try string(entity, "the entity name"), predicateFormat: try optionalString(predicate, "the predicate"),
                                     sortKeys: sorts, fetchLimit: Int(fetchLimit))
        try x.setFetchRequestTemplate(t, forName: n)
        return OG_OK
    }
}

@_cdecl("og_model_remove_template")
public func og_model_remove_template(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        _ = try template(x, name)
        try x.setFetchRequestTemplate(nil, forName: try string(name, "the template name"))
        return OG_OK
    }
}

@_cdecl("og_model_template_predicate")
public func og_model_template_predicate(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try template(try model(m), name).predicateFormat }
}

@_cdecl("og_model_template_fetch_limit")
public func og_model_template_fetch_limit(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int64>?,
                                          _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let t = try template(try model(m), name)
        try required(out, "out").pointee = Int64(t.fetchLimit)
        return OG_OK
    }
}

@_cdecl("og_model_template_sort_count")
public func og_model_template_sort_count(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int>?,
                                         _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let t = try template(try model(m), name)
        try required(out, "out").pointee = t.sortKeys.count
        return OG_OK
    }
}

@_cdecl("og_model_template_sort_at")
public func og_model_template_sort_at(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ index: Int, _ ascending: UnsafeMutablePointer<Bool>?,
                                      _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in
        let t = try template(try model(m), name)
        guard index >= 0, index < t.sortKeys.count else {
            throw .invalidArgument("sort key index \(index) is out of range (there are \(t.sortKeys.count))")
        }
        try required(ascending, "ascending").pointee = t.sortKeys[index].ascending
        return t.sortKeys[index].key
    }
}

@_cdecl("og_model_template_variable_count")
public func og_model_template_variable_count(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int>?,
                                             _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let t = try template(try model(m), name)
        try required(out, "out").pointee = t.substitutionVariables.count
        return OG_OK
    }
}

@_cdecl("og_model_template_variable_at")
public func og_model_template_variable_at(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ index: Int, _ err: ErrorOut)
    -> UnsafeMutablePointer<CChar>?
{
    text(err) { () throws(ObjectGraphError) in try item(try template(try model(m), name).substitutionVariables, index, "variable") }
}

// MARK: Localization

@_cdecl("og_model_set_localization")
public func og_model_set_localization(_ m: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                      _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        try x.setLocalizationDictionary(try dictionary(keys, values, count))
        return OG_OK
    }
}

@_cdecl("og_model_localization_count")
public func og_model_localization_count(_ m: OpaquePointer?) -> Int { (try? model(m))?.localizationDictionary.count ?? 0 }

@_cdecl("og_model_localization_key_at")
public func og_model_localization_key_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try model(m).localizationDictionary.keys.sorted(), index, "localization key") }
}

@_cdecl("og_model_localization")
public func og_model_localization(_ m: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try model(m).localizationDictionary[try string(key, "the key")] }
}

@_cdecl("og_model_localized_entity_name")
public func og_model_localized_entity_name(_ m: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try model(m).localizedName(ofEntity: try string(entity, "the entity name")) }
}

@_cdecl("og_model_localized_property_name")
public func og_model_localized_property_name(_ m: OpaquePointer?, _ property: UnsafePointer<CChar>?, _ entity: UnsafePointer<CChar>?,
                                             _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        return x.localizedName(ofProperty: try string(property, "the property name"), entity: try string(entity, "the entity name"))
    }
}

// MARK: Version hashes and store metadata

@_cdecl("og_model_version_hash_at")
public func og_model_version_hash_at(_ m: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut)
    -> UnsafeMutablePointer<CChar>?
{
    text(err) { () throws(ObjectGraphError) in
        let hashes = try model(m).entityVersionHashesByName
        let name = try item(hashes.keys.sorted(), index, "entity")
        let out = try required(out, "out")
        for (i, b) in hashes[name]!.enumerated() { out[i] = b }
        return name
    }
}

@_cdecl("og_model_is_configuration_compatible")
public func og_model_is_configuration_compatible(_ m: OpaquePointer?, _ configuration: UnsafePointer<CChar>?,
                                                 _ names: UnsafePointer<UnsafePointer<CChar>?>?, _ hashes: UnsafePointer<UInt8>?,
                                                 _ count: Int, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        let config = try optionalString(configuration, "the configuration")
        let metadata = try hashMetadata(names, hashes, count)
        try required(out, "out").pointee = x.isConfiguration(config, compatibleWithStoreMetadata: metadata)
        return OG_OK
    }
}

@_cdecl("og_model_is_configuration_compatible_with_store")
public func og_model_is_configuration_compatible_with_store(_ m: OpaquePointer?, _ configuration: UnsafePointer<CChar>?, _ s: OpaquePointer?,
                                                            _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        let store = try handles.get(s, StoreBox.self).store
        let config = try optionalString(configuration, "the configuration")
        try required(out, "out").pointee = x.isConfiguration(config, compatibleWithStoreMetadata: store.metadata)
        return OG_OK
    }
}

// MARK: Merging and directories

@_cdecl("og_model_merge")
public func og_model_merge(_ models: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ModelBox(try ManagedObjectModel(merging: try boxes(models, count, ModelBox.self, "models").map(\.model))))
    }
}

/// NULL without an error when nothing matches: the caller's error slot stays untouched.
@_cdecl("og_model_merge_for_metadata")
public func og_model_merge_for_metadata(_ models: UnsafePointer<OpaquePointer?>?, _ count: Int, _ names: UnsafePointer<UnsafePointer<CChar>?>?,
                                        _ hashes: UnsafePointer<UInt8>?, _ hashCount: Int, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let parts = try boxes(models, count, ModelBox.self, "models").map(\.model)
        let metadata = try hashMetadata(names, hashes, hashCount)
        return ManagedObjectModel.merging(parts, forStoreMetadata: metadata).map { handles.make(ModelBox($0)) }
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_model_load_directory")
public func og_model_load_directory(_ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ModelBox(try ManagedObjectModel(mergingModelsInDirectory: try string(path, "the path"))))
    }
}

@_cdecl("og_model_load_directory_for_metadata")
public func og_model_load_directory_for_metadata(_ path: UnsafePointer<CChar>?, _ names: UnsafePointer<UnsafePointer<CChar>?>?,
                                                 _ hashes: UnsafePointer<UInt8>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let p = try string(path, "the path")
        let metadata = try hashMetadata(names, hashes, count)
        return try ManagedObjectModel.mergedModel(inDirectory: p, forStoreMetadata: metadata).map { handles.make(ModelBox($0)) }
    } catch {
        report(error, err)
        return nil
    }
}

// MARK: Stores' recorded hashes

func storeHashes(_ s: OpaquePointer?) throws(ObjectGraphError) -> [String: PropertyListValue] {
    try handles.get(s, StoreBox.self).store.metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue ?? [:]
}
