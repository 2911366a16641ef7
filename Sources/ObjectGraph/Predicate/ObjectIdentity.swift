/// How an object ID names an object, so that an ID given as a predicate argument matches
/// that object wherever the predicate reads it: a managed object, a store's row, or an ID.
public struct ObjectReference: Hashable, Sendable {
    /// The object's own entity (an ID names the concrete entity, never a superentity).
    public let entityName: String
    /// The row's primary key; 0 while temporary.
    public let primaryKey: Int64
    /// The store's UUID; nil while temporary, or when the reader does not know its store.
    public let storeIdentifier: String?
    /// The whole URI of a temporary ID: the only thing that identifies it.
    public let temporaryURI: String?

    /// Whether two references name one object. A store unknown on one side is not checked.
    func matches(_ other: ObjectReference) -> Bool {
        if temporaryURI != nil || other.temporaryURI != nil { return temporaryURI == other.temporaryURI }
        guard primaryKey == other.primaryKey, entityName == other.entityName else { return false }
        guard let a = storeIdentifier, let b = other.storeIdentifier else { return true }
        return a == b
    }
}

/// The keys of URIs whose text after `p` is a reference, not a number: a store that names
/// its objects by reference (an incremental store) installs `resolver` when it opens.
public enum ObjectURIKeys {
    nonisolated(unsafe) private static var resolver: ((_ store: Substring, _ entity: Substring, _ text: Substring) -> Int64?)?
    private static let lock = RecursiveLock()

    static func install(_ resolve: @escaping (_ store: Substring, _ entity: Substring, _ text: Substring) -> Int64?) {
        lock.withLock { resolver = resolve }
    }

    static func key(store: Substring, entity: Substring, text: Substring) -> Int64? {
        guard let resolve = lock.withLock({ resolver }) else { return nil }
        return resolve(store, entity, text)
    }
}

/// Marks the readers that are object-ID constants rather than objects: compared with
/// an object, they match by reference (store, entity and key, or a temporary URI).
protocol ObjectIDConstant: KeyValueReading {}

/// An object ID known by its URI alone (`x-coredata://<store>/<Entity>/p<key>`, or
/// `x-coredata:///<Entity>/t…` while temporary), as C and Python hand them over without a
/// coordinator. As a predicate argument it matches the object with that ID.
public final class ObjectIDReference: ObjectIDConstant, CustomStringConvertible, @unchecked Sendable {
    public let reference: ObjectReference
    public let uriRepresentation: String

    /// nil when `uri` is not an object ID URI.
    public init?(uriRepresentation uri: String) {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        // A reference (an incremental store's) may hold slashes: only the first two separate.
        let parts = uri.dropFirst(prefix.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, let kind = parts[2].first else { return nil }
        let entityName = String(parts[1])
        if kind == "p", !parts[0].isEmpty,
            let key = Int64(parts[2].dropFirst()).flatMap({ $0 > 0 ? $0 : nil })
                ?? ObjectURIKeys.key(store: parts[0], entity: parts[1], text: parts[2].dropFirst())
        {
            reference = ObjectReference(entityName: entityName, primaryKey: key, storeIdentifier: String(parts[0]), temporaryURI: nil)
        } else if kind == "t", parts[0].isEmpty, parts[2].count > 1 {
            reference = ObjectReference(entityName: entityName, primaryKey: 0, storeIdentifier: nil, temporaryURI: uri)
        } else {
            return nil
        }
        uriRepresentation = uri
    }

    public var description: String { uriRepresentation }

    public func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        throw .predicateEvaluation("an object ID argument (\(uriRepresentation)) has no key '\(key)' to read", keyPath: key)
    }

    public var objectReference: ObjectReference? { reference }
}

/// An entity is a predicate constant (`entity == %@`); its name can be read.
extension EntityDescription: KeyValueReading {
    public func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        guard key == "name" else {
            throw .predicateEvaluation("an entity has no key '\(key)' to read in a predicate", keyPath: key)
        }
        return .scalar(.string(name))
    }
}

enum ObjectIdentity {
    /// Equality of two readers that are not the same instance: entities by name (an entity
    /// of another copy of the model is the same entity), object-ID constants by reference.
    /// nil when neither rule applies and stored rows decide.
    static func equal(_ x: any KeyValueReading, _ y: any KeyValueReading) -> Bool? {
        if let a = x as? EntityDescription { return (y as? EntityDescription)?.name == a.name }
        if y is EntityDescription { return false }
        guard x is any ObjectIDConstant || y is any ObjectIDConstant else { return nil }
        guard let a = x.objectReference, let b = y.objectReference else { return false }
        return a.matches(b)
    }
}
