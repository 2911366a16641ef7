/// Entity and property version hashes, computed the way Apple's Core Data computes them,
/// so that stores written by either recognise the other's model (inventory §2.20).
///
/// All hashes are SHA-256. Integers are little-endian; strings are UTF-8 with neither
/// terminator nor length prefix; an absent string contributes nothing.
/// - property: name ‖ u16 flags (optional 1, transient 2, read-only 4) ‖ versionHashModifier
/// - attribute: SHA-256(property hash ‖ i32 attribute type ‖ 0x01 if external binary
///   storage ‖ 0x01 if its value is preserved in history on deletion)
/// - derived attribute: SHA-256(derivation expression format ‖ filtering predicate format)
/// - relationship: SHA-256(property hash ‖ destination name ‖ inverse name (omitted when
///   the relationship is its own inverse) ‖ u32 maxCount ‖ u32 minCount ‖ u16 1 if ordered)
/// - entity: SHA-256(name ‖ u8 abstract ‖ superentity hash ‖ the hashes of the persistent
///   attributes and relationships, inherited ones included, in name order ‖
///   versionHashModifier ‖ the uniqueness constraints, each joined with '.', sorted)
/// Class names, user info, defaults, validation rules, indexes, renaming identifiers and
/// fetched properties do not count.
enum VersionHash {
    static func entityHash(_ entity: EntityDescription) -> [UInt8] {
        var b: [UInt8] = Array(entity.name.utf8)
        b.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.superentity { b += entityHash(parent) }
        let persistent = entity.properties.filter { p in
            if let a = p as? AttributeDescription, a.derivationExpression != nil { return true }
            return !p.isTransient
        }
        for p in persistent.sorted(by: { utf16Less($0.name, $1.name) }) { b += propertyHash(p) }
        b += Array((entity.versionHashModifier ?? "").utf8)
        for joined in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted(by: utf16Less) {
            b += Array(joined.utf8)
        }
        return SHA256.hash(b)
    }

    /// Core Data orders names by their UTF-16 code units.
    static func utf16Less(_ a: String, _ b: String) -> Bool { a.utf16.lexicographicallyPrecedes(b.utf16) }

    static func baseHash(_ p: PropertyDescription) -> [UInt8] {
        var b: [UInt8] = Array(p.name.utf8)
        let flags: UInt16 = (p.isOptional ? 1 : 0) | (p.isTransient ? 2 : 0)
        b += [UInt8(flags & 0xFF), UInt8(flags >> 8)]
        b += Array((p.versionHashModifier ?? "").utf8)
        return SHA256.hash(b)
    }

    static func propertyHash(_ p: PropertyDescription) -> [UInt8] {
        if let a = p as? AttributeDescription {
            if let derivation = a.derivationExpression {
                return SHA256.hash(Array(derivationFormat(derivation).utf8))
            }
            var b = baseHash(a)
            b += littleEndian(UInt32(bitPattern: Int32(truncatingIfNeeded: a.attributeType.rawValue)))
            if a.allowsExternalBinaryDataStorage { b.append(1) }
            if a.preservesValueInHistoryOnDeletion { b.append(1) }
            return SHA256.hash(b)
        }
        if let r = p as? RelationshipDescription {
            var b = baseHash(r)
            b += Array((r.destinationEntity?.name ?? "").utf8)
            if let inverse = r.inverseRelationship, inverse !== r { b += Array(inverse.name.utf8) }
            b += littleEndian(UInt32(truncatingIfNeeded: r.maxCount))
            b += littleEndian(UInt32(truncatingIfNeeded: r.minCount))
            if r.isOrdered { b += [1, 0] }
            return SHA256.hash(b)
        }
        return baseHash(p)
    }

    /// Xcode writes a derivation as a key path (`pages.@count`); Core Data hashes the
    /// function form it turns that into (`count:(pages)`).
    static func derivationFormat(_ text: String) -> String {
        let t = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        for (suffix, function) in [(".@count", "count:"), (".@sum", "sum:")] where t.hasSuffix(suffix) {
            let path = t.dropLast(suffix.count)
            if let first = path.first, first.isLetter || first == "_",
                path.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
            {
                return "\(function)(\(path))"
            }
        }
        return t
    }

    private static func littleEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
    }
}
