/// Turns the `<object>` elements of an XML store into cache nodes, and cache nodes into
/// elements. An object's key is the number of its ID (`z107` is 107), unique in the file.
enum XMLStoreObjects {
    /// Nodes for `objects`, checked against the model: unknown entities, values of the wrong
    /// kind, and relationships naming objects that are missing or of the wrong entity are
    /// errors naming the line. Attributes the model lacks are skipped, as other atomic
    /// stores skip them.
    static func nodes(_ objects: [XMLTag], names: XMLStoreNames, path: String) throws(ObjectGraphError) -> [AtomicStoreCacheNode] {
        var nodes: [AtomicStoreCacheNode] = []
        var byKey: [Int64: AtomicStoreCacheNode] = [:]
        for tag in objects {
            let type = tag["type"] ?? "", id = tag["id"] ?? ""
            guard let key = XMLStoreNames.key(id) else { throw XMLStoreErrors.damaged(path, line: tag.line, "'\(id)' is not an object ID (z and a number)") }
            guard byKey[key] == nil else { throw XMLStoreErrors.damaged(path, line: tag.line, "two objects have the ID '\(id)'") }
            guard let entity = names.entity(type) else {
                throw ObjectGraphError(
                    code: ErrorCode.storeIncompatibleSchema, message: "'\(path)', line \(tag.line): the store has objects of entity '\(type)', which the model does not have",
                    userInfo: [(ErrorUserInfoKey.entity, type), (ErrorUserInfoKey.filePath, path)])
            }
            let node = AtomicStoreCacheNode(entity: entity, referenceObject: key, values: [AttributeValue](repeating: .null, count: entity.properties.count))
            for c in tag.children where c.name == "attribute" {
                let name = c["name"] ?? "", written = c["type"] ?? ""
                guard let property = names.property(name, of: entity) else { continue }
                guard let attribute = property as? AttributeDescription else {
                    throw XMLStoreErrors.damaged(path, line: c.line, "'\(entity.name).\(property.name)' is a relationship, written as an attribute")
                }
                guard !attribute.isTransient, let slot = entity.layout.slotByName[attribute.name] else { continue }
                guard let value = XMLStoreValues.value(c.text, written: written, attribute: attribute) else {
                    let shown = c.text.count > 40 ? String(c.text.prefix(40)) + "…" : c.text
                    throw XMLStoreErrors.damaged(path, line: c.line, "'\(shown)' (type \(written)) is not a value of '\(entity.name).\(attribute.name)' (\(attribute.attributeType.name))")
                }
                node.values[slot] = value
            }
            byKey[key] = node
            nodes.append(node)
        }
        for (tag, node) in zip(objects, nodes) {
            let entity = node.entity
            for c in tag.children where c.name == "relationship" {
                guard let property = names.property(c["name"] ?? "", of: entity) else { continue }
                guard let r = property as? RelationshipDescription, let destination = r.destinationEntity else {
                    throw XMLStoreErrors.damaged(path, line: c.line, "'\(entity.name).\(property.name)' is an attribute, written as a relationship")
                }
                var keys: [Int64] = []
                for id in (c["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
                    guard let key = XMLStoreNames.key(String(id)), let target = byKey[key] else {
                        throw XMLStoreErrors.damaged(path, line: c.line, "'\(entity.name).\(r.name)' names '\(id)', which is no object of the store")
                    }
                    guard target.entity.isKind(of: destination) else {
                        throw XMLStoreErrors.damaged(path, line: c.line, "'\(entity.name).\(r.name)' names '\(id)', a \(target.entity.name), not a \(destination.name)")
                    }
                    keys.append(key)
                }
                if !r.isToMany {
                    guard keys.count <= 1 else { throw XMLStoreErrors.damaged(path, line: c.line, "the to-one '\(entity.name).\(r.name)' names \(keys.count) objects") }
                    if let slot = entity.layout.slotByName[r.name] { node.values[slot] = keys.first.map { .integer($0) } ?? .null }
                } else if r.isOrdered || r.inverseRelationship == nil || r.inverseRelationship?.isToMany == true {
                    // A to-many with a to-one inverse is read from that side; the list keeps order
                    // and the members of many-to-many and inverse-less relationships.
                    var seen = Set<Int64>()
                    node.members[r.name] = keys.filter { seen.insert($0).inserted }
                }
            }
        }
        return nodes
    }

    /// One `<object>` element per node, with `number(root, key)` giving each object's ID
    /// number. Strings that XML cannot hold are refused (nothing is written).
    static func elements(_ nodes: [AtomicStoreCacheNode], number: (EntityDescription, Int64) -> Int64?, path: String) throws(ObjectGraphError) -> [XMLTag] {
        // Members of to-manys whose inverse is a to-one, from the to-one side.
        var pointing: [ObjectIdentifier: [Int64: [Int64]]] = [:]
        for node in nodes {
            for case let r as RelationshipDescription in node.entity.properties where !r.isToMany && r.inverseRelationship?.isToMany == true {
                guard let slot = node.entity.layout.slotByName[r.name], case .integer(let target) = node.values[slot] else { continue }
                pointing[ObjectIdentifier(r), default: [:]][target, default: []].append(node.referenceObject)
            }
        }
        var tags: [XMLTag] = []
        tags.reserveCapacity(nodes.count)
        for node in nodes {
            let entity = node.entity, root = entity.rootEntity
            guard let own = number(root, node.referenceObject) else { continue }
            let tag = XMLTag(name: "object", attributes: [("type", entity.name.uppercased()), ("id", XMLStoreNames.objectID(own))])
            var toOnes: [XMLTag] = [], toManys: [XMLTag] = []
            for (slot, property) in entity.properties.enumerated() where !property.isTransient && slot < node.values.count {
                if let a = property as? AttributeDescription {
                    guard let type = XMLStoreValues.typeName(a.attributeType), let text = XMLStoreValues.text(node.values[slot], type: a.attributeType) else { continue }
                    if let bad = XMLStoreText.unwritableCharacter(text) {
                        throw XMLStoreErrors.unwritable(path, entity: entity.name, key: a.name, "holds the character U+\(String(bad.value, radix: 16, uppercase: true)), which an XML file cannot hold")
                    }
                    let e = tag.add("attribute", [("name", a.name.lowercased()), ("type", type)])
                    e.text = text
                } else if let r = property as? RelationshipDescription, let destination = r.destinationEntity {
                    var keys: [Int64]
                    if !r.isToMany {
                        if case .integer(let k) = node.values[slot] { keys = [k] } else { keys = [] }
                    } else if let inverse = r.inverseRelationship, !inverse.isToMany {
                        keys = pointing[ObjectIdentifier(inverse)]?[node.referenceObject] ?? []
                        if r.isOrdered, let order = node.members[r.name] {
                            let present = Set(keys)
                            var seen = Set<Int64>()
                            let ordered = order.filter { present.contains($0) && seen.insert($0).inserted }
                            keys = ordered + keys.filter { !seen.contains($0) }
                        }
                    } else {
                        keys = node.members[r.name] ?? []
                    }
                    let ids = keys.compactMap { number(destination.rootEntity, $0) }.map(XMLStoreNames.objectID)
                    var attributes: [(name: String, value: String)] = [
                        ("name", r.name.lowercased()), ("type", "\(r.minCount)/\(r.maxCount)"), ("destination", destination.name.uppercased()),
                    ]
                    if !ids.isEmpty { attributes.append(("idrefs", ids.joined(separator: " "))) }
                    let e = XMLTag(name: "relationship", attributes: attributes)
                    if r.isToMany { toManys.append(e) } else { toOnes.append(e) }
                }
            }
            // Apple's order: attributes, then to-ones, then to-manys.
            tag.children += toOnes + toManys
            tags.append(tag)
        }
        return tags
    }
}
