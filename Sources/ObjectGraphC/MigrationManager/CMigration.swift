import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_migration_manager_*, og_coordinator_new_with_versions: migrating stores between model versions.

public typealias MigrationProgressCallback = @convention(c) (Double, UnsafeMutableRawPointer?) -> Void

/// A progress callback and its user pointer, as C gave them.
struct ProgressCallback: @unchecked Sendable {
    let callback: MigrationProgressCallback
    let user: UnsafeMutableRawPointer?
}

final class MigrationManagerBox: HandleBox {
    static let kindName = "an og_migration_manager"
    let manager: MigrationManager
    /// The thread running a migration, while one runs: the calls policies make need it.
    private let running = Mutex<pthread_t?>(nil)
    /// Handles lent for one migration (its contexts, its entity mappings): given back when it ends.
    private let lentForMigration = Mutex<Set<UInt>>([])
    let progress = Mutex<ProgressCallback?>(nil)

    init(_ manager: MigrationManager) { self.manager = manager }

    /// Marks the migration started on this thread. Errors: one is running already.
    func begin() throws(ObjectGraphError) {
        let started = running.withLock { (thread: inout pthread_t?) -> Bool in
            guard thread == nil else { return false }
            thread = pthread_self()
            return true
        }
        guard started else { throw .invalidArgument("the og_migration_manager is migrating already; one migration at a time") }
    }

    func end() { running.withLock { $0 = nil } }

    /// Checks that a migration runs, on the calling thread: what policies call during one.
    func requireRunning() throws(ObjectGraphError) {
        guard let thread = running.withLock({ $0 }) else {
            throw .invalidArgument("no migration is running: this call works only inside og_migration_manager_migrate (from a policy or progress callback)")
        }
        guard pthread_equal(thread, pthread_self()) != 0 else {
            throw ObjectGraphError(
                domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.wrongThread,
                message: "the og_migration_manager is migrating on another thread; call it from that thread")
        }
    }

    /// `context`'s handle, lent by `handle` until the migration ends.
    func lend(_ context: ManagedObjectContext, from handle: OpaquePointer) throws(ObjectGraphError) -> OpaquePointer {
        remember(try handles.lend(context, from: handle) { ContextBox(context) })
    }

    /// `mapping`'s handle, lent by `handle` until the migration ends.
    func lend(_ mapping: EntityMapping, from handle: OpaquePointer) throws(ObjectGraphError) -> OpaquePointer {
        remember(try handles.lend(mapping, from: handle) { EntityMappingBox(mapping) })
    }

    /// `object`'s handle, lent by the handle of its context.
    func lend(_ object: ManagedObject, from handle: OpaquePointer) throws(ObjectGraphError) -> OpaquePointer {
        guard let context = object.managedObjectContext else { throw .objectInaccessible("the object belongs to no context") }
        return try lendObject(object, from: try lend(context, from: handle))
    }

    private func remember(_ lent: OpaquePointer) -> OpaquePointer {
        lentForMigration.withLock { _ = $0.insert(UInt(bitPattern: lent)) }
        return lent
    }

    /// Gives back what was lent for the migration that ended; the objects its contexts lent go with them.
    func giveBack(from handle: OpaquePointer) {
        let lent = lentForMigration.withLock { (set: inout Set<UInt>) -> Set<UInt> in
            defer { set = [] }
            return set
        }
        for h in lent { _ = handles.unlend(OpaquePointer(bitPattern: h), from: handle) }
    }

    /// Marks a migration the library runs itself (automatic migration) as running here.
    func adopt() { running.withLock { $0 = pthread_self() } }
}

/// The C handle of each migration manager whose policies may call into C: the caller's
/// own handle while og_migration_manager_migrate runs; for a migration the library runs
/// itself (automatic migration when a store is added), a handle made at the first
/// policy call and released when the migration's policies are gone.
enum ManagerHandles {
    private enum Known {
        case caller(UInt)
        case adopted(Weak)
    }

    final class Weak: @unchecked Sendable {
        weak var value: AdoptedManager?
        init(_ value: AdoptedManager) { self.value = value }
    }

    private static let known = Mutex<[ObjectIdentifier: Known]>([:])

    static func register(_ manager: MigrationManager, _ handle: OpaquePointer) {
        known.withLock { $0[ObjectIdentifier(manager)] = .caller(UInt(bitPattern: handle)) }
    }

    static func forget(_ manager: MigrationManager) {
        _ = known.withLock { $0.removeValue(forKey: ObjectIdentifier(manager)) }
    }

    fileprivate static func forget(adopted: AdoptedManager) {
        known.withLock {
            if case .adopted(let weak)? = $0[adopted.identity], weak.value == nil || weak.value === adopted { $0[adopted.identity] = nil }
        }
    }

    /// The handle of `manager`; an adopted one is kept alive by `holder`.
    static func handle(for manager: MigrationManager, keeping holder: inout AdoptedManager?) -> OpaquePointer {
        if let holder { return holder.handle }
        let id = ObjectIdentifier(manager)
        let found = known.withLock { (table: inout [ObjectIdentifier: Known]) -> (UInt?, AdoptedManager?) in
            switch table[id] {
            case .caller(let h)?: return (h, nil)
            case .adopted(let weak)?: if let a = weak.value { return (nil, a) }
            case nil: break
            }
            let box = MigrationManagerBox(manager)
            box.adopt()
            let made = AdoptedManager(handle: handles.make(box), identity: id)
            table[id] = .adopted(Weak(made))
            return (nil, made)
        }
        if let h = found.0 { return OpaquePointer(bitPattern: h)! }
        holder = found.1
        return found.1!.handle
    }
}

/// A handle made for a migration the library runs itself; released with the last policy of it.
final class AdoptedManager: @unchecked Sendable {
    let handle: OpaquePointer
    let identity: ObjectIdentifier
    init(handle: OpaquePointer, identity: ObjectIdentifier) {
        self.handle = handle
        self.identity = identity
    }
    deinit {
        ManagerHandles.forget(adopted: self)
        handles.release(handle, MigrationManagerBox.self)
    }
}

func managerBox(_ m: OpaquePointer?) throws(ObjectGraphError) -> MigrationManagerBox { try handles.get(m, MigrationManagerBox.self) }

/// The box of a manager whose migration runs on this thread.
func running(_ m: OpaquePointer?) throws(ObjectGraphError) -> MigrationManagerBox {
    let box = try managerBox(m)
    try box.requireRunning()
    return box
}

func objects(_ p: UnsafePointer<OpaquePointer?>?, _ count: Int, _ what: String) throws(ObjectGraphError) -> [ManagedObject]? {
    if p == nil && count == 0 { return nil }
    return try boxes(p, count, ManagedObject.self, what)
}

/// Forwards the engine's progress while it rises; its return to 0 at the end is not reported.
final class ProgressForwarder {
    let box: MigrationManagerBox
    var last = 0.0
    init(_ box: MigrationManagerBox) { self.box = box }
    func forward(_ value: Double) {
        guard value > last, let p = box.progress.withLock({ $0 }) else { return }
        last = value
        p.callback(value, p.user)
    }
}

@_cdecl("og_migration_manager_new")
public func og_migration_manager_new(_ s: OpaquePointer?, _ d: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let source = try handles.get(s, ModelBox.self).model
        let destination = try handles.get(d, ModelBox.self).model
        return handles.make(MigrationManagerBox(try MigrationManager(sourceModel: source, destinationModel: destination)))
    }
}

@_cdecl("og_migration_manager_release")
public func og_migration_manager_release(_ m: OpaquePointer?) {
    handles.release(m, MigrationManagerBox.self)
}

@_cdecl("og_migration_manager_source_model")
public func og_migration_manager_source_model(_ m: OpaquePointer?) -> OpaquePointer? {
    guard let model = (try? managerBox(m))?.manager.sourceModel else { return nil }
    return try? handles.lend(model, from: m) { ModelBox(model) }
}

@_cdecl("og_migration_manager_destination_model")
public func og_migration_manager_destination_model(_ m: OpaquePointer?) -> OpaquePointer? {
    guard let model = (try? managerBox(m))?.manager.destinationModel else { return nil }
    return try? handles.lend(model, from: m) { ModelBox(model) }
}

@_cdecl("og_migration_manager_set_progress_callback")
public func og_migration_manager_set_progress_callback(_ m: OpaquePointer?, _ callback: MigrationProgressCallback?, _ user: UnsafeMutableRawPointer?,
                                                       _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let box = try managerBox(m)
        box.progress.withLock { $0 = callback.map { ProgressCallback(callback: $0, user: user) } }
    }
}

@_cdecl("og_migration_manager_progress")
public func og_migration_manager_progress(_ m: OpaquePointer?) -> Double {
    (try? managerBox(m))?.manager.migrationProgress ?? 0
}

@_cdecl("og_migration_manager_migrate")
public func og_migration_manager_migrate(_ m: OpaquePointer?, _ sourcePath: UnsafePointer<CChar>?, _ sourceType: UnsafePointer<CChar>?,
                                         _ sourceOptions: OpaquePointer?, _ mapping: OpaquePointer?, _ destinationPath: UnsafePointer<CChar>?,
                                         _ destinationType: UnsafePointer<CChar>?, _ destinationOptions: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try managerBox(m)
        let from = sourcePath == nil ? "" : try string(sourcePath, "the source path")
        let fromType = sourceType == nil ? StoreTypes.defaultName : try string(sourceType, "the source store type")
        let fromOptions = try plistDictionary(sourceOptions, "the source options")
        let to = destinationPath == nil ? "" : try string(destinationPath, "the destination path")
        let toType = destinationType == nil ? StoreTypes.defaultName : try string(destinationType, "the destination store type")
        let toOptions = try plistDictionary(destinationOptions, "the destination options")
        let given = mapping == nil ? nil : try mappingModel(mapping)
        let manager = box.manager
        try box.begin()
        ManagerHandles.register(manager, m!)
        let forwarder = ProgressForwarder(box)
        manager.progressHandler = { forwarder.forward($0) }
        defer {
            manager.progressHandler = nil
            ManagerHandles.forget(manager)
            box.giveBack(from: m!)
            box.end()
        }
        try manager.migrateStore(
            from: from, type: fromType, options: fromOptions, mapping: given, to: to, type: toType, destinationOptions: toOptions)
        return OG_OK
    }
}

@_cdecl("og_migration_manager_cancel")
public func og_migration_manager_cancel(_ m: OpaquePointer?, _ reason: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let box = try managerBox(m)
        let why = reason == nil ? nil : try handles.get(reason, ErrorBox.self).error
        box.manager.cancel(why)
    }
}

@_cdecl("og_migration_manager_source_context")
public func og_migration_manager_source_context(_ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        guard let context = box.manager.sourceContext else { throw .invalidArgument("the migration has no source context yet") }
        return try box.lend(context, from: m!)
    }
}

@_cdecl("og_migration_manager_destination_context")
public func og_migration_manager_destination_context(_ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        guard let context = box.manager.destinationContext else { throw .invalidArgument("the migration has no destination context yet") }
        return try box.lend(context, from: m!)
    }
}

@_cdecl("og_migration_manager_associate")
public func og_migration_manager_associate(_ m: OpaquePointer?, _ s: OpaquePointer?, _ d: OpaquePointer?, _ e: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        let source = try handles.get(s, ManagedObject.self)
        let destination = try handles.get(d, ManagedObject.self)
        box.manager.associate(source: source, destination: destination, mapping: try entityMapping(e))
    }
}

@_cdecl("og_migration_manager_destination_instances")
public func og_migration_manager_destination_instances(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ sources: UnsafePointer<OpaquePointer?>?,
                                                       _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        let mappingName = try string(name, "the entity mapping name")
        let found = try box.manager.destinationInstances(forEntityMappingNamed: mappingName, sourceInstances: try objects(sources, count, "sources"))
        guard let context = box.manager.destinationContext else { throw .invalidArgument("the migration has no destination context yet") }
        return handles.make(ResultsBox(found, contextHandle: try box.lend(context, from: m!)))
    }
}

@_cdecl("og_migration_manager_source_instances")
public func og_migration_manager_source_instances(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ destinations: UnsafePointer<OpaquePointer?>?,
                                                  _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        let mappingName = try string(name, "the entity mapping name")
        let found = try box.manager.sourceInstances(forEntityMappingNamed: mappingName, destinationInstances: try objects(destinations, count, "destinations"))
        guard let context = box.manager.sourceContext else { throw .invalidArgument("the migration has no source context yet") }
        return handles.make(ResultsBox(found, contextHandle: try box.lend(context, from: m!)))
    }
}

@_cdecl("og_migration_manager_create_default_destination")
public func og_migration_manager_create_default_destination(_ m: OpaquePointer?, _ s: OpaquePointer?, _ e: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        let source = try handles.get(s, ManagedObject.self)
        try box.manager.createDefaultDestinationInstance(for: source, mapping: try entityMapping(e))
    }
}

@_cdecl("og_migration_manager_create_default_relationships")
public func og_migration_manager_create_default_relationships(_ m: OpaquePointer?, _ d: OpaquePointer?, _ e: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let box = try running(m)
        let destination = try handles.get(d, ManagedObject.self)
        try box.manager.createDefaultRelationships(for: destination, mapping: try entityMapping(e))
    }
}
