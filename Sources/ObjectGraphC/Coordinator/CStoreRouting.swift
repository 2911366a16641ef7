import FoundationEssentials
import ObjectGraph

// og_coordinator_add_store_with_options, og_coordinator_migrate_store, og_store_configuration,
// og_store_options, og_coordinator_store_for_path, og_coordinator_set_store_path,
// og_coordinator_store_metadata, og_coordinator_set_store_metadata, og_context_assign_object,
// og_fetch_request_set_affected_stores: several stores on one coordinator.

/// An og_value dictionary (or NULL) as the property-list dictionary stores take.
func plistDictionary(_ v: OpaquePointer?, _ what: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
    guard v != nil else { return [:] }
    guard case .dictionary(let d)? = try plist(try handles.get(v, ValueBox.self).content, what) else {
        throw .invalidArgument("\(what) must be an OG_VALUE_DICTIONARY value")
    }
    return d
}

/// A boxed value as a property-list value: numbers, booleans, strings, dates, data,
/// arrays and dictionaries (decimals, UUIDs and URIs as their text).
func plist(_ v: PredicateValue, _ what: String) throws(ObjectGraphError) -> PropertyListValue? {
    switch v {
    case .scalar(let s):
        switch s {
        case .null: return nil
        case .integer(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .boolean(let b): return .boolean(b)
        case .string(let t): return .string(t)
        case .date(let d): return .date(d)
        case .data(let d): return .data(Array(d))
        case .decimal(let d): return .string(d.description)
        case .uuid(let u): return .string(u.uuidString)
        case .uri(let u): return .string(u)
        case .transformable: throw .invalidArgument("\(what) cannot hold \(s.kindName)")
        }
    case .collection(let items):
        var out: [PropertyListValue] = []
        for item in items { if let p = try plist(item, what) { out.append(p) } }
        return .array(out)
    case .dictionary(let d):
        var out: [String: PropertyListValue] = [:]
        for (k, item) in d { if let p = try plist(item, what) { out[k] = p } }
        return .dictionary(out)
    // An object ID is kept as its URI, the text it reads as.
    case .object(let id as ManagedObjectID): return .string(id.uriRepresentation)
    case .object(let id as ObjectIDReference): return .string(id.uriRepresentation)
    case .object:
        throw .invalidArgument("\(what) cannot hold a managed object or an entity")
    }
}

/// A property-list value as a boxed value (the reverse of `plist`).
func boxed(_ p: PropertyListValue) -> PredicateValue {
    switch p {
    case .string(let s): .scalar(.string(s))
    case .integer(let i): .scalar(.integer(i))
    case .real(let d): .scalar(.double(d))
    case .boolean(let b): .scalar(.boolean(b))
    case .date(let d): .scalar(.date(d))
    case .data(let d): .scalar(.data(Data(d)))
    case .array(let a): .collection(a.map(boxed))
    case .dictionary(let d): .dictionary(d.mapValues(boxed))
    }
}

func attachedStore(_ coordinator: PersistentStoreCoordinator, _ s: OpaquePointer?) throws(ObjectGraphError) -> PersistentStore {
    let store = try handles.get(s, StoreBox.self).store
    guard coordinator.persistentStores.contains(where: { $0 === store }) else {
        throw .invalidArgument("the store is not attached to this coordinator")
    }
    return store
}

@_cdecl("og_coordinator_add_store_with_options")
public func og_coordinator_add_store_with_options(_ c: OpaquePointer?, _ type: UnsafePointer<CChar>?, _ configuration: UnsafePointer<CChar>?,
                                                  _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let kind = try string(type, "the store type")
        let config = configuration == nil ? nil : try string(configuration, "the configuration")
        let file = path == nil ? "" : try string(path, "the path")
        let store = try coordinator.addPersistentStore(type: kind, configuration: config, path: file,
                                                       options: try plistDictionary(options, "the options"))
        return try handles.lend(store, from: c) { StoreBox(store) }
    }
}

@_cdecl("og_coordinator_migrate_store")
public func og_coordinator_migrate_store(_ c: OpaquePointer?, _ s: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?,
                                         _ options: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let store = try handles.get(s, StoreBox.self).store
        let kind = try string(type, "the store type")
        let file = path == nil ? "" : try string(path, "the path")
        let copy = try coordinator.migratePersistentStore(store, to: file, type: kind,
                                                          options: options == nil ? nil : try plistDictionary(options, "the options"))
        return try handles.lend(copy, from: c) { StoreBox(copy) }
    }
}

@_cdecl("og_coordinator_store_for_path")
public func og_coordinator_store_for_path(_ c: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        guard let store = coordinator.persistentStore(for: try string(path, "the path")) else { return nil }
        return try handles.lend(store, from: c) { StoreBox(store) }
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_coordinator_set_store_path")
public func og_coordinator_set_store_path(_ c: OpaquePointer?, _ s: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        try coordinator.setPath(try string(path, "the path"), for: try attachedStore(coordinator, s))
        return OG_OK
    }
}

@_cdecl("og_coordinator_store_metadata")
public func og_coordinator_store_metadata(_ c: OpaquePointer?, _ s: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let metadata = try coordinator.metadata(for: try handles.get(s, StoreBox.self).store)
        return handles.make(ValueBox(content: boxed(.dictionary(metadata))))
    }
}

@_cdecl("og_coordinator_set_store_metadata")
public func og_coordinator_set_store_metadata(_ c: OpaquePointer?, _ s: OpaquePointer?, _ metadata: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        guard metadata != nil else { throw .invalidArgument("the metadata is NULL") }
        try coordinator.setMetadata(try plistDictionary(metadata, "the metadata"), for: try handles.get(s, StoreBox.self).store)
        return OG_OK
    }
}
