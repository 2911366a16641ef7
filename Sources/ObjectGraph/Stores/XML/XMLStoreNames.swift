/// How an XML store names entities and properties: entity types in upper case, property
/// names in lower case (`<object type="TODO">`, `<attribute name="datecreated">`), as
/// Apple's Core Data writes them. Reading matches those names back without regard to case,
/// so a model whose names collide that way cannot be stored in XML.
struct XMLStoreNames {
    let entities: [String: EntityDescription]
    private let properties: [ObjectIdentifier: [String: PropertyDescription]]

    init(model: ManagedObjectModel) throws(ObjectGraphError) {
        var entities: [String: EntityDescription] = [:]
        var properties: [ObjectIdentifier: [String: PropertyDescription]] = [:]
        for entity in model.entities {
            let key = entity.name.uppercased()
            if let other = entities[key] {
                throw .invalidArgument("entities '\(other.name)' and '\(entity.name)' cannot share an XML store: it writes entity names in upper case, where they are the same")
            }
            entities[key] = entity
            var byName: [String: PropertyDescription] = [:]
            for p in entity.properties where p is AttributeDescription || p is RelationshipDescription {
                let lower = p.name.lowercased()
                if let other = byName[lower] {
                    throw .invalidArgument("'\(entity.name)' cannot be kept in an XML store: it writes property names in lower case, where '\(other.name)' and '\(p.name)' are the same")
                }
                byName[lower] = p
            }
            properties[ObjectIdentifier(entity)] = byName
        }
        (self.entities, self.properties) = (entities, properties)
    }

    func entity(_ type: String) -> EntityDescription? { entities[type.uppercased()] }

    func property(_ name: String, of entity: EntityDescription) -> PropertyDescription? {
        properties[ObjectIdentifier(entity)]?[name.lowercased()]
    }

    static func objectID(_ key: Int64) -> String { "z\(key)" }

    /// The number in an object ID `z<number>`, or nil.
    static func key(_ id: String) -> Int64? {
        guard id.first == "z", let n = Int64(id.dropFirst()), n > 0, id.dropFirst().allSatisfy(\.isASCII) else { return nil }
        return n
    }
}
