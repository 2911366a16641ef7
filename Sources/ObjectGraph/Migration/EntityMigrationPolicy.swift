import Synchronization

/// Customizes the stages of a migration for one entity mapping (NSEntityMigrationPolicy).
/// Subclass it, register the subclass under a name with `register(_:factory:)`, and name
/// it in `EntityMapping.migrationPolicyName`. The manager makes one instance per entity
/// mapping per migration and calls, in order: `beginEntityMapping`, then per source object
/// `createDestinationInstances`, `endInstanceCreation`; after every mapping has created
/// its objects, per destination object `createRelationships`, `endRelationshipCreation`;
/// and last `performCustomValidation` and `endEntityMapping`.
///
/// An error a hook throws ends the migration as it is; the destination is left untouched.
open class EntityMigrationPolicy: @unchecked Sendable {
    public init() {}

    open func beginEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {}

    /// Creates the destination object(s) for `source`. The default inserts one object of
    /// the destination entity, sets its attributes from the attribute mappings, and
    /// associates it with `source`; an override that does not call it must associate
    /// the objects it makes itself.
    open func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        try manager.createDefaultDestinationInstance(for: source, mapping: mapping)
    }

    open func endInstanceCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {}

    /// Sets the relationships of `destination` from the relationship mappings.
    open func createRelationships(for destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {
        try manager.createDefaultRelationships(for: destination, mapping: mapping)
    }

    open func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {}

    /// Checks what the mapping produced, before the destination's own validation at save.
    open func performCustomValidation(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {}

    open func endEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws(ObjectGraphError) {}

    /// `FUNCTION($entityPolicy, "selector", arguments…)` in a value expression. The
    /// default refuses every selector; a subclass answers the ones it defines.
    open func perform(_ selector: String, arguments: [PredicateValue], manager: MigrationManager) throws(ObjectGraphError) -> PredicateValue {
        throw ObjectGraphError(
            code: ErrorCode.entityMigrationPolicy, message: "the migration policy \(type(of: self)) does not answer '\(selector)'")
    }

    // MARK: Registry

    public typealias Factory = @Sendable () -> EntityMigrationPolicy
    private static let registry = Mutex<[String: Factory]>([:])

    /// Registers the policy `EntityMapping.migrationPolicyName` names; nil unregisters it.
    public static func register(_ name: String, factory: Factory?) {
        registry.withLock { $0[name] = factory }
    }

    /// The names registered, sorted.
    public static var registeredNames: [String] { registry.withLock { $0.keys.sorted() } }

    static func make(named name: String?) -> EntityMigrationPolicy? {
        guard let name, !name.isEmpty, name != "NSEntityMigrationPolicy" else { return EntityMigrationPolicy() }
        return registry.withLock { $0[name] }?()
    }
}
