import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The value transformers of transformable attributes (`NSValueTransformer`), process-wide:
/// the secure default, which archives plist values and instances of allowed classes, and
/// the named transformers users register. An attribute names its transformer with
/// `valueTransformerName`; nil is the default.
public enum ValueTransformers {
    /// Apple's secure default (`NSSecureUnarchiveFromDataTransformerName`).
    public static let secureUnarchiveFromData = "NSSecureUnarchiveFromData"
    /// The legacy default (`NSKeyedUnarchiveFromDataTransformerName`): reads the same
    /// archives; writes plist values only.
    public static let keyedUnarchiveFromData = "NSKeyedUnarchiveFromData"

    /// Turns a value into the bytes the store keeps.
    public typealias Forward = @Sendable (TransformableValue) throws(ObjectGraphError) -> Data
    /// Turns stored bytes back into a value.
    public typealias Reverse = @Sendable (Data) throws(ObjectGraphError) -> TransformableValue

    /// A registered transformer, and the threads inside one of its closures: unregistering
    /// waits until no other thread is, so that a closure (a C callback and the data it
    /// uses) is never called after its unregistering has returned.
    private final class Named: Sendable {
        let forward: Forward
        let reverse: Reverse
        /// Thread -> how many of this transformer's calls it is inside.
        private let callers = Mutex<[UInt: Int]>([:])

        init(forward: @escaping Forward, reverse: @escaping Reverse) {
            self.forward = forward
            self.reverse = reverse
        }

        /// Counts the calling thread in; entered under the registry's lock (`withNamed`), so
        /// that an unregistering that has removed the transformer sees every caller.
        func enter() {
            callers.withLock { $0[UInt(pthread_self()), default: 0] += 1 }
        }

        func leave() {
            let me = UInt(pthread_self())
            callers.withLock { callers in
                let depth = callers[me, default: 1] - 1
                callers[me] = depth == 0 ? nil : depth
            }
        }

        /// Returns once no thread but the caller is inside a call (the caller's own calls,
        /// when a closure unregisters its transformer, end after it returns).
        func waitForOtherCallers() {
            let me = UInt(pthread_self())
            while callers.withLock({ $0.keys.contains { $0 != me } }) {
                usleep(100)
            }
        }
    }

    private struct Registry {
        var named: [String: Named] = [:]
        var archivable: Set<String> = []
    }

    private static let registry = Mutex(Registry())

    /// Registers a transformer under `name` (`setValueTransformer:forName:`). Error 140002
    /// for an empty name, a built-in one, or one already registered.
    public static func register(name: String, forward: @escaping Forward, reverse: @escaping Reverse) throws(ObjectGraphError) {
        guard !name.isEmpty, !isBuiltIn(name) else { throw .invalidArgument("'\(name)' cannot name a registered value transformer") }
        let added = registry.withLock { r in
            guard r.named[name] == nil else { return false }
            r.named[name] = Named(forward: forward, reverse: reverse)
            return true
        }
        guard added else { throw .invalidArgument("a value transformer named '\(name)' is registered already") }
    }

    /// Removes a transformer; none of its closures is called afterwards: calls that other
    /// threads are making are waited for. Error 140002 when no transformer has that name.
    public static func unregister(name: String) throws(ObjectGraphError) {
        guard let removed = registry.withLock({ $0.named.removeValue(forKey: name) }) else {
            throw .invalidArgument("no value transformer named '\(name)' is registered")
        }
        removed.waitForOtherCallers()
    }

    public static func isRegistered(name: String) -> Bool {
        isBuiltIn(name) || registry.withLock { $0.named[name] != nil }
    }

    /// Allows instances of `className` under the default transformer (the allowed classes
    /// of `NSSecureUnarchiveFromDataTransformer`). Registering a name again does nothing.
    /// Error 140002 for an empty name or a plist class.
    public static func registerArchivableClass(_ className: String) throws(ObjectGraphError) {
        guard !className.isEmpty, !className.hasPrefix("$"), !SecureArchive.plistClasses.contains(className) else {
            throw .invalidArgument("'\(className)' cannot be registered as an archivable class")
        }
        _ = registry.withLock { $0.archivable.insert(className) }
    }

    /// Withdraws an archivable class. Error 140002 when it is not registered.
    public static func unregisterArchivableClass(_ className: String) throws(ObjectGraphError) {
        guard registry.withLock({ $0.archivable.remove(className) }) != nil else {
            throw .invalidArgument("'\(className)' is not a registered archivable class")
        }
    }

    public static func isArchivableClass(_ className: String) -> Bool {
        registry.withLock { $0.archivable.contains(className) }
    }

    static func isBuiltIn(_ name: String) -> Bool { name == secureUnarchiveFromData || name == keyedUnarchiveFromData }

    // MARK: Use by attributes

    /// Checks a value when it is set: the default transformer takes plist values and
    /// instances of archivable classes only (error 140006). Named transformers decide at save.
    static func checkSettable(_ value: TransformableValue, for attribute: AttributeDescription) throws(ObjectGraphError) {
        guard attribute.valueTransformerName == nil || attribute.valueTransformerName == secureUnarchiveFromData else { return }
        for name in value.archivedClassNames where !isArchivableClass(name) {
            throw refusal(attribute, "an instance of '\(name)', which is not a property-list value nor of a class registered as archivable")
        }
    }

    private static func refusal(_ attribute: AttributeDescription, _ what: String) -> ObjectGraphError {
        var e = SecureArchive.refused(
            "'\(attribute.qualifiedName)' cannot hold \(what): register the class with register_archivable_class, or give the attribute a value transformer registered with register_value_transformer")
        e.userInfo = [(ErrorUserInfoKey.entity, attribute.entity?.name ?? "?"), (ErrorUserInfoKey.validationKey, attribute.name)]
        return e
    }

    /// The bytes the attribute's transformer makes of `value` (at save).
    static func encode(_ value: TransformableValue, for attribute: AttributeDescription) throws(ObjectGraphError) -> Data {
        switch attribute.valueTransformerName {
        case nil, secureUnarchiveFromData?:
            try checkSettable(value, for: attribute)
            return SecureArchive.encode(value)
        case keyedUnarchiveFromData?:
            // As on Apple: the legacy transformer writes plist values only.
            if let name = value.archivedClassNames.first {
                throw missing(attribute, "the value transformer NSKeyedUnarchiveFromData writes property-list values only, not an instance of '\(name)'")
            }
            return SecureArchive.encode(value)
        case let name?:
            return try withNamed(name, attribute) { (t) throws(ObjectGraphError) in try t.forward(value) }
        }
    }

    /// The value the attribute's transformer reads from stored bytes.
    static func decode(_ bytes: Data, for attribute: AttributeDescription) throws(ObjectGraphError) -> TransformableValue {
        switch attribute.valueTransformerName {
        case nil, secureUnarchiveFromData?, keyedUnarchiveFromData?:
            return try SecureArchive.decode(bytes, allows: isArchivableClass)
        case let name?:
            return try withNamed(name, attribute) { (t) throws(ObjectGraphError) in try t.reverse(bytes) }
        }
    }

    /// Runs `body` with the transformer named `name`, counted as one of its callers.
    private static func withNamed<T>(_ name: String, _ attribute: AttributeDescription,
                                     _ body: (Named) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        let found = registry.withLock { r -> Named? in
            let t = r.named[name]
            t?.enter()
            return t
        }
        guard let t = found else {
            throw missing(attribute, "no value transformer named '\(name)' is registered (register_value_transformer)")
        }
        defer { t.leave() }
        return try body(t)
    }

    /// Apple fails the save with NSCoreDataError when a transformable cannot be transformed.
    private static func missing(_ attribute: AttributeDescription, _ message: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.coreData, message: "'\(attribute.qualifiedName)': \(message)",
            userInfo: [(ErrorUserInfoKey.entity, attribute.entity?.name ?? "?"), (ErrorUserInfoKey.validationKey, attribute.name)])
    }
}
