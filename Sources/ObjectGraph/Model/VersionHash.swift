/// Entity version hashes: SHA-256 over a canonical, length-prefixed encoding of exactly
/// the inputs Core Data lists (inventory §2.20). Property hashes are taken in name order,
/// so declaration order does not matter; class names, user info, defaults and validation
/// rules do not count.
enum VersionHash {
    static func entityHash(_ entity: EntityDescription) -> [UInt8] {
        var e = Encoder()
        e.string("entity")
        e.string(entity.name)
        e.bytes(entity.superentity.map(entityHash) ?? [])
        e.bool(entity.isAbstract)
        for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
            e.bytes(propertyHash(property))
        }
        e.string(entity.versionHashModifier ?? "")
        return SHA256.hash(e.buffer)
    }

    static func propertyHash(_ property: PropertyDescription) -> [UInt8] {
        var e = Encoder()
        e.string(property.name)
        e.bool(property.isOptional)
        e.bool(property.isTransient)
        e.bool(false)  // isReadOnly: properties are never read-only here
        e.string(property.versionHashModifier ?? "")
        if let attribute = property as? AttributeDescription {
            e.string("attribute")
            e.int(attribute.attributeType.rawValue)
        } else if let relationship = property as? RelationshipDescription {
            e.string("relationship")
            e.string(relationship.destinationEntity?.name ?? "")
            e.string(relationship.inverseRelationship?.name ?? "")
            e.int(relationship.minCount)
            e.int(relationship.maxCount)
        }
        return SHA256.hash(e.buffer)
    }

    struct Encoder {
        var buffer: [UInt8] = []
        mutating func int(_ v: Int) {
            for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: v >> shift)) }
        }
        mutating func bool(_ v: Bool) { buffer.append(v ? 1 : 0) }
        mutating func bytes(_ b: [UInt8]) {
            int(b.count)
            buffer += b
        }
        mutating func string(_ s: String) { bytes(Array(s.utf8)) }
    }
}
