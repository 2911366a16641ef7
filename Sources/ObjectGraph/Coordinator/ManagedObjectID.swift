import FoundationEssentials

/// The identity of a managed object: its entity and store row, or a temporary identity
/// until its first save. Equal IDs name the same object in every context.
public final class ManagedObjectID: Hashable, @unchecked Sendable, CustomStringConvertible {
    public let entity: EntityDescription
    /// The row's primary key; 0 while the ID is temporary.
    public let primaryKey: Int64
    /// The store's UUID once the ID is permanent.
    public let storeIdentifier: String?
    private let temporaryToken: UUID?

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.primaryKey = 0
        self.storeIdentifier = nil
        self.temporaryToken = UUID()
    }

    init(entity: EntityDescription, primaryKey: Int64, storeIdentifier: String) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.storeIdentifier = storeIdentifier
        self.temporaryToken = nil
    }

    public var isTemporaryID: Bool { temporaryToken != nil }

    /// `x-coredata://<store UUID>/<Entity>/p<key>`, or `x-coredata:///<Entity>/t<UUID>` while temporary.
    public var uriRepresentation: String {
        if let temporaryToken { return "x-coredata:///\(entity.name)/t\(temporaryToken.uuidString)" }
        return "x-coredata://\(storeIdentifier ?? "")/\(entity.name)/p\(primaryKey)"
    }

    public var description: String { uriRepresentation }

    public static func == (a: ManagedObjectID, b: ManagedObjectID) -> Bool {
        if a === b { return true }
        if let t = a.temporaryToken { return t == b.temporaryToken }
        return b.temporaryToken == nil && a.primaryKey == b.primaryKey && a.storeIdentifier == b.storeIdentifier
            && a.entity.rootEntity === b.entity.rootEntity
    }

    public func hash(into hasher: inout Hasher) {
        if let temporaryToken { hasher.combine(temporaryToken) } else {
            hasher.combine(primaryKey)
            hasher.combine(ObjectIdentifier(entity.rootEntity))
        }
    }
}
