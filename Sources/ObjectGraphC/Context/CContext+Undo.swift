import ObjectGraph

// og_context_* functions that go with undo: this handle family's part of that concern.

@_cdecl("og_context_undo_manager")
public func og_context_undo_manager(_ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    do throws(ObjectGraphError) {
        let box = try contextBox(c)
        try box.context.checkThread()
        guard let handle = box.undoManagerHandle, box.context.undoManager != nil,
            (try? handles.get(handle, UndoManagerBox.self))?.manager === box.context.undoManager
        else { return nil }
        return handle
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_context_set_undo_manager")
public func og_context_set_undo_manager(_ c: OpaquePointer?, _ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try contextBox(c)
        try box.context.checkThread()
        if let m {
            box.context.undoManager = try manager(m)
            box.undoManagerHandle = m
        } else {
            box.context.undoManager = nil
            box.undoManagerHandle = nil
        }
        return OG_OK
    }
}

@_cdecl("og_context_undo")
public func og_context_undo(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try contextBox(c).context.undo()
        return OG_OK
    }
}

@_cdecl("og_context_redo")
public func og_context_redo(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try contextBox(c).context.redo()
        return OG_OK
    }
}

@_cdecl("og_context_name")
public func og_context_name(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextBox(c).context
        try x.checkThread()
        return nullable(try required(out, "out"), x.name.map { ownedString($0) })
    }
}

@_cdecl("og_context_set_name")
public func og_context_set_name(_ c: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextBox(c).context
        try x.checkThread()
        x.name = try name.map { p throws(ObjectGraphError) in try string(p, "the name") }
        return OG_OK
    }
}
