import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// The object graph from C: the context's life cycle (pending changes, rollback, reset,
// refresh, permanent IDs, registration), queue contexts with perform, per-entity hooks,
// notifications, and the managed object's key paths, primitive, changed and committed
// values. Objects handed to callbacks are lent by the context handle, as everywhere.

public typealias BlockCallback = @convention(c) (UnsafeMutableRawPointer?) -> Void
public typealias ObjectCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias ValidationCallback = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> Int32
public typealias ValueValidationCallback = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                                           UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> Int32
public typealias NotificationCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

/// The context, checked to be called from its owning thread (or inside its perform block).
func owned(_ c: OpaquePointer?) throws(ObjectGraphError) -> ManagedObjectContext {
    let x = try contextBox(c).context
    try x.checkThread()
    return x
}

/// A C pointer carried into a block that runs on another thread; C promises it stays valid.
struct Carried: @unchecked Sendable {
    let callback: BlockCallback
    let user: UnsafeMutableRawPointer?
}

// MARK: Creating and releasing queue contexts

@_cdecl("og_context_new_with_type")
public func og_context_new_with_type(_ c: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let kind: ManagedObjectContext.ConcurrencyType = try cEnum(type)
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        return ContextHandles.make(ManagedObjectContext(coordinator: coordinator, concurrencyType: kind))
    }
}

@_cdecl("og_context_concurrency_type")
public func og_context_concurrency_type(_ c: OpaquePointer?) -> Int32 {
    guard let box = try? contextBox(c) else { return -1 }
    return Int32(box.context.concurrencyType.rawValue)
}

/// Waits for the blocks queued on a queue context, so that none runs after its release.
func drainContext(_ c: OpaquePointer?) {
    guard let box = try? contextBox(c), box.context.concurrencyType != .confinement else { return }
    _ = try? box.context.performAndWait {}
}

@_cdecl("og_context_perform")
public func og_context_perform(_ c: OpaquePointer?, _ callback: BlockCallback?, _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextBox(c).context
        guard let callback else { throw .invalidArgument("the callback is NULL") }
        let carried = Carried(callback: callback, user: user)
        try x.perform { carried.callback(carried.user) }
        return OG_OK
    }
}

@_cdecl("og_context_perform_and_wait")
public func og_context_perform_and_wait(_ c: OpaquePointer?, _ callback: BlockCallback?, _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextBox(c).context
        guard let callback else { throw .invalidArgument("the callback is NULL") }
        do { try x.performAndWait { callback(user) } } catch let e as ObjectGraphError { throw e } catch { throw .invalidArgument("\(error)") }
        return OG_OK
    }
}

// MARK: Life cycle

@_cdecl("og_context_process_pending_changes")
public func og_context_process_pending_changes(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try owned(c).processPendingChanges()
        return OG_OK
    }
}

@_cdecl("og_context_rollback")
public func og_context_rollback(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try owned(c).rollback()
        return OG_OK
    }
}

@_cdecl("og_context_reset")
public func og_context_reset(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let context = try owned(c)  // checks the thread: from the wrong one, nothing changes
        // The forgotten objects' handles go too, first: the reset then drops the objects'
        // last references and gives their memory back to the system in one go.
        handles.releaseLent(by: c)
        try context.reset()
        return OG_OK
    }
}

@_cdecl("og_context_refresh_object")
public func og_context_refresh_object(_ c: OpaquePointer?, _ o: OpaquePointer?, _ merge: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try owned(c).refresh(try object(o), mergeChanges: merge)
        return OG_OK
    }
}

@_cdecl("og_context_obtain_permanent_ids")
public func og_context_obtain_permanent_ids(_ c: OpaquePointer?, _ list: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        guard count >= 0 else { throw .invalidArgument("the count is negative") }
        var objects: [ManagedObject] = []
        if count > 0 {
            guard let list else { throw .invalidArgument("the object array is NULL but the count is \(count)") }
            for i in 0..<count { objects.append(try object(list[i])) }
        }
        try x.obtainPermanentIDs(for: objects)
        return OG_OK
    }
}

// MARK: Registration

/// The registered object with this URI (permanent or temporary), or nil.
func registered(_ x: ManagedObjectContext, _ uri: String) -> ManagedObject? {
    if let id = x.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) { return x.objectRegistered(for: id) }
    return x.insertedObjects.first { $0.objectID.uriRepresentation == uri }
}

func objectID(_ x: ManagedObjectContext, _ uri: String) throws(ObjectGraphError) -> ManagedObjectID {
    guard let id = x.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) else {
        throw .invalidArgument("'\(uri)' is not the URI of a saved object of this coordinator's stores")
    }
    return id
}

@_cdecl("og_context_object_registered")
public func og_context_object_registered(_ c: OpaquePointer?, _ uri: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                                         _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let text = try string(uri, "the object URI")
        let out = try required(out, "out")
        guard let o = registered(x, text) else { out.pointee = nil; return OG_NULL }
        out.pointee = try lendObject(o, from: c!)
        return OG_OK
    }
}

@_cdecl("og_context_object_with_uri")
public func og_context_object_with_uri(_ c: OpaquePointer?, _ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let text = try string(uri, "the object URI")
        if let o = registered(x, text) { return try lendObject(o, from: c!) }
        return try lendObject(try x.object(with: try objectID(x, text)), from: c!)
    }
}

@_cdecl("og_context_existing_object")
public func og_context_existing_object(_ c: OpaquePointer?, _ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let text = try string(uri, "the object URI")
        if let o = x.insertedObjects.first(where: { $0.objectID.uriRepresentation == text }) { return try lendObject(o, from: c!) }
        return try lendObject(try x.existingObject(with: try objectID(x, text)), from: c!)
    }
}

@_cdecl("og_context_registered_count")
public func og_context_registered_count(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        try required(out, "out").pointee = x.registeredObjects.count
        return OG_OK
    }
}

@_cdecl("og_context_objects")
public func og_context_objects(_ c: OpaquePointer?, _ which: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let objects: [ManagedObject]
        switch which {
        case 0: objects = x.registeredObjects
        case 1: objects = x.insertedObjects
        case 2: objects = x.updatedObjects
        case 3: objects = x.deletedObjects
        default: throw .invalidArgument("\(which) is not an og_object_set")
        }
        return handles.make(ResultsBox(objects, contextHandle: c!))
    }
}

// MARK: Settings

func contextFlag(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut, _ read: (ManagedObjectContext) -> Bool) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in read(try owned(c)) }, err)
}

@_cdecl("og_context_retains_registered_objects")
public func og_context_retains_registered_objects(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    contextFlag(c, out, err) { $0.retainsRegisteredObjects }
}

@_cdecl("og_context_set_retains_registered_objects")
public func og_context_set_retains_registered_objects(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try owned(c).retainsRegisteredObjects = on
        return OG_OK
    }
}

@_cdecl("og_context_propagates_deletes")
public func og_context_propagates_deletes(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    contextFlag(c, out, err) { $0.propagatesDeletesAtEndOfEvent }
}

@_cdecl("og_context_set_propagates_deletes")
public func og_context_set_propagates_deletes(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try owned(c).propagatesDeletesAtEndOfEvent = on
        return OG_OK
    }
}

@_cdecl("og_context_user_info")
public func og_context_user_info(_ c: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let k = try string(key, "the key")
        let out = try required(out, "out")
        guard let v = x.userInfo[k] else { out.pointee = nil; return OG_NULL }
        out.pointee = ownedString(v)
        return OG_OK
    }
}

@_cdecl("og_context_set_user_info")
public func og_context_set_user_info(_ c: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let k = try string(key, "the key")
        x.userInfo[k] = value == nil ? nil : try string(value, "the value")
        return OG_OK
    }
}

// MARK: Hooks

/// Calls a C validation callback and turns its answer into a Swift error.
func runValidation(_ o: ManagedObject, _ key: String?, _ c: OpaquePointer,
                           _ call: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws(ObjectGraphError) {
    let handle = try lendObject(o, from: c)
    var reported: OpaquePointer? = nil
    let result = call(handle, &reported)
    let error = takeReported(reported)
    guard result != OG_OK else { return }
    var e = error ?? ObjectGraphError(code: ErrorCode.validation, message: "\(o) failed a validation hook\(key.map { " for '\($0)'" } ?? "")")
    if e.userInfoValue(forKey: ErrorUserInfoKey.validationObject) == nil {
        e.userInfo.append((ErrorUserInfoKey.validationObject, o.objectID.uriRepresentation))
    }
    if let key, e.userInfoValue(forKey: ErrorUserInfoKey.validationKey) == nil {
        e.userInfo.append((ErrorUserInfoKey.validationKey, key))
    }
    throw e
}

/// A C validation callback for validateFor…, as an ObjectHooks.Validator.
struct ValidationCall {
    let callback: ValidationCallback
    let user: UnsafeMutableRawPointer?
    let context: OpaquePointer
    func run(_ o: ManagedObject) throws(ObjectGraphError) {
        let callback = self.callback, user = self.user
        try runValidation(o, nil, context) { h, e in callback(h, e, user) }
    }
}

/// A C value validator, as ObjectHooks.validateValue: the value is lent for the call.
struct ValueValidationCall {
    let callback: ValueValidationCallback
    let user: UnsafeMutableRawPointer?
    let context: OpaquePointer
    func run(_ o: ManagedObject, _ key: String, _ value: PredicateValue) throws(ObjectGraphError) -> PredicateValue {
        let boxed = handles.make(ValueBox(content: value, owner: context))
        defer { handles.release(boxed, ValueBox.self) }
        let callback = self.callback, user = self.user
        try runValidation(o, key, context) { h, e in key.withCString { callback(h, $0, boxed, e, user) } }
        return value
    }
}

func updateHooks(_ c: OpaquePointer?, _ entityName: UnsafePointer<CChar>?, _ change: (inout ObjectHooks, OpaquePointer) throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
    let box = try contextBox(c)
    try box.context.checkThread()
    let name = try string(entityName, "the entity name")
    var hooks = box.hooks[name] ?? ObjectHooks()
    try change(&hooks, c!)
    try box.context.setHooks(hooks, forEntityName: name)
    box.hooks[name] = hooks
}

@_cdecl("og_context_set_hook")
public func og_context_set_hook(_ c: OpaquePointer?, _ entityName: UnsafePointer<CChar>?, _ kind: Int32, _ callback: ObjectCallback?,
                                _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try updateHooks(c, entityName) { hooks, c throws(ObjectGraphError) in
            var hook: ObjectHooks.Hook? = nil
            var snapshotHook: ((ManagedObject, SnapshotEvents) -> Void)? = nil
            if let callback {
                let h: ObjectHooks.Hook = { o in if let h = try? lendObject(o, from: c) { callback(h, user) } }
                hook = h
                snapshotHook = { o, _ in h(o) }
            }
            switch kind {
            case 0: hooks.awakeFromInsert = hook
            case 1: hooks.awakeFromFetch = hook
            case 2: hooks.awakeFromSnapshotEvents = snapshotHook
            case 3: hooks.willSave = hook
            case 4: hooks.didSave = hook
            case 5: hooks.prepareForDeletion = hook
            case 6: hooks.willTurnIntoFault = hook
            case 7: hooks.didTurnIntoFault = hook
            default: throw .invalidArgument("\(kind) is not an og_hook_kind")
            }
        }
        return OG_OK
    }
}

@_cdecl("og_context_set_validation_hook")
public func og_context_set_validation_hook(_ c: OpaquePointer?, _ entityName: UnsafePointer<CChar>?, _ kind: Int32, _ callback: ValidationCallback?,
                                           _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try updateHooks(c, entityName) { hooks, c throws(ObjectGraphError) in
            var validator: ObjectHooks.Validator? = nil
            if let callback {
                let carried = ValidationCall(callback: callback, user: user, context: c)
                validator = carried.run
            }
            switch kind {
            case 0: hooks.validateForInsert = validator
            case 1: hooks.validateForUpdate = validator
            case 2: hooks.validateForDelete = validator
            case 3: hooks.willSave = validator
            default: throw .invalidArgument("\(kind) is not an og_validation_kind")
            }
        }
        return OG_OK
    }
}

@_cdecl("og_context_set_value_validator")
public func og_context_set_value_validator(_ c: OpaquePointer?, _ entityName: UnsafePointer<CChar>?, _ callback: ValueValidationCallback?,
                                           _ user: UnsafeMutableRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try updateHooks(c, entityName) { hooks, c throws(ObjectGraphError) in
            hooks.validateValue = nil
            if let callback {
                let carried = ValueValidationCall(callback: callback, user: user, context: c)
                hooks.validateValue = carried.run
            }
        }
        return OG_OK
    }
}

// MARK: Notifications

@_cdecl("og_context_add_observer")
public func og_context_add_observer(_ c: OpaquePointer?, _ kind: Int32, _ callback: NotificationCallback?, _ user: UnsafeMutableRawPointer?,
                                    _ token: UnsafeMutablePointer<UInt64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let name: ContextNotificationName = try cEnum(kind)
        guard let callback else { throw .invalidArgument("the callback is NULL") }
        let out = try required(token, "token")
        let owner = c!
        let t = x.addObserver(for: name) { n in
            let h = handles.make(NotificationBox(n, contextHandle: owner))
            callback(h, user)
            handles.release(h, NotificationBox.self)
        }
        out.pointee = tokenNumber()
        contextTokens(x)[out.pointee] = t
        return OG_OK
    }
}

/// Observer tokens handed to C, by number; kept per context.
private nonisolated(unsafe) var observerTokens: [ObjectIdentifier: [UInt64: ContextObserverToken]] = [:]
private nonisolated(unsafe) var nextToken: UInt64 = 1
private nonisolated(unsafe) var tokenLock = pthread_mutex_t()
let tokenLockReady: Bool = { pthread_mutex_init(&tokenLock, nil); return true }()

func tokenNumber() -> UInt64 {
    _ = tokenLockReady
    pthread_mutex_lock(&tokenLock)
    defer { pthread_mutex_unlock(&tokenLock) }
    nextToken += 1
    return nextToken - 1
}

struct TokenTable {
    let context: ObjectIdentifier
    subscript(_ n: UInt64) -> ContextObserverToken? {
        get {
            _ = tokenLockReady
            pthread_mutex_lock(&tokenLock)
            defer { pthread_mutex_unlock(&tokenLock) }
            return observerTokens[context]?[n]
        }
        nonmutating set {
            _ = tokenLockReady
            pthread_mutex_lock(&tokenLock)
            defer { pthread_mutex_unlock(&tokenLock) }
            observerTokens[context, default: [:]][n] = newValue
        }
    }
}

func contextTokens(_ x: ManagedObjectContext) -> TokenTable { TokenTable(context: ObjectIdentifier(x)) }

/// Forgets the observer tokens of a context that is going away.
func forgetTokens(_ c: OpaquePointer?) {
    guard let box = try? contextBox(c) else { return }
    _ = tokenLockReady
    pthread_mutex_lock(&tokenLock)
    observerTokens.removeValue(forKey: ObjectIdentifier(box.context))
    pthread_mutex_unlock(&tokenLock)
}

@_cdecl("og_context_remove_observer")
public func og_context_remove_observer(_ c: OpaquePointer?, _ token: UInt64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try owned(c)
        let table = contextTokens(x)
        guard let t = table[token] else { throw .invalidArgument("\(token) is not an observer token of this context") }
        x.removeObserver(t)
        table[token] = nil
        return OG_OK
    }
}

func notification(_ n: OpaquePointer?) throws(ObjectGraphError) -> NotificationBox { try handles.get(n, NotificationBox.self) }

func list(_ n: ContextNotification, _ key: Int32) -> [ManagedObject]? {
    switch key {
    case 0: n.inserted
    case 1: n.updated
    case 2: n.deleted
    case 3: n.refreshed
    case 4: n.invalidated
    default: nil
    }
}

// MARK: Errors made by callbacks

// MARK: Managed objects
