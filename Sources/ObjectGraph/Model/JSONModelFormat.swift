import FoundationEssentials

/// ObjectGraph's JSON model format (docs/model-format.md): reading and writing.
enum JSONModelFormat {
    static let formatName = "objectgraph-model"

    // MARK: Reading

    static func read(_ data: Data, source: String) throws(ObjectGraphError) -> ManagedObjectModel {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch {
            throw .invalidModel("\(source): not valid JSON (\(error))")
        }
        let r = Reader(source: source)
        return try r.model(root)
    }

    private struct Reader {
        let source: String

        func fail(_ message: String) -> ObjectGraphError { .invalidModel("\(source): \(message)") }

        func object(_ v: JSONValue, _ what: String, allowed: Set<String>) throws(ObjectGraphError) -> [String: JSONValue] {
            guard case .object(let o) = v else { throw fail("\(what) must be a JSON object") }
            if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw fail("\(what) has an unknown key '\(unknown)'")
            }
            return o
        }

        func string(_ o: [String: JSONValue], _ key: String, _ what: String) throws(ObjectGraphError) -> String? {
            guard let v = o[key] else { return nil }
            guard case .string(let s) = v else { throw fail("\(what): '\(key)' must be a string") }
            return s
        }

        func bool(_ o: [String: JSONValue], _ key: String, _ what: String, default d: Bool) throws(ObjectGraphError) -> Bool {
            guard let v = o[key] else { return d }
            guard case .bool(let b) = v else { throw fail("\(what): '\(key)' must be true or false") }
            return b
        }

        func array(_ o: [String: JSONValue], _ key: String, _ what: String) throws(ObjectGraphError) -> [JSONValue] {
            guard let v = o[key] else { return [] }
            guard case .array(let a) = v else { throw fail("\(what): '\(key)' must be an array") }
            return a
        }

        func model(_ root: JSONValue) throws(ObjectGraphError) -> ManagedObjectModel {
            let o = try object(root, "the model", allowed: ["format", "formatVersion", "versionIdentifiers", "entities"])
            guard try string(o, "format", "the model") == JSONModelFormat.formatName else {
                throw fail("'format' must be \"\(JSONModelFormat.formatName)\"")
            }
            if let v = o["formatVersion"], v != .integer(1) { throw fail("unsupported formatVersion \(v); this library reads 1") }
            let model = ManagedObjectModel()
            for v in try array(o, "versionIdentifiers", "the model") {
                guard case .string(let s) = v else { throw fail("versionIdentifiers must hold strings") }
                model.versionIdentifiers.append(s)
            }
            let entityKeys: Set<String> = ["name", "superentity", "abstract", "attributes", "relationships", "className", "versionHashModifier"]
            let entityObjects = try array(o, "entities", "the model").enumerated().map { (i, v) throws(ObjectGraphError) in
                // Name the entity in messages when it has a name, its position otherwise.
                var what = "entity #\(i + 1)"
                if case .object(let raw) = v, case .string(let name)? = raw["name"] { what = "entity '\(name)'" }
                return try object(v, what, allowed: entityKeys)
            }
            // Entities first, so relationships and superentities can name any of them.
            var pending: [(EntityDescription, [String: JSONValue])] = []
            for (i, eo) in entityObjects.enumerated() {
                guard let name = try string(eo, "name", "entity #\(i + 1)") else { throw fail("entity #\(i + 1) has no name") }
                do throws(ObjectGraphError) {
                    let entity = try model.addEntity(named: name)
                    pending.append((entity, eo))
                } catch { throw fail(error.message) }
            }
            for (entity, eo) in pending {
                let what = "entity '\(entity.name)'"
                do throws(ObjectGraphError) {
                    if let sup = try string(eo, "superentity", what) {
                        guard let parent = model.entity(named: sup) else { throw fail("\(what): unknown superentity '\(sup)'") }
                        try entity.setSuperentity(parent)
                    }
                    try entity.setAbstract(try bool(eo, "abstract", what, default: false))
                    if let c = try string(eo, "className", what) { entity.managedObjectClassName = c }
                    try entity.setVersionHashModifier(try string(eo, "versionHashModifier", what))
                } catch { throw error.message.hasPrefix(source) ? error : fail(error.message) }
            }
            for (entity, eo) in pending {
                for v in try array(eo, "attributes", "entity '\(entity.name)'") { try attribute(v, in: entity) }
            }
            var inverses: [(RelationshipDescription, String)] = []
            for (entity, eo) in pending {
                for v in try array(eo, "relationships", "entity '\(entity.name)'") {
                    if let pair = try relationship(v, in: entity, model: model) { inverses.append(pair) }
                }
            }
            for (relationship, inverseName) in inverses {
                let what = "relationship '\(relationship.qualifiedName)'"
                guard let destination = relationship.destinationEntity,
                    let inverse = destination.property(named: inverseName) as? RelationshipDescription
                else { throw fail("\(what): inverse '\(inverseName)' is not a relationship of '\(relationship.destinationEntity?.name ?? "?")'") }
                if let back = inverse.inverseRelationship, back !== relationship {
                    throw fail("\(what): its inverse '\(inverse.qualifiedName)' names another inverse")
                }
                do throws(ObjectGraphError) { try relationship.setInverse(inverse) } catch { throw fail(error.message) }
            }
            for (relationship, _) in inverses where relationship.inverseRelationship == nil {
                throw fail("relationship '\(relationship.qualifiedName)' has no inverse")
            }
            do throws(ObjectGraphError) { try model.validate() } catch { throw fail(error.message) }
            return model
        }

        func attribute(_ v: JSONValue, in entity: EntityDescription) throws(ObjectGraphError) {
            let o = try object(v, "an attribute of '\(entity.name)'", allowed: ["name", "type", "optional", "transient", "default", "versionHashModifier"])
            guard let name = try string(o, "name", "an attribute of '\(entity.name)'") else { throw fail("an attribute of '\(entity.name)' has no name") }
            let what = "attribute '\(entity.name).\(name)'"
            guard let typeName = try string(o, "type", what) else { throw fail("\(what) has no type") }
            guard let type = AttributeType(name: typeName) else { throw fail("\(what) has an unknown type '\(typeName)'") }
            do throws(ObjectGraphError) {
                let a = try entity.addAttribute(named: name, type: type, optional: try bool(o, "optional", what, default: true))
                try a.setTransient(try bool(o, "transient", what, default: false))
                try a.setVersionHashModifier(try string(o, "versionHashModifier", what))
                if let d = o["default"] { try a.setDefaultValue(try defaultValue(d, type: type, what: what)) }
            } catch { throw error.message.hasPrefix(source) ? error : fail(error.message) }
        }

        func relationship(_ v: JSONValue, in entity: EntityDescription, model: ManagedObjectModel) throws(ObjectGraphError)
            -> (RelationshipDescription, String)?
        {
            let o = try object(v, "a relationship of '\(entity.name)'",
                               allowed: ["name", "destination", "inverse", "toMany", "deleteRule", "optional", "minCount", "maxCount", "transient", "versionHashModifier"])
            guard let name = try string(o, "name", "a relationship of '\(entity.name)'") else { throw fail("a relationship of '\(entity.name)' has no name") }
            let what = "relationship '\(entity.name).\(name)'"
            guard let destName = try string(o, "destination", what) else { throw fail("\(what) has no destination") }
            guard let destination = model.entity(named: destName) else { throw fail("\(what) has an unknown destination entity '\(destName)'") }
            var rule = DeleteRule.nullify
            if let ruleName = try string(o, "deleteRule", what) {
                guard let r = DeleteRule(name: ruleName) else { throw fail("\(what) has an unknown deleteRule '\(ruleName)'") }
                rule = r
            }
            do throws(ObjectGraphError) {
                let r = try entity.addRelationship(named: name, destination: destination, toMany: try bool(o, "toMany", what, default: false), deleteRule: rule)
                try r.setOptional(try bool(o, "optional", what, default: true))
                try r.setTransient(try bool(o, "transient", what, default: false))
                try r.setVersionHashModifier(try string(o, "versionHashModifier", what))
                if o["minCount"] != nil || o["maxCount"] != nil {
                    guard case .integer(let mn) = o["minCount"] ?? .integer(0), case .integer(let mx) = o["maxCount"] ?? .integer(Int64(r.maxCount)) else {
                        throw fail("\(what): minCount and maxCount must be integers")
                    }
                    try r.setCounts(min: Int(mn), max: Int(mx))
                }
                return try string(o, "inverse", what).map { (r, $0) }
            } catch { throw error.message.hasPrefix(source) ? error : fail(error.message) }
        }

        func defaultValue(_ v: JSONValue, type: AttributeType, what: String) throws(ObjectGraphError) -> AttributeValue {
            let bad = fail("\(what): default \(v) does not suit type \(type.name)")
            switch (type, v) {
            case (_, .null): return .null
            case (.integer16, .integer(let i)), (.integer32, .integer(let i)), (.integer64, .integer(let i)): return .integer(i)
            case (.double, .integer(let i)), (.float, .integer(let i)): return .double(Double(i))
            case (.double, .number(let d)), (.float, .number(let d)): return .double(d)
            case (.boolean, .bool(let b)): return .boolean(b)
            case (.string, .string(let s)): return .string(s)
            case (.decimal, .string(let s)):
                guard let d = ValueText.decimal(s) else { throw bad }
                return .decimal(d)
            case (.decimal, .integer(let i)): return .decimal(Decimal(i))
            case (.date, .string(let s)):
                guard let d = ValueText.date(s) else { throw bad }
                return .date(d)
            case (.binaryData, .string(let s)):
                guard let d = Data(base64Encoded: s) else { throw bad }
                return .data(d)
            case (.uuid, .string(let s)):
                guard let u = UUID(uuidString: s) else { throw bad }
                return .uuid(u)
            case (.uri, .string(let s)):
                guard let u = ValueText.uri(s) else { throw bad }
                return .uri(u)
            default: throw bad
            }
        }
    }

    // MARK: Writing

    static func write(_ model: ManagedObjectModel) -> String {
        var root = OrderedJSONObject()
        root.set("format", .string(formatName))
        root.set("formatVersion", .integer(1))
        if !model.versionIdentifiers.isEmpty { root.set("versionIdentifiers", .array(model.versionIdentifiers.map { .string($0) })) }
        var entities: [JSONValue] = []
        var out = ""
        for entity in model.entitiesSortedByName {
            var e = OrderedJSONObject()
            e.set("name", .string(entity.name))
            if let s = entity.superentity { e.set("superentity", .string(s.name)) }
            if entity.isAbstract { e.set("abstract", .bool(true)) }
            if entity.managedObjectClassName != "ManagedObject" { e.set("className", .string(entity.managedObjectClassName)) }
            if let m = entity.versionHashModifier { e.set("versionHashModifier", .string(m)) }
            var attributes: [JSONValue] = []
            var relationships: [JSONValue] = []
            for p in entity.ownProperties {
                var po = OrderedJSONObject()
                po.set("name", .string(p.name))
                if let a = p as? AttributeDescription {
                    po.set("type", .string(a.attributeType.name))
                    if !a.isOptional { po.set("optional", .bool(false)) }
                    if a.isTransient { po.set("transient", .bool(true)) }
                    if !a.defaultValue.isNull { po.set("default", jsonDefault(a.defaultValue)) }
                    if let m = a.versionHashModifier { po.set("versionHashModifier", .string(m)) }
                    attributes.append(.object(Dictionary(uniqueKeysWithValues: po.pairs.map { ($0.key, $0.value) })))
                } else if let r = p as? RelationshipDescription {
                    po.set("destination", .string(r.destinationEntity?.name ?? ""))
                    if let inv = r.inverseRelationship { po.set("inverse", .string(inv.name)) }
                    if r.isToMany { po.set("toMany", .bool(true)) }
                    if r.deleteRule != .nullify { po.set("deleteRule", .string(r.deleteRule.name)) }
                    if !r.isOptional { po.set("optional", .bool(false)) }
                    if r.isTransient { po.set("transient", .bool(true)) }
                    if r.minCount != 0 || (r.maxCount != 0 && r.maxCount != 1) {
                        po.set("minCount", .integer(Int64(r.minCount)))
                        po.set("maxCount", .integer(Int64(r.maxCount)))
                    }
                    if let m = r.versionHashModifier { po.set("versionHashModifier", .string(m)) }
                    relationships.append(.object(Dictionary(uniqueKeysWithValues: po.pairs.map { ($0.key, $0.value) })))
                }
            }
            if !attributes.isEmpty { e.set("attributes", .array(attributes)) }
            if !relationships.isEmpty { e.set("relationships", .array(relationships)) }
            entities.append(.object(Dictionary(uniqueKeysWithValues: e.pairs.map { ($0.key, $0.value) })))
        }
        root.set("entities", .array(entities))
        JSONValue.writeObject(root.pairs, into: &out, indent: 0)
        return out + "\n"
    }

    private static func jsonDefault(_ v: AttributeValue) -> JSONValue {
        switch v {
        case .null: .null
        case .integer(let i): .integer(i)
        case .double(let d): .number(d)
        case .boolean(let b): .bool(b)
        case .string(let s): .string(s)
        case .date(let d): .string(ValueText.iso8601(d))
        case .data(let d): .string(d.base64EncodedString())
        case .decimal(let d): .string(d.description)
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u): .string(u.absoluteString)
        }
    }
}
