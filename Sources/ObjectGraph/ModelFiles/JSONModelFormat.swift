import FoundationEssentials

/// ObjectGraph's JSON model format (docs/model-format.md): reading and writing.
enum JSONModelFormat {
    static let formatName = "objectgraph-model"

    static func read(_ data: Data, source: String) throws(ObjectGraphError) -> ManagedObjectModel {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw ModelLocation(file: source).error("not valid JSON (\(error))") }
        return try JSONModelReader(source: source).model(root)
    }

    static func write(_ model: ManagedObjectModel, canonical: Bool = false) -> String {
        var out = ""
        JSONValue.writeObject(JSONModelWriter(canonical: canonical).model(model).pairs, into: &out, indent: 0)
        return out + "\n"
    }
}

private struct JSONModelReader {
    let source: String
    typealias Object = [String: JSONValue]

    func at(_ entity: String? = nil, _ property: String? = nil) -> ModelLocation {
        ModelLocation(file: source, entity: entity, property: property)
    }

    func object(_ v: JSONValue, _ what: String, allowed: Set<String>, _ loc: ModelLocation) throws(ObjectGraphError) -> Object {
        guard case .object(let o) = v else { throw loc.error("\(what) must be a JSON object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) { throw loc.error("\(what) has an unknown key '\(unknown)'") }
        return o
    }

    func string(_ o: Object, _ key: String, _ loc: ModelLocation) throws(ObjectGraphError) -> String? {
        guard let v = o[key], v != .null else { return nil }
        guard case .string(let s) = v else { throw loc.error("'\(key)' must be a string") }
        return s
    }

    func bool(_ o: Object, _ key: String, _ loc: ModelLocation, default d: Bool = false) throws(ObjectGraphError) -> Bool {
        guard let v = o[key] else { return d }
        guard case .bool(let b) = v else { throw loc.error("'\(key)' must be true or false") }
        return b
    }

    func int(_ o: Object, _ key: String, _ loc: ModelLocation) throws(ObjectGraphError) -> Int? {
        guard let v = o[key], v != .null else { return nil }
        guard case .integer(let i) = v else { throw loc.error("'\(key)' must be an integer") }
        return Int(i)
    }

    func array(_ o: Object, _ key: String, _ loc: ModelLocation) throws(ObjectGraphError) -> [JSONValue] {
        guard let v = o[key] else { return [] }
        guard case .array(let a) = v else { throw loc.error("'\(key)' must be an array") }
        return a
    }

    func strings(_ v: JSONValue, _ what: String, _ loc: ModelLocation) throws(ObjectGraphError) -> [String] {
        guard case .array(let a) = v else { throw loc.error("\(what) must be an array of strings") }
        var out: [String] = []
        for item in a {
            guard case .string(let s) = item else { throw loc.error("\(what) must be an array of strings") }
            out.append(s)
        }
        return out
    }

    func stringMap(_ o: Object, _ key: String, _ loc: ModelLocation) throws(ObjectGraphError) -> [String: String] {
        guard let v = o[key] else { return [:] }
        guard case .object(let d) = v else { throw loc.error("'\(key)' must be an object of strings") }
        var out: [String: String] = [:]
        for (k, x) in d {
            guard case .string(let s) = x else { throw loc.error("'\(key)' must be an object of strings") }
            out[k] = s
        }
        return out
    }

    func model(_ root: JSONValue) throws(ObjectGraphError) -> ManagedObjectModel {
        let file = at()
        let o = try object(root, "the model", allowed: [
            "format", "formatVersion", "versionIdentifiers", "entities", "configurations", "fetchRequestTemplates", "localization",
        ], file)
        guard try string(o, "format", file) == JSONModelFormat.formatName else { throw file.error("'format' must be \"\(JSONModelFormat.formatName)\"") }
        if let v = o["formatVersion"], v != .integer(1) { throw file.error("unsupported formatVersion \(v); this library reads 1") }
        let model = ManagedObjectModel()
        if let ids = o["versionIdentifiers"] { model.versionIdentifiers = try strings(ids, "versionIdentifiers", file) }
        model.localizationDictionary = try stringMap(o, "localization", file)
        let entityKeys: Set<String> = [
            "name", "superentity", "abstract", "className", "userInfo", "renamingIdentifier", "versionHashModifier", "attributes",
            "relationships", "fetchedProperties", "uniquenessConstraints", "fetchIndexes",
        ]
        var pending: [(EntityDescription, Object)] = []
        for (i, v) in try array(o, "entities", file).enumerated() {
            var name: String?
            if case .object(let raw) = v, case .string(let n)? = raw["name"] { name = n }
            let loc = at(name)
            let eo = try object(v, name == nil ? "entity #\(i + 1)" : "the entity", allowed: entityKeys, loc)
            guard let name else { throw loc.error("entity #\(i + 1) has no name") }
            do throws(ObjectGraphError) { pending.append((try model.addEntity(named: name), eo)) } catch { throw loc.wrap(error) }
        }
        for (entity, eo) in pending {
            let loc = at(entity.name)
            do throws(ObjectGraphError) {
                if let sup = try string(eo, "superentity", loc) {
                    guard let parent = model.entity(named: sup) else { throw loc.error("unknown superentity '\(sup)'") }
                    try entity.setSuperentity(parent)
                }
                try entity.setAbstract(try bool(eo, "abstract", loc))
                try entity.setManagedObjectClassName(try string(eo, "className", loc))
                try entity.setUserInfo(try stringMap(eo, "userInfo", loc))
                try entity.setRenamingIdentifier(try string(eo, "renamingIdentifier", loc))
                try entity.setVersionHashModifier(try string(eo, "versionHashModifier", loc))
            } catch { throw loc.wrap(error) }
        }
        var inverses: [(RelationshipDescription, String)] = []
        for (entity, eo) in pending {
            let loc = at(entity.name)
            for v in try array(eo, "attributes", loc) { try attribute(v, in: entity) }
            for v in try array(eo, "relationships", loc) {
                if let pair = try relationship(v, in: entity, model: model) { inverses.append(pair) }
            }
            for v in try array(eo, "fetchedProperties", loc) { try fetched(v, in: entity) }
            do throws(ObjectGraphError) {
                try entity.setUniquenessConstraints(try array(eo, "uniquenessConstraints", loc).map { (c) throws(ObjectGraphError) in
                    try strings(c, "a uniqueness constraint", loc)
                })
                var indexes: [FetchIndexDescription] = []
                for v in try array(eo, "fetchIndexes", loc) {
                    let io = try object(v, "a fetch index", allowed: ["name", "elements", "partialPredicate"], loc)
                    var elements: [FetchIndexDescription.Element] = []
                    for ev in try array(io, "elements", loc) {
                        let x = try object(ev, "a fetch index element", allowed: ["property", "ascending", "collation"], loc)
                        guard let p = try string(x, "property", loc) else { throw loc.error("a fetch index element has no property") }
                        let collationName = try string(x, "collation", loc) ?? "binary"
                        guard let collation = FetchIndexDescription.Collation(rawValue: collationName) else {
                            throw loc.error("unknown fetch index collation '\(collationName)' (binary or rtree)")
                        }
                        elements.append(.init(property: p, ascending: try bool(x, "ascending", loc, default: true), collation: collation))
                    }
                    indexes.append(FetchIndexDescription(
                        name: try string(io, "name", loc) ?? "", elements: elements, partialPredicate: try string(io, "partialPredicate", loc)))
                }
                // An attribute's `indexed` flag is an index named after it, as in Core Data's archives.
                var flagged: [String] = []
                for v in try array(eo, "attributes", loc) {
                    if case .object(let ao) = v, case .bool(true)? = ao["indexed"], case .string(let n)? = ao["name"] { flagged.append(n) }
                }
                try entity.setFetchIndexes(stored: indexes, indexedProperties: flagged)
            } catch { throw loc.wrap(error) }
        }
        for (relationship, inverseName) in inverses {
            let loc = at(relationship.entity?.name, relationship.name)
            guard let destination = relationship.destinationEntity,
                let inverse = destination.property(named: inverseName) as? RelationshipDescription
            else { throw loc.error("inverse '\(inverseName)' is not a relationship of '\(relationship.destinationEntity?.name ?? "?")'") }
            relationship.setInverseOneSided(inverse)
        }
        if let c = o["configurations"] {
            guard case .object(let configs) = c else { throw file.error("'configurations' must map names to arrays of entity names") }
            for name in configs.keys.sorted() {
                let members = try strings(configs[name]!, "configuration '\(name)'", file)
                for m in members where model.entity(named: m) == nil { throw file.error("configuration '\(name)' names an unknown entity '\(m)'") }
                model.setConfigurationNames(members, forConfiguration: name)
            }
        }
        if let t = o["fetchRequestTemplates"] {
            guard case .object(let templates) = t else { throw file.error("'fetchRequestTemplates' must map names to fetch requests") }
            for name in templates.keys.sorted() {
                let template = try fetchRequest(templates[name]!, "fetch request template '\(name)'", file)
                guard model.entity(named: template.entityName) != nil else {
                    throw file.error("fetch request template '\(name)' names an unknown entity '\(template.entityName)'")
                }
                model.fetchRequestTemplatesByName[name] = template
            }
        }
        do throws(ObjectGraphError) { try model.validate() } catch { throw file.wrap(error) }
        return model
    }

    static let commonKeys: Set<String> = [
        "name", "optional", "transient", "indexed", "userInfo", "renamingIdentifier", "versionHashModifier", "validation",
        "indexedBySpotlight", "storedInExternalRecord",
    ]

    func named(_ v: JSONValue, _ kind: String, in entity: EntityDescription) throws(ObjectGraphError) -> (String, ModelLocation) {
        guard case .object(let raw) = v, case .string(let name)? = raw["name"] else { throw at(entity.name).error("a \(kind) has no name") }
        return (name, at(entity.name, name))
    }

    func common(_ p: PropertyDescription, _ o: Object, _ loc: ModelLocation) throws(ObjectGraphError) {
        try p.setOptional(try bool(o, "optional", loc, default: true))
        try p.setTransient(try bool(o, "transient", loc))
        _ = try bool(o, "indexed", loc)  // an attribute's flag becomes an index (see the entity); a relationship is always indexed
        try p.setUserInfo(try stringMap(o, "userInfo", loc))
        try p.setRenamingIdentifier(try string(o, "renamingIdentifier", loc))
        try p.setVersionHashModifier(try string(o, "versionHashModifier", loc))
        try p.setIndexedBySpotlight(try bool(o, "indexedBySpotlight", loc))
        try p.setStoredInExternalRecord(try bool(o, "storedInExternalRecord", loc))
        var predicates: [String] = [], warnings: [String] = []
        for v in try array(o, "validation", loc) {
            let rule = try object(v, "a validation rule", allowed: ["predicate", "warning"], loc)
            guard let predicate = try string(rule, "predicate", loc) else { throw loc.error("a validation rule has no predicate") }
            predicates.append(predicate)
            warnings.append(try string(rule, "warning", loc) ?? "")
        }
        try p.setValidationPredicates(predicates, warnings: warnings)
    }

    func attribute(_ v: JSONValue, in entity: EntityDescription) throws(ObjectGraphError) {
        let (name, loc) = try named(v, "attribute", in: entity)
        let o = try object(v, "the attribute", allowed: Self.commonKeys.union([
            "type", "default", "valueClassName", "valueTransformerName", "allowsExternalBinaryDataStorage",
            "preservesValueInHistoryOnDeletion", "minValue", "maxValue", "minLength", "maxLength", "regularExpression", "derivation",
        ]), loc)
        guard let typeName = try string(o, "type", loc) else { throw loc.error("attribute has no type") }
        guard let type = AttributeType(name: typeName) else { throw loc.error("unknown type '\(typeName)'") }
        do throws(ObjectGraphError) {
            let a = try entity.addAttribute(named: name, type: type)
            try common(a, o, loc)
            if let d = o["default"] { try a.setDefaultValue(try value(d, type: type, loc)) }
            try a.setAttributeValueClassName(try string(o, "valueClassName", loc))
            try a.setValueTransformerName(try string(o, "valueTransformerName", loc))
            try a.setAllowsExternalBinaryDataStorage(try bool(o, "allowsExternalBinaryDataStorage", loc))
            try a.setPreservesValueInHistoryOnDeletion(try bool(o, "preservesValueInHistoryOnDeletion", loc))
            try a.setValueBounds(min: try o["minValue"].map { (x) throws(ObjectGraphError) in try value(x, type: type, loc) } ?? .null,
                                 max: try o["maxValue"].map { (x) throws(ObjectGraphError) in try value(x, type: type, loc) } ?? .null)
            try a.setLengthBounds(min: try int(o, "minLength", loc), max: try int(o, "maxLength", loc))
            try a.setRegularExpression(try string(o, "regularExpression", loc))
            try a.setDerivationExpression(try string(o, "derivation", loc))
        } catch { throw loc.wrap(error) }
    }

    func relationship(_ v: JSONValue, in entity: EntityDescription, model: ManagedObjectModel) throws(ObjectGraphError)
        -> (RelationshipDescription, String)?
    {
        let (name, loc) = try named(v, "relationship", in: entity)
        let o = try object(v, "the relationship", allowed: Self.commonKeys.union([
            "destination", "inverse", "toMany", "deleteRule", "minCount", "maxCount", "ordered",
        ]), loc)
        guard let destName = try string(o, "destination", loc) else { throw loc.error("relationship has no destination") }
        guard let destination = model.entity(named: destName) else { throw loc.error("unknown destination entity '\(destName)'") }
        var rule = DeleteRule.nullify
        if let ruleName = try string(o, "deleteRule", loc) {
            guard let r = DeleteRule(name: ruleName) else { throw loc.error("unknown deleteRule '\(ruleName)'") }
            rule = r
        }
        let toMany = try bool(o, "toMany", loc)
        let maxCount = try int(o, "maxCount", loc) ?? (toMany ? 0 : 1)
        if !toMany && maxCount != 1 && o["toMany"] != nil { throw loc.error("a to-one relationship must have maxCount 1, not \(maxCount)") }
        do throws(ObjectGraphError) {
            let r = try entity.addRelationship(named: name, destination: destination, toMany: toMany, deleteRule: rule)
            try r.setCounts(min: try int(o, "minCount", loc) ?? 0, max: maxCount)
            try common(r, o, loc)
            try r.setOrdered(try bool(o, "ordered", loc))
            return try string(o, "inverse", loc).map { (r, $0) }
        } catch { throw loc.wrap(error) }
    }

    func fetched(_ v: JSONValue, in entity: EntityDescription) throws(ObjectGraphError) {
        let (name, loc) = try named(v, "fetched property", in: entity)
        let o = try object(v, "the fetched property", allowed: Self.commonKeys.union(["fetchRequest"]), loc)
        guard let r = o["fetchRequest"] else { throw loc.error("fetched property has no fetchRequest") }
        do throws(ObjectGraphError) {
            let f = try entity.addFetchedProperty(named: name, fetchRequest: try fetchRequest(r, "its fetchRequest", loc))
            try common(f, o, loc)
        } catch { throw loc.wrap(error) }
    }

    func fetchRequest(_ v: JSONValue, _ what: String, _ loc: ModelLocation) throws(ObjectGraphError) -> FetchRequestTemplate {
        let o = try object(v, what, allowed: [
            "entity", "predicate", "sort", "fetchLimit", "fetchOffset", "fetchBatchSize", "includesSubentities",
            "returnsDistinctResults", "returnsObjectsAsFaults", "includesPropertyValues", "resultType",
        ], loc)
        guard let entity = try string(o, "entity", loc) else { throw loc.error("\(what) names no entity") }
        var t = FetchRequestTemplate(entityName: entity, predicateFormat: try string(o, "predicate", loc))
        for s in try array(o, "sort", loc) {
            let so = try object(s, "a sort key", allowed: ["key", "ascending"], loc)
            guard let key = try string(so, "key", loc) else { throw loc.error("a sort key has no key") }
            t.sortKeys.append(SortKey(key, ascending: try bool(so, "ascending", loc, default: true)))
        }
        t.fetchLimit = try int(o, "fetchLimit", loc) ?? 0
        t.fetchOffset = try int(o, "fetchOffset", loc) ?? 0
        t.fetchBatchSize = try int(o, "fetchBatchSize", loc) ?? 0
        t.resultType = try int(o, "resultType", loc) ?? 0
        t.includesSubentities = try bool(o, "includesSubentities", loc, default: true)
        t.returnsDistinctResults = try bool(o, "returnsDistinctResults", loc)
        t.returnsObjectsAsFaults = try bool(o, "returnsObjectsAsFaults", loc, default: true)
        t.includesPropertyValues = try bool(o, "includesPropertyValues", loc, default: true)
        return t
    }

    func value(_ v: JSONValue, type: AttributeType, _ loc: ModelLocation) throws(ObjectGraphError) -> AttributeValue {
        let bad = loc.error("value \(v) does not suit type \(type.name)")
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
        case (.transformable, .string(let s)):
            // The secure archive of the value; bytes that are none are taken as a data value.
            guard let d = Data(base64Encoded: s) else { throw bad }
            let value = (try? SecureArchive.decode(d, allows: { _ in true })) ?? .data(d)
            return value == .null ? .null : .transformable(value)
        case (.uuid, .string(let s)):
            guard let u = UUID(uuidString: s) else { throw bad }
            return .uuid(u)
        case (.uri, .string(let s)):
            guard ValueText.isURI(s) else { throw bad }
            return .uri(s)
        default: throw bad
        }
    }
}

private struct JSONModelWriter {
    let canonical: Bool

    func model(_ model: ManagedObjectModel) -> OrderedJSONObject {
        var root = OrderedJSONObject()
        root.set("format", .string(JSONModelFormat.formatName))
        root.set("formatVersion", .integer(1))
        if !model.versionIdentifiers.isEmpty { root.set("versionIdentifiers", .array(model.versionIdentifiers.map { .string($0) })) }
        root.set("entities", .array(model.entitiesSortedByName.map { .object(entity($0)) }))
        if !model.configurations.isEmpty {
            var c: [String: JSONValue] = [:]
            for name in model.configurations {
                let members = canonical ? model.configurationEntityNames(name).sorted() : model.configurationEntityNames(name)
                c[name] = .array(members.map { .string($0) })
            }
            root.set("configurations", .object(c))
        }
        if !model.fetchRequestTemplatesByName.isEmpty {
            root.set("fetchRequestTemplates", .object(model.fetchRequestTemplatesByName.mapValues { .object(fetchRequest($0).dictionary) }))
        }
        if !model.localizationDictionary.isEmpty { root.set("localization", .object(model.localizationDictionary.mapValues { .string($0) })) }
        return root
    }

    func entity(_ entity: EntityDescription) -> [String: JSONValue] {
        var e = OrderedJSONObject()
        e.set("name", .string(entity.name))
        if let s = entity.superentity { e.set("superentity", .string(s.name)) }
        if entity.isAbstract { e.set("abstract", .bool(true)) }
        if entity.managedObjectClassName != "ManagedObject" { e.set("className", .string(entity.managedObjectClassName)) }
        if !entity.userInfo.isEmpty { e.set("userInfo", .object(entity.userInfo.mapValues { .string($0) })) }
        if let r = entity.explicitRenamingIdentifier { e.set("renamingIdentifier", .string(r)) }
        if let m = entity.versionHashModifier { e.set("versionHashModifier", .string(m)) }
        var own = entity.ownProperties
        if canonical { own.sort { $0.name < $1.name } }
        let attributes = own.compactMap { $0 as? AttributeDescription }.map { JSONValue.object(attribute($0).dictionary) }
        let relationships = own.compactMap { $0 as? RelationshipDescription }.map { JSONValue.object(relationship($0).dictionary) }
        let fetched = own.compactMap { $0 as? FetchedPropertyDescription }.map { f -> JSONValue in
            var o = common(f)
            o.set("fetchRequest", .object(fetchRequest(f.fetchRequest).dictionary))
            return .object(o.dictionary)
        }
        if !attributes.isEmpty { e.set("attributes", .array(attributes)) }
        if !relationships.isEmpty { e.set("relationships", .array(relationships)) }
        if !fetched.isEmpty { e.set("fetchedProperties", .array(fetched)) }
        if !entity.uniquenessConstraints.isEmpty {
            e.set("uniquenessConstraints", .array(entity.uniquenessConstraints.map { .array($0.map { .string($0) }) }))
        }
        if !entity.fetchIndexes.isEmpty {
            e.set("fetchIndexes", .array(entity.fetchIndexes.map { index in
                var io: [String: JSONValue] = ["name": .string(index.name), "elements": .array(index.elements.map { el in
                    var eo: [String: JSONValue] = ["property": .string(el.property), "ascending": .bool(el.ascending)]
                    if el.collation != .binary { eo["collation"] = .string(el.collation.rawValue) }
                    return .object(eo)
                })]
                if let p = index.partialPredicate { io["partialPredicate"] = .string(p) }
                return .object(io)
            }))
        }
        return e.dictionary
    }

    func common(_ p: PropertyDescription) -> OrderedJSONObject {
        var o = OrderedJSONObject()
        o.set("name", .string(p.name))
        if !p.isOptional { o.set("optional", .bool(false)) }
        if p.isTransient { o.set("transient", .bool(true)) }
        if p is AttributeDescription, p.isIndexed { o.set("indexed", .bool(true)) }
        if !p.userInfo.isEmpty { o.set("userInfo", .object(p.userInfo.mapValues { .string($0) })) }
        if let r = p.explicitRenamingIdentifier { o.set("renamingIdentifier", .string(r)) }
        if let m = p.versionHashModifier { o.set("versionHashModifier", .string(m)) }
        if !p.validationPredicates.isEmpty {
            o.set("validation", .array(zip(p.validationPredicates, p.validationWarnings).map {
                .object(["predicate": .string($0), "warning": .string($1)])
            }))
        }
        if p.isIndexedBySpotlight { o.set("indexedBySpotlight", .bool(true)) }
        if p.isStoredInExternalRecord { o.set("storedInExternalRecord", .bool(true)) }
        return o
    }

    func attribute(_ a: AttributeDescription) -> OrderedJSONObject {
        var o = common(a)
        o.set("type", .string(a.attributeType.name))
        if !a.defaultValue.isNull { o.set("default", Self.json(a.defaultValue)) }
        if let c = a.attributeValueClassName { o.set("valueClassName", .string(c)) }
        if let t = a.valueTransformerName { o.set("valueTransformerName", .string(t)) }
        if a.allowsExternalBinaryDataStorage { o.set("allowsExternalBinaryDataStorage", .bool(true)) }
        if a.preservesValueInHistoryOnDeletion { o.set("preservesValueInHistoryOnDeletion", .bool(true)) }
        if !a.minValue.isNull { o.set("minValue", Self.json(a.minValue)) }
        if !a.maxValue.isNull { o.set("maxValue", Self.json(a.maxValue)) }
        if let m = a.minLength { o.set("minLength", .integer(Int64(m))) }
        if let m = a.maxLength { o.set("maxLength", .integer(Int64(m))) }
        if let r = a.regularExpression { o.set("regularExpression", .string(r)) }
        if let d = a.derivationExpression { o.set("derivation", .string(d)) }
        return o
    }

    func relationship(_ r: RelationshipDescription) -> OrderedJSONObject {
        var o = common(r)
        o.set("destination", .string(r.destinationEntity?.name ?? ""))
        if let inv = r.inverseRelationship { o.set("inverse", .string(inv.name)) }
        if r.isToMany { o.set("toMany", .bool(true)) }
        if r.isToMany && r.maxCount != 0 { o.set("maxCount", .integer(Int64(r.maxCount))) }
        if r.minCount != 0 { o.set("minCount", .integer(Int64(r.minCount))) }
        if r.deleteRule != .nullify { o.set("deleteRule", .string(r.deleteRule.name)) }
        if r.isOrdered { o.set("ordered", .bool(true)) }
        return o
    }

    func fetchRequest(_ t: FetchRequestTemplate) -> OrderedJSONObject {
        var o = OrderedJSONObject()
        o.set("entity", .string(t.entityName))
        if let p = t.predicateFormat { o.set("predicate", .string(p)) }
        if !t.sortKeys.isEmpty { o.set("sort", .array(t.sortKeys.map { .object(["key": .string($0.key), "ascending": .bool($0.ascending)]) })) }
        if t.fetchLimit != 0 { o.set("fetchLimit", .integer(Int64(t.fetchLimit))) }
        if t.fetchOffset != 0 { o.set("fetchOffset", .integer(Int64(t.fetchOffset))) }
        if t.fetchBatchSize != 0 { o.set("fetchBatchSize", .integer(Int64(t.fetchBatchSize))) }
        if t.resultType != 0 { o.set("resultType", .integer(Int64(t.resultType))) }
        if !t.includesSubentities { o.set("includesSubentities", .bool(false)) }
        if t.returnsDistinctResults { o.set("returnsDistinctResults", .bool(true)) }
        if !t.returnsObjectsAsFaults { o.set("returnsObjectsAsFaults", .bool(false)) }
        if !t.includesPropertyValues { o.set("includesPropertyValues", .bool(false)) }
        return o
    }

    static func json(_ v: AttributeValue) -> JSONValue {
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
        case .uri(let u): .string(u)
        // A transformable's value as its secure archive, which Apple's transformer reads.
        case .transformable(let t): .string(SecureArchive.encode(t).base64EncodedString())
        }
    }
}

extension OrderedJSONObject {
    var dictionary: [String: JSONValue] { Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }) }
}
