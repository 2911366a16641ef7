import ObjectGraph

// og_undo_manager_*, and a context's undo manager, undo, redo and name.

final class UndoManagerBox: HandleBox {
    static let kindName = "an og_undo_manager"
    let manager: ObjectUndoManager
    init(_ manager: ObjectUndoManager) { self.manager = manager }
}

func manager(_ m: OpaquePointer?) throws(ObjectGraphError) -> ObjectUndoManager {
    try handles.get(m, UndoManagerBox.self).manager
}

@_cdecl("og_undo_manager_new")
public func og_undo_manager_new(_ err: ErrorOut) -> OpaquePointer? {
    handles.make(UndoManagerBox(ObjectUndoManager()))
}

@_cdecl("og_undo_manager_release")
public func og_undo_manager_release(_ m: OpaquePointer?) {
    handles.release(m, UndoManagerBox.self)
}

@_cdecl("og_undo_manager_undo")
public func og_undo_manager_undo(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).undo()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_redo")
public func og_undo_manager_redo(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).redo()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_can_undo")
public func og_undo_manager_can_undo(_ m: OpaquePointer?) -> Bool { (try? manager(m))?.canUndo ?? false }

@_cdecl("og_undo_manager_can_redo")
public func og_undo_manager_can_redo(_ m: OpaquePointer?) -> Bool { (try? manager(m))?.canRedo ?? false }

@_cdecl("og_undo_manager_remove_all_actions")
public func og_undo_manager_remove_all_actions(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).removeAllActions()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_begin_grouping")
public func og_undo_manager_begin_grouping(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).beginUndoGrouping()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_end_grouping")
public func og_undo_manager_end_grouping(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).endUndoGrouping()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_grouping_level")
public func og_undo_manager_grouping_level(_ m: OpaquePointer?) -> Int { (try? manager(m))?.groupingLevel ?? 0 }

@_cdecl("og_undo_manager_levels_of_undo")
public func og_undo_manager_levels_of_undo(_ m: OpaquePointer?) -> Int { (try? manager(m))?.levelsOfUndo ?? 0 }

@_cdecl("og_undo_manager_set_levels_of_undo")
public func og_undo_manager_set_levels_of_undo(_ m: OpaquePointer?, _ levels: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        guard levels >= 0 else { throw .invalidArgument("levels of undo cannot be negative") }
        try manager(m).levelsOfUndo = levels
        return OG_OK
    }
}

@_cdecl("og_undo_manager_groups_by_event")
public func og_undo_manager_groups_by_event(_ m: OpaquePointer?) -> Bool { (try? manager(m))?.groupsByEvent ?? false }

@_cdecl("og_undo_manager_set_groups_by_event")
public func og_undo_manager_set_groups_by_event(_ m: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).groupsByEvent = on
        return OG_OK
    }
}

@_cdecl("og_undo_manager_undo_action_name")
public func og_undo_manager_undo_action_name(_ m: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try manager(m).undoActionName) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_undo_manager_redo_action_name")
public func og_undo_manager_redo_action_name(_ m: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try manager(m).redoActionName) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_undo_manager_set_action_name")
public func og_undo_manager_set_action_name(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).setActionName(try string(name, "the action name"))
        return OG_OK
    }
}

@_cdecl("og_undo_manager_disable_registration")
public func og_undo_manager_disable_registration(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).disableUndoRegistration()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_enable_registration")
public func og_undo_manager_enable_registration(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try manager(m).enableUndoRegistration()
        return OG_OK
    }
}

@_cdecl("og_undo_manager_is_registration_enabled")
public func og_undo_manager_is_registration_enabled(_ m: OpaquePointer?) -> Bool {
    (try? manager(m))?.isUndoRegistrationEnabled ?? false
}

// MARK: A context's undo manager
