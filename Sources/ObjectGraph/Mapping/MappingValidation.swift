/// The rules every mapping model read from a file must meet, whatever its format: a
/// mapping that breaks one would fail only later, in the middle of a migration.
enum MappingValidation {
    static let versionHashLength = 32

    static func check(_ model: MappingModel, file: String) throws(ObjectGraphError) {
        let at = MappingLocation(file: file)
        var names = Set<String>()
        for (index, m) in model.entityMappings.enumerated() {
            guard !m.name.isEmpty else { throw at.error("entity mapping #\(index + 1) has no name") }
            let here = at.with(entityMapping: m.name)
            // destinationInstances(forEntityMappingNamed:) finds a mapping by its name.
            guard names.insert(m.name).inserted else { throw here.error("the name is used by an earlier entity mapping too") }
            for (what, hash) in [("source", m.sourceEntityVersionHash), ("destination", m.destinationEntityVersionHash)] {
                if let hash, hash.count != versionHashLength {
                    throw here.error("the \(what) entity version hash has \(hash.count) bytes; a version hash has \(versionHashLength)")
                }
            }
            if m.kind == .custom && (m.migrationPolicyName ?? "").isEmpty {
                throw here.error("a custom entity mapping needs a migration policy")
            }
            if m.kind != .add && m.kind != .undefined && m.kind != .custom && (m.sourceEntityName ?? "").isEmpty {
                throw here.error("a \(m.kind.name) mapping needs a source entity")
            }
            if m.kind != .remove && m.kind != .undefined && m.kind != .custom && (m.destinationEntityName ?? "").isEmpty {
                throw here.error("a \(m.kind.name) mapping needs a destination entity")
            }
            // Both lists fill properties of one destination entity, where a name is unique.
            var propertyNames = Set<String>()
            for p in m.attributeMappings + m.relationshipMappings {
                guard !p.name.isEmpty else { throw here.error("a property mapping has no name") }
                guard propertyNames.insert(p.name).inserted else {
                    throw here.with(entityMapping: m.name, propertyMapping: p.name).error("the destination property is mapped twice")
                }
            }
        }
    }
}
