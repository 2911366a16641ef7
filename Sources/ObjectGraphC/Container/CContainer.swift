import ObjectGraph

// og_container_*: a whole stack in one handle (NSPersistentContainer).

/// `og_container_load_fn`: one description's store added (error NULL) or not.
public typealias ContainerLoadCallback = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
/// `og_context_task_fn`: a background task, given its context.
public typealias ContextTaskCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

final class ContainerBox: HandleBox {
    static let kindName = "an og_container"
    let container: PersistentContainer
    lazy var name = CString(container.name)
    init(_ container: PersistentContainer) { self.container = container }
}

/// A C callback and its userdata, carried to another thread.
private struct Call<F>: @unchecked Sendable {
    let function: F
    let userdata: UnsafeMutableRawPointer?
}

func container(_ c: OpaquePointer?) throws(ObjectGraphError) -> PersistentContainer { try handles.get(c, ContainerBox.self).container }

@_cdecl("og_container_new")
public func og_container_new(_ name: UnsafePointer<CChar>?, _ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ContainerBox(try PersistentContainer(name: try string(name, "the name"), managedObjectModel: try model(m))))
    }
}

@_cdecl("og_container_release")
public func og_container_release(_ c: OpaquePointer?) {
    handles.release(c, ContainerBox.self)
}

@_cdecl("og_container_name")
public func og_container_name(_ c: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(c, ContainerBox.self)).map { UnsafePointer($0.name.pointer) }
}

@_cdecl("og_container_coordinator")
public func og_container_coordinator(_ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let coordinator = try container(c).persistentStoreCoordinator
        return try handles.lend(coordinator, from: c) { CoordinatorBox(coordinator) }
    }
}

@_cdecl("og_container_view_context")
public func og_container_view_context(_ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let context = try container(c).viewContext
        return try handles.lend(context, from: c) { ContextBox(context) }
    }
}

@_cdecl("og_container_new_background_context")
public func og_container_new_background_context(_ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in ContextHandles.make(try container(c).newBackgroundContext()) }
}

@_cdecl("og_container_perform_background_task")
public func og_container_perform_background_task(_ c: OpaquePointer?, _ task: ContextTaskCallback?, _ user: UnsafeMutableRawPointer?,
                                                 _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let stack = try container(c)
        guard let task else { throw .invalidArgument("the task is NULL") }
        let call = Call(function: task, userdata: user)
        stack.performBackgroundTask { context in
            // The context's handle lives for the call only, as the context does.
            let h = ContextHandles.make(context)
            call.function(h, call.userdata)
            handles.release(h, ContextBox.self)
        }
        return OG_OK
    }
}

@_cdecl("og_container_description_count")
public func og_container_description_count(_ c: OpaquePointer?) -> Int {
    (try? container(c).persistentStoreDescriptions.count) ?? 0
}

@_cdecl("og_container_description_at")
public func og_container_description_at(_ c: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let list = try container(c).persistentStoreDescriptions
        guard index >= 0, index < list.count else { throw .invalidArgument("description index \(index) is out of range (0..<\(list.count))") }
        let d = list[index]
        return try handles.lend(d, from: c) { StoreDescriptionBox(d) }
    }
}

@_cdecl("og_container_set_descriptions")
public func og_container_set_descriptions(_ c: OpaquePointer?, _ list: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let stack = try container(c)
        guard count >= 0 else { throw .invalidArgument("the count is negative") }
        guard count == 0 || list != nil else { throw .invalidArgument("the descriptions are NULL") }
        var descriptions: [PersistentStoreDescription] = []
        for i in 0..<count { descriptions.append(try storeDescription(list![i]).description) }
        stack.persistentStoreDescriptions = descriptions
        return OG_OK
    }
}

@_cdecl("og_container_load_stores")
public func og_container_load_stores(_ c: OpaquePointer?, _ done: ContainerLoadCallback?, _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let stack = try container(c)
        guard let done else { throw .invalidArgument("the handler is NULL") }
        let call = Call(function: done, userdata: user)
        let owner = Call(function: c, userdata: nil)
        stack.loadPersistentStores { description, error in
            // The description is the handle og_container_description_at lends (one made for
            // the call when the container's handle is gone); the error lives for the call.
            let lent = try? handles.lend(description, from: owner.function) { StoreDescriptionBox(description) }
            let d = lent ?? handles.make(StoreDescriptionBox(description))
            let e = error.map { handles.make(ErrorBox($0)) }
            call.function(d, e, call.userdata)
            if lent == nil { handles.release(d, StoreDescriptionBox.self) }
            if let e { handles.release(e, ErrorBox.self) }
        }
        return OG_OK
    }
}

@_cdecl("og_container_default_directory")
public func og_container_default_directory() -> UnsafeMutablePointer<CChar>? {
    ownedString(PersistentContainer.defaultDirectory)
}
