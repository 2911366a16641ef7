/// How the objects of one model version become objects of another (NSMappingModel): an
/// ordered list of entity mappings. The order is the order of processing.
///
/// Mappings are bound to entities by name and version hash, never to entity objects, so
/// one mapping model serves any copy of its two models. Expressions are kept as the
/// predicate language's format text and parsed when a migration runs; an error then
/// names the mapping and the property.
public final class MappingModel: @unchecked Sendable {
    public var entityMappings: [EntityMapping]

    public init(entityMappings: [EntityMapping] = []) {
        self.entityMappings = entityMappings
    }

    /// The entity mappings by name (`entityMappingsByName`); the first wins for a repeated name.
    public var entityMappingsByName: [String: EntityMapping] {
        var out: [String: EntityMapping] = [:]
        for m in entityMappings where out[m.name] == nil { out[m.name] = m }
        return out
    }

    /// Checks that the mapping fits `source` and `destination`: the entities it names
    /// exist with the version hashes it records, and custom mappings name a policy.
    /// Errors: 134110 naming the mapping and the entity.
    public func check(source: ManagedObjectModel, destination: ManagedObjectModel) throws(ObjectGraphError) {
        func mismatch(_ m: EntityMapping, _ entity: String, _ why: String) -> ObjectGraphError {
            ObjectGraphError(
                code: ErrorCode.migration, message: "entity mapping '\(m.name)' does not fit the models: entity '\(entity)' \(why)",
                userInfo: [(ErrorUserInfoKey.entity, entity), ("mapping", m.name)])
        }
        for m in entityMappings {
            if let name = m.sourceEntityName {
                guard let e = source.entity(named: name) else { throw mismatch(m, name, "is not in the source model") }
                if let hash = m.sourceEntityVersionHash, hash != e.versionHash { throw mismatch(m, name, "has another version hash in the source model") }
            }
            if let name = m.destinationEntityName {
                guard let e = destination.entity(named: name) else { throw mismatch(m, name, "is not in the destination model") }
                if let hash = m.destinationEntityVersionHash, hash != e.versionHash {
                    throw mismatch(m, name, "has another version hash in the destination model")
                }
            }
            if m.kind == .custom, (m.migrationPolicyName ?? "").isEmpty {
                throw ObjectGraphError(
                    code: ErrorCode.migration, message: "entity mapping '\(m.name)' is custom but names no migration policy", userInfo: [("mapping", m.name)])
            }
        }
    }

    /// Whether this mapping was made for these two models: it fits them (hashes it records
    /// included) and names every entity of both (how Core Data picks a mapping model).
    func isMade(from source: ManagedObjectModel, to destination: ManagedObjectModel) -> Bool {
        guard (try? check(source: source, destination: destination)) != nil else { return false }
        let sources = Set(entityMappings.compactMap(\.sourceEntityName))
        let destinations = Set(entityMappings.compactMap(\.destinationEntityName))
        return sources == Set(source.entities.map(\.name)) && destinations == Set(destination.entities.map(\.name))
    }

    /// A deep copy: editing it leaves this model alone.
    public func copy() -> MappingModel {
        MappingModel(entityMappings: entityMappings.map { $0.copy() })
    }
}

/// What an entity mapping does (NSEntityMappingType), with Apple's numbers.
public enum EntityMappingKind: Int, Sendable, CaseIterable {
    /// The developer creates the destination instances (a policy does the work).
    case undefined = 0
    /// A custom policy does the work; it names one.
    case custom = 1
    /// The entity is new in the destination: nothing is read.
    case add = 2
    /// The entity is gone from the destination: its instances are not migrated.
    case remove = 3
    /// Instances are migrated as they are.
    case copy = 4
    /// Instances are migrated through the property mappings.
    case transform = 5

    /// The lowercase name the C and Python APIs use (`"copy"`).
    public var name: String {
        switch self {
        case .undefined: "undefined"
        case .custom: "custom"
        case .add: "add"
        case .remove: "remove"
        case .copy: "copy"
        case .transform: "transform"
        }
    }

    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    /// The word Core Data puts in an inferred mapping's name (`IEM_Copy_Book`).
    var inferredNameWord: String { name.prefix(1).uppercased() + name.dropFirst() }
}

/// How one source entity maps to one destination entity (NSEntityMapping).
public final class EntityMapping: @unchecked Sendable {
    /// Distinguishes mappings; `destinationInstances(forEntityMappingNamed:)` looks it up.
    public var name: String
    public var kind: EntityMappingKind
    public var sourceEntityName: String?
    public var destinationEntityName: String?
    /// Must equal the source entity's version hash when set (32 bytes).
    public var sourceEntityVersionHash: [UInt8]?
    /// Must equal the destination entity's version hash when set (32 bytes).
    public var destinationEntityVersionHash: [UInt8]?
    /// The expression that yields the source objects, usually
    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "E", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
    /// Without one, nothing is migrated, as on Apple.
    public var sourceExpression: String?
    /// Processed in order.
    public var attributeMappings: [PropertyMapping]
    /// Processed in order.
    public var relationshipMappings: [PropertyMapping]
    public var userInfo: [String: String]
    /// The name of a registered `EntityMigrationPolicy`; nil for the default policy.
    public var migrationPolicyName: String?

    public init(
        name: String, kind: EntityMappingKind = .undefined, sourceEntityName: String? = nil, destinationEntityName: String? = nil,
        attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [], sourceExpression: String? = nil,
        userInfo: [String: String] = [:], sourceEntityVersionHash: [UInt8]? = nil, destinationEntityVersionHash: [UInt8]? = nil,
        migrationPolicyName: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.sourceExpression = sourceExpression
        self.userInfo = userInfo
        self.sourceEntityVersionHash = sourceEntityVersionHash
        self.destinationEntityVersionHash = destinationEntityVersionHash
        self.migrationPolicyName = migrationPolicyName
    }

    public func copy() -> EntityMapping {
        EntityMapping(
            name: name, kind: kind, sourceEntityName: sourceEntityName, destinationEntityName: destinationEntityName,
            attributeMappings: attributeMappings.map { $0.copy() }, relationshipMappings: relationshipMappings.map { $0.copy() },
            sourceExpression: sourceExpression, userInfo: userInfo, sourceEntityVersionHash: sourceEntityVersionHash,
            destinationEntityVersionHash: destinationEntityVersionHash, migrationPolicyName: migrationPolicyName)
    }

    /// The default source expression of a mapping from `entity`: every instance of exactly it.
    public static func defaultSourceExpression(forEntityNamed entity: String) -> String {
        "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \(quoted(entity)), \"TRUEPREDICATE\"), $manager.sourceContext, NO)"
    }
}

/// How to compute one destination property (NSPropertyMapping).
public final class PropertyMapping: @unchecked Sendable {
    /// The destination property's name.
    public var name: String
    /// The format text of the expression that computes the value; nil leaves the default.
    public var valueExpression: String?
    public var userInfo: [String: String]

    public init(name: String, valueExpression: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    public func copy() -> PropertyMapping { PropertyMapping(name: name, valueExpression: valueExpression, userInfo: userInfo) }
}

/// `text` as a double-quoted string of the predicate language.
func quoted(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}
