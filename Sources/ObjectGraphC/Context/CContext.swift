import ObjectGraph

// og_context_*: contexts. Objects are lent by the context handle: the same object always
// has the same handle, valid until the context is released.

/// The handle of `object`, lent by the context handle `owner`.
func lendObject(_ object: ManagedObject, from owner: OpaquePointer) throws(ObjectGraphError) -> OpaquePointer {
    try handles.lendObject(object, from: owner)
}

extension ResultsBox {
    /// Lends every object together under one lock (the same handles as before for objects
    /// still lent), handing each handle to `each` with its index: reading a whole result then
    /// takes one handle-table lock per object, not two.
    func lendAll(each: (Int, OpaquePointer) -> Void = { _, _ in }) throws(ObjectGraphError) {
        try handles.lendObjects(objects, from: contextHandle, each: each)
        try handles.withLock { () throws(ObjectGraphError) in lentAll = true }
    }
}

@_cdecl("og_context_new")
public func og_context_new(_ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        ContextHandles.make(ManagedObjectContext(coordinator: try handles.get(c, CoordinatorBox.self).coordinator))
    }
}

@_cdecl("og_context_release_object")
public func og_context_release_object(_ c: OpaquePointer?, _ o: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        _ = try handles.get(c, ContextBox.self)
        guard handles.unlend(o, from: c) else {
            throw HandleTable.invalid("an og_object this context lent was expected (released, never valid, or lent by another context)")
        }
        return OG_OK
    }
}

@_cdecl("og_context_release_objects")
public func og_context_release_objects(_ c: OpaquePointer?, _ objects: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        _ = try handles.get(c, ContextBox.self)
        guard count > 0 else { return OG_OK }
        guard let objects else { throw .invalidArgument("NULL objects with a count of \(count)") }
        let refused = handles.unlend(UnsafeBufferPointer(start: objects, count: count), from: c)
        guard refused == 0 else {
            throw HandleTable.invalid("\(refused) of the \(count) handles were not og_objects this context lent (released, never valid, or lent by another context); the others were given back")
        }
        return OG_OK
    }
}

@_cdecl("og_context_insert")
public func og_context_insert(_ c: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let object = try context(c).insertObject(entityName: try string(name, "the entity name"))
        return try lendObject(object, from: c!)
    }
}

@_cdecl("og_context_insert_int64s")
public func og_context_insert_int64s(_ c: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ slots: UnsafePointer<Int>?,
                                     _ values: UnsafePointer<Int64>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let arrays = try int64Arrays(slots, values, count)  // checked before anything is inserted
        let object = try x.insertObject(entityName: try string(name, "the entity name"))
        if let (slots, values) = arrays {
            do throws(ObjectGraphError) {
                try object.setValues(count: count, slot: { slots[$0] }, value: { .integer(values[$0]) })
            } catch {
                // A refused value leaves nothing behind: an insert deleted before a save is forgotten.
                try? x.delete(object)
                throw error
            }
        }
        return try lendObject(object, from: c!)
    }
}

@_cdecl("og_context_delete")
public func og_context_delete(_ c: OpaquePointer?, _ o: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try context(c).delete(try handles.get(o, ManagedObject.self))
        return OG_OK
    }
}

@_cdecl("og_context_has_changes")
public func og_context_has_changes(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        try required(out, "out").pointee = x.hasChanges
        return OG_OK
    }
}

@_cdecl("og_context_save")
public func og_context_save(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try context(c).save()
        return OG_OK
    }
}

@_cdecl("og_context_fetch")
public func og_context_fetch(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let request = try handles.get(r, FetchRequestBox.self).request
        return handles.make(ResultsBox(try x.fetch(request), contextHandle: c!))
    }
}

@_cdecl("og_context_count")
public func og_context_count(_ c: OpaquePointer?, _ r: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let request = try handles.get(r, FetchRequestBox.self).request
        let out = try required(out, "out")
        out.pointee = try x.count(for: request)
        return OG_OK
    }
}

@_cdecl("og_context_release")
public func og_context_release(_ c: OpaquePointer?) {
    // Blocks queued with og_context_perform run before the context goes away.
    drainContext(c)
    forgetTokens(c)
    handles.release(c, ContextBox.self)
}

// og_fetch_request_*, og_results_*

@_cdecl("og_context_object_for_uri")
public func og_context_object_for_uri(_ c: OpaquePointer?, _ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let ctx = try context(c)
        guard let id = ctx.persistentStoreCoordinator.managedObjectID(forURIRepresentation: try string(uri, "the URI")) else { return nil }
        return try lendObject(try ctx.existingObject(with: id), from: c!)
    } catch {
        report(error, err)
        return nil
    }
}
