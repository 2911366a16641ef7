/// The plumbing of the life-cycle hooks (declared in ManagedObject.swift, where overridable
/// methods must live): the closures registered for an entity on the context
/// (`ManagedObjectContext.setHooks`), which is how C and Python take part.
extension ManagedObject {
    var hooks: ObjectHooks? { managedObjectContext?.hooks(for: entity) }

    /// Whether loading this object must call `awakeFromFetch`: a subclass, or closures
    /// for its entity. Takes the context so the fetch path reads no weak reference.
    @inline(__always)
    func hasLifecycleHooks(in context: ManagedObjectContext) -> Bool {
        type(of: self) != ManagedObject.self || context.hooks(for: entity) != nil
    }

    func awakeFromFetchIgnoringErrors(_ context: ManagedObjectContext) {
        guard hasLifecycleHooks(in: context) else { return }
        context.changeProcessingSuspended += 1
        awakeFromFetch()
        context.changeProcessingSuspended -= 1
    }
}

/// What restored an object's values, for `awakeFromSnapshotEvents` (Core Data's
/// `NSSnapshotEventType` values).
public struct SnapshotEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let undoInsertion = SnapshotEvents(rawValue: 1 << 1)
    public static let undoDeletion = SnapshotEvents(rawValue: 1 << 2)
    public static let undoUpdate = SnapshotEvents(rawValue: 1 << 3)
    public static let rollback = SnapshotEvents(rawValue: 1 << 4)
    public static let refresh = SnapshotEvents(rawValue: 1 << 5)
    public static let mergePolicy = SnapshotEvents(rawValue: 1 << 6)
}

/// Hooks for one entity given as closures (the C and Python way of subclassing). Hooks of
/// an entity apply to its subentities unless they have their own.
public struct ObjectHooks {
    public typealias Hook = (ManagedObject) -> Void
    public typealias Validator = (ManagedObject) throws(ObjectGraphError) -> Void

    public var awakeFromInsert: Hook?
    public var awakeFromFetch: Hook?
    public var awakeFromSnapshotEvents: ((ManagedObject, SnapshotEvents) -> Void)?
    /// May throw: the save then fails before anything is written, with that error.
    public var willSave: Validator?
    public var didSave: Hook?
    public var prepareForDeletion: Hook?
    public var willTurnIntoFault: Hook?
    public var didTurnIntoFault: Hook?
    public var validateValue: ((ManagedObject, String, PredicateValue) throws(ObjectGraphError) -> PredicateValue)?
    public var validateForInsert: Validator?
    public var validateForUpdate: Validator?
    public var validateForDelete: Validator?

    public init() {}
}

extension ManagedObjectContext {
    /// Sets (or with nil removes) the hooks of an entity in this context.
    public func setHooks(_ hooks: ObjectHooks?, forEntityName name: String) throws(ObjectGraphError) {
        try checkThread()
        let entity = try persistentStoreCoordinator.entity(named: name)
        entityHooks[ObjectIdentifier(entity)] = hooks
        hooksCache.removeAll()
    }

    /// The hooks that apply to `entity`: its own, or its nearest superentity's. The check for
    /// none at all is inlined into callers (a fault's first read, every save's validation):
    /// a call would copy the 192-byte answer out even when it is nil.
    @inline(__always)
    func hooks(for entity: EntityDescription) -> ObjectHooks? {
        entityHooks.isEmpty ? nil : registeredHooks(for: entity)
    }

    private func registeredHooks(for entity: EntityDescription) -> ObjectHooks? {
        let id = ObjectIdentifier(entity)
        if let cached = hooksCache[id] { return cached }
        var e: EntityDescription? = entity
        var found: ObjectHooks? = nil
        while let current = e, found == nil {
            found = entityHooks[ObjectIdentifier(current)]
            e = current.superentity
        }
        hooksCache[id] = .some(found)
        return found
    }
}
