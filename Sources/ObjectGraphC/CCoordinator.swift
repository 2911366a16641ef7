import ObjectGraph

// og_coordinator_*, og_store_*: coordinators and their stores.

@_cdecl("og_coordinator_new")
public func og_coordinator_new(_ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(CoordinatorBox(try PersistentStoreCoordinator(model: try handles.get(m, ModelBox.self).model)))
    }
}

@_cdecl("og_coordinator_add_store")
public func og_coordinator_add_store(_ c: OpaquePointer?, _ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
                                     _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let kind = try string(type, "the store type")
        // A store without a file (InMemory) takes a NULL path; file stores refuse an empty one.
        let file = path == nil ? "" : try string(path, "the path")
        let store = try coordinator.addPersistentStore(type: kind, path: file)
        return try handles.lend(store, from: c) { StoreBox(store) }
    }
}

@_cdecl("og_coordinator_store_count")
public func og_coordinator_store_count(_ c: OpaquePointer?) -> Int {
    (try? handles.get(c, CoordinatorBox.self))?.coordinator.persistentStores.count ?? 0
}

@_cdecl("og_coordinator_release")
public func og_coordinator_release(_ c: OpaquePointer?) {
    handles.release(c, CoordinatorBox.self)
}

@_cdecl("og_store_type")
public func og_store_type(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.type.pointer) }
}

@_cdecl("og_store_path")
public func og_store_path(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.path.pointer) }
}

@_cdecl("og_store_uuid")
public func og_store_uuid(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.uuid.pointer) }
}
