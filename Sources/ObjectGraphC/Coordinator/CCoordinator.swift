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

@_cdecl("og_coordinator_add_store_n")
public func og_coordinator_add_store_n(_ c: OpaquePointer?, _ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ length: Int,
                                       _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let kind = try string(type, "the store type")
        let file = path == nil && length == 0 ? "" : try string(path, length: length, "the path", allowsNUL: false)
        let store = try coordinator.addPersistentStore(type: kind, path: file)
        return try handles.lend(store, from: c) { StoreBox(store) }
    }
}

@_cdecl("og_coordinator_store_count")
public func og_coordinator_store_count(_ c: OpaquePointer?) -> Int {
    (try? handles.get(c, CoordinatorBox.self))?.coordinator.persistentStores.count ?? 0
}

@_cdecl("og_coordinator_store_at")
public func og_coordinator_store_at(_ c: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let stores = try handles.get(c, CoordinatorBox.self).coordinator.persistentStores
        guard index >= 0, index < stores.count else {
            throw .invalidArgument("store index \(index) is out of range (the coordinator has \(stores.count))")
        }
        let store = stores[index]
        return try handles.lend(store, from: c) { StoreBox(store) }
    }
}

@_cdecl("og_coordinator_release")
public func og_coordinator_release(_ c: OpaquePointer?) {
    handles.release(c, CoordinatorBox.self)
}

@_cdecl("og_coordinator_remove_store")
public func og_coordinator_remove_store(_ c: OpaquePointer?, _ s: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        try coordinator.removePersistentStore(try handles.get(s, StoreBox.self).store)
        return OG_OK
    }
}

@_cdecl("og_coordinator_set_store_read_only")
public func og_coordinator_set_store_read_only(_ c: OpaquePointer?, _ s: OpaquePointer?, _ flag: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let store = try handles.get(s, StoreBox.self).store
        guard coordinator.persistentStores.contains(where: { $0 === store }) else {
            throw .invalidArgument("the store is not attached to this coordinator")
        }
        coordinator.setReadOnly(flag, for: store)
        return OG_OK
    }
}

@_cdecl("og_coordinator_is_store_read_only")
public func og_coordinator_is_store_read_only(_ c: OpaquePointer?, _ s: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?,
                                              _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let store = try handles.get(s, StoreBox.self).store
        guard let out else { throw .invalidArgument("out is NULL") }
        out.pointee = coordinator.isReadOnly(store)
        return OG_OK
    }
}

/// The metadata of a store file as a dictionary, without a stack.
func fileMetadata(_ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?) throws(ObjectGraphError) -> [String: PropertyListValue] {
    try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type == nil ? nil : try string(type, "the store type"),
                                                              at: try string(path, "the path"))
}
