import FoundationEssentials
import Synchronization

/// The identity of a managed object: its entity and store row, or a temporary identity
/// until its first save. Equal IDs name the same object in every context.
public final class ManagedObjectID: Hashable, @unchecked Sendable, CustomStringConvertible {
    public let entity: EntityDescription
    /// The row's primary key; 0 while the ID is temporary.
    public let primaryKey: Int64
    /// The store's UUID once the ID is permanent.
    public let storeIdentifier: String?
    /// A temporary ID's number, unique in the process (0 for a permanent ID).
    private let temporaryToken: Int64

    /// Temporary IDs are numbered by one process-wide counter; the URI adds a UUID drawn
    /// once per process, so temporary URIs from two processes never collide. (A UUID per
    /// ID would cost a read of the system's random source for every insert.)
    private static let temporaryCounter = Atomic<Int64>(0)
    private static let processToken = UUID().uuidString

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.primaryKey = 0
        self.storeIdentifier = nil
        self.temporaryToken = Self.temporaryCounter.add(1, ordering: .relaxed).newValue
    }

    init(entity: EntityDescription, primaryKey: Int64, storeIdentifier: String) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.storeIdentifier = storeIdentifier
        self.temporaryToken = 0
    }

    public var isTemporaryID: Bool { temporaryToken != 0 }

    /// `x-coredata://<store UUID>/<Entity>/p<key>`, or `x-coredata:///<Entity>/t<UUID><n>` while temporary.
    /// An incremental store's object has its reference after `p`, escaped (`StoreReference`).
    public var uriRepresentation: String {
        if temporaryToken != 0 { return "x-coredata:///\(entity.name)/t\(Self.processToken)\(temporaryToken)" }
        let key = StoreReferenceURIs.uriText(store: storeIdentifier, entity: entity, primaryKey: primaryKey) ?? String(primaryKey)
        return "x-coredata://\(storeIdentifier ?? "")/\(entity.name)/p\(key)"
    }

    public var description: String { uriRepresentation }

    public static func == (a: ManagedObjectID, b: ManagedObjectID) -> Bool {
        if a === b { return true }
        if a.temporaryToken != 0 { return a.temporaryToken == b.temporaryToken }
        return b.temporaryToken == 0 && a.primaryKey == b.primaryKey && a.storeIdentifier == b.storeIdentifier
            && a.entity.rootEntity === b.entity.rootEntity
    }

    public func hash(into hasher: inout Hasher) {
        if temporaryToken != 0 { hasher.combine(temporaryToken) } else {
            hasher.combine(primaryKey)
            hasher.combine(ObjectIdentifier(entity.rootEntity))
        }
    }
}

/// An object ID is a predicate constant that matches its object.
extension ManagedObjectID: ObjectIDConstant {
    public func predicateValue(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        guard key == "entity" else {
            throw .predicateEvaluation("an object ID (\(uriRepresentation)) has no key '\(key)' to read", keyPath: key)
        }
        return .object(entity)
    }

    public var storedIdentity: (entity: EntityDescription, primaryKey: Int64)? { isTemporaryID ? nil : (entity, primaryKey) }

    public var objectReference: ObjectReference? {
        ObjectReference(
            entityName: entity.name, primaryKey: primaryKey, storeIdentifier: storeIdentifier,
            temporaryURI: isTemporaryID ? uriRepresentation : nil)
    }
}
