import FoundationEssentials
import Synchronization

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

    private struct Named {
        let forward: Forward
        let reverse: Reverse
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

    /// Removes a transformer; none of its closures is called afterwards. Error 140002 when
    /// no transformer has that name.
    public static func unregister(name: String) throws(ObjectGraphError) {
        guard registry.withLock({ $0.named.removeValue(forKey: name) }) != nil else {
            throw .invalidArgument("no value transformer named '\(name)' is registered")
        }
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
            return try named(name, attribute).forward(value)
        }
    }

    /// The value the attribute's transformer reads from stored bytes.
    static func decode(_ bytes: Data, for attribute: AttributeDescription) throws(ObjectGraphError) -> TransformableValue {
        switch attribute.valueTransformerName {
        case nil, secureUnarchiveFromData?, keyedUnarchiveFromData?:
            return try SecureArchive.decode(bytes, allows: isArchivableClass)
        case let name?:
            return try named(name, attribute).reverse(bytes)
        }
    }

    private static func named(_ name: String, _ attribute: AttributeDescription) throws(ObjectGraphError) -> Named {
        guard let t = registry.withLock({ $0.named[name] }) else {
            throw missing(attribute, "no value transformer named '\(name)' is registered (register_value_transformer)")
        }
        return t
    }

    /// Apple fails the save with NSCoreDataError when a transformable cannot be transformed.
    private static func missing(_ attribute: AttributeDescription, _ message: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.coreData, message: "'\(attribute.qualifiedName)': \(message)",
            userInfo: [(ErrorUserInfoKey.entity, attribute.entity?.name ?? "?"), (ErrorUserInfoKey.validationKey, attribute.name)])
    }
}
