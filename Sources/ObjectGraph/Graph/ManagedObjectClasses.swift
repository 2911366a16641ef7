import Synchronization

/// The Swift subclasses of `ManagedObject`, by class name. A context instantiates the
/// class registered under an entity's `managedObjectClassName` (Core Data's
/// `representedClassName`), and `ManagedObject` when there is none.
public enum ManagedObjectClasses {
    private static let types = Mutex<[String: ManagedObject.Type]>([:])

    /// Registers `type` under `name` (by default the type's own name), replacing any
    /// earlier registration. Contexts created afterwards use it.
    public static func register(_ type: ManagedObject.Type, named name: String? = nil) {
        let key = name ?? String(describing: type)
        types.withLock { $0[key] = type }
    }

    public static func unregister(named name: String) {
        _ = types.withLock { $0.removeValue(forKey: name) }
    }

    static func type(named name: String) -> ManagedObject.Type? {
        types.withLock { $0[name] }
    }
}
