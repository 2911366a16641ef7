import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_register_migration_policy, og_unregister_migration_policy: entity migration policies
// implemented in C, as a table of hooks registered by name.

public typealias MigrationStageCallback = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> Int32
public typealias MigrationObjectCallback = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?,
                                                           UnsafeMutableRawPointer?) -> Int32

/// The layout of `og_migration_policy_callbacks` (include/objectgraph.h).
struct CMigrationPolicyCallbacks: CallbackTableLayout {
    var userdata: UnsafeMutableRawPointer?
    var beginEntityMapping: MigrationStageCallback?
    var createDestinationInstances: MigrationObjectCallback?
    var endInstanceCreation: MigrationStageCallback?
    var createRelationships: MigrationObjectCallback?
    var endRelationshipCreation: MigrationStageCallback?
    var performCustomValidation: MigrationStageCallback?
    var endEntityMapping: MigrationStageCallback?
    var release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
}

/// A registered policy's table: released once it is unregistered (or replaced) and no
/// migration uses it any more.
typealias PolicyTable = RegisteredCallbacks<CMigrationPolicyCallbacks>

/// A policy whose hooks are C functions; a NULL hook does what the default policy does.
final class CallbackMigrationPolicy: EntityMigrationPolicy, @unchecked Sendable {
    let table: PolicyTable
    /// The handle of a migration the library runs itself, kept while this policy lives.
    private var adopted: AdoptedManager?

    init(table: PolicyTable) {
        self.table = table
        super.init()
    }

    override func beginEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.beginEntityMapping else { return try super.beginEntityMapping(mapping, manager: manager) }
        try stage("begin_entity_mapping", hook, mapping, manager)
    }

    override func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.createDestinationInstances else {
            return try super.createDestinationInstances(for: source, mapping: mapping, manager: manager)
        }
        try run("create_destination_instances", mapping, manager, source) { m, e, o, error in hook(m, o, e, error, self.table.callbacks.userdata) }
    }

    override func endInstanceCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.endInstanceCreation else { return try super.endInstanceCreation(mapping, manager: manager) }
        try stage("end_instance_creation", hook, mapping, manager)
    }

    override func createRelationships(for destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.createRelationships else {
            return try super.createRelationships(for: destination, mapping: mapping, manager: manager)
        }
        try run("create_relationships", mapping, manager, destination) { m, e, o, error in hook(m, o, e, error, self.table.callbacks.userdata) }
    }

    override func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.endRelationshipCreation else { return try super.endRelationshipCreation(mapping, manager: manager) }
        try stage("end_relationship_creation", hook, mapping, manager)
    }

    override func performCustomValidation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.performCustomValidation else { return try super.performCustomValidation(mapping, manager: manager) }
        try stage("perform_custom_validation", hook, mapping, manager)
    }

    override func endEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        guard let hook = table.callbacks.endEntityMapping else { return try super.endEntityMapping(mapping, manager: manager) }
        try stage("end_entity_mapping", hook, mapping, manager)
    }

    private func stage(_ name: String, _ hook: MigrationStageCallback, _ mapping: EntityMapping, _ manager: MigrationManager) throws(ObjectGraphError) {
        try run(name, mapping, manager, nil) { m, e, _, error in hook(m, e, error, self.table.callbacks.userdata) }
    }

    /// Calls a hook with the manager's handle, the mapping (and object) lent for the
    /// migration, and an error slot. The error the hook reports ends the migration as it
    /// is; a failure without one is 134170.
    private func run(_ name: String, _ mapping: EntityMapping, _ manager: MigrationManager, _ object: ManagedObject?,
                     _ call: (OpaquePointer, OpaquePointer, OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws(ObjectGraphError) {
        let m = ManagerHandles.handle(for: manager, keeping: &adopted)
        let box = try handles.get(m, MigrationManagerBox.self)
        let e = try box.lend(mapping, from: m)
        var o: OpaquePointer? = nil
        if let object { o = try box.lend(object, from: m) }
        var reported: OpaquePointer? = nil
        let rc = withUnsafeMutablePointer(to: &reported) { call(m, e, o, $0) }
        let error = takeReported(reported)
        guard rc != OG_OK else { return }
        throw error ?? ObjectGraphError(
            code: ErrorCode.entityMigrationPolicy,
            message: "the \(name) hook of migration policy '\(table.name)' failed for entity mapping '\(mapping.name)' without reporting an error",
            userInfo: [("mapping", mapping.name)])
    }
}

@_cdecl("og_register_migration_policy")
public func og_register_migration_policy(_ name: UnsafePointer<CChar>?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let n = try string(name, "the policy name")
        guard let callbacks else { throw .invalidArgument("the callback table is NULL") }
        guard !n.isEmpty, n != "NSEntityMigrationPolicy" else {
            throw .invalidArgument("'\(n)' cannot be registered: it is empty or the name of the default policy")
        }
        let table = PolicyTable(name: n, callbacks: callbacks.load(as: CMigrationPolicyCallbacks.self))
        EntityMigrationPolicy.register(n) { CallbackMigrationPolicy(table: table) }
        return OG_OK
    }
}

@_cdecl("og_unregister_migration_policy")
public func og_unregister_migration_policy(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let n = try string(name, "the policy name")
        guard EntityMigrationPolicy.registeredNames.contains(n) else { throw .invalidArgument("no migration policy named '\(n)' is registered") }
        EntityMigrationPolicy.register(n, factory: nil)
        return OG_OK
    }
}

// The og_<noun>_<verb> names; og_register_migration_policy and og_unregister_migration_policy stay one release.

@_cdecl("og_migration_policy_register")
public func og_migration_policy_register(_ name: UnsafePointer<CChar>?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    og_register_migration_policy(name, callbacks, err)
}

@_cdecl("og_migration_policy_unregister")
public func og_migration_policy_unregister(_ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    og_unregister_migration_policy(name, err)
}
