import FoundationEssentials

/// ObjectGraph's JSON form of a mapping model (docs/mapping-format.md): every field of
/// every entity and property mapping, in processing order. Version hashes are lowercase
/// hexadecimal (64 digits); expressions are predicate-language format text, kept as written.
enum MappingJSONFormat {
    static let formatName = "objectgraph-mapping-model"
    static let formatVersion: Int64 = 1

    static func read(_ data: Data, source: String) throws(ObjectGraphError) -> MappingModel {
        let file = MappingLocation(file: source)
        guard data.count <= MappingLimits.maximumFileBytes else { throw file.error("the file is larger than \(MappingLimits.maximumFileBytes) bytes") }
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch { throw file.error("not valid JSON (\(error))") }
        let model = try MappingJSONReader(file: file).model(root)
        try MappingValidation.check(model, file: source)
        return model
    }

    static func write(_ model: MappingModel) -> String {
        let root = Ordered.object([
            ("format", .value(.string(formatName))), ("formatVersion", .value(.integer(formatVersion))),
            ("entityMappings", .array(model.entityMappings.map(entityMapping))),
        ])
        var out = ""
        root.write(into: &out, indent: 0)
        return out + "\n"
    }

    /// JSON whose objects keep their keys in the order given: a mapping reads name first.
    private indirect enum Ordered {
        case value(JSONValue)
        case array([Ordered])
        case object([(String, Ordered)])

        func write(into out: inout String, indent: Int) {
            let pad = String(repeating: " ", count: indent + 2)
            switch self {
            case .value(let v): v.write(into: &out, indent: indent)
            case .array(let items):
                if items.isEmpty { out += "[]"; return }
                out += "[\n"
                for (i, item) in items.enumerated() {
                    out += pad
                    item.write(into: &out, indent: indent + 2)
                    out += i == items.count - 1 ? "\n" : ",\n"
                }
                out += String(repeating: " ", count: indent) + "]"
            case .object(let pairs):
                if pairs.isEmpty { out += "{}"; return }
                out += "{\n"
                for (i, (key, value)) in pairs.enumerated() {
                    out += pad
                    JSONValue.quote(key, into: &out)
                    out += ": "
                    value.write(into: &out, indent: indent + 2)
                    out += i == pairs.count - 1 ? "\n" : ",\n"
                }
                out += String(repeating: " ", count: indent) + "}"
            }
        }
    }

    private static func entityMapping(_ m: EntityMapping) -> Ordered {
        var o: [(String, Ordered)] = [("name", .value(.string(m.name))), ("kind", .value(.string(m.kind.name)))]
        if let s = m.sourceEntityName { o.append(("sourceEntityName", .value(.string(s)))) }
        if let h = m.sourceEntityVersionHash { o.append(("sourceEntityVersionHash", .value(.string(hex(h))))) }
        if let d = m.destinationEntityName { o.append(("destinationEntityName", .value(.string(d)))) }
        if let h = m.destinationEntityVersionHash { o.append(("destinationEntityVersionHash", .value(.string(hex(h))))) }
        if let e = m.sourceExpression { o.append(("sourceExpression", .value(.string(e)))) }
        if let p = m.migrationPolicyName { o.append(("migrationPolicyName", .value(.string(p)))) }
        if !m.attributeMappings.isEmpty { o.append(("attributeMappings", .array(m.attributeMappings.map(propertyMapping)))) }
        if !m.relationshipMappings.isEmpty { o.append(("relationshipMappings", .array(m.relationshipMappings.map(propertyMapping)))) }
        if !m.userInfo.isEmpty { o.append(("userInfo", .value(.object(m.userInfo.mapValues { .string($0) })))) }
        return .object(o)
    }

    private static func propertyMapping(_ p: PropertyMapping) -> Ordered {
        var o: [(String, Ordered)] = [("name", .value(.string(p.name)))]
        if let e = p.valueExpression { o.append(("valueExpression", .value(.string(e)))) }
        if !p.userInfo.isEmpty { o.append(("userInfo", .value(.object(p.userInfo.mapValues { .string($0) })))) }
        return .object(o)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of hexadecimal text (either case), or nil when it is not whole bytes of hex digits.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// Reads the parsed JSON; every key is checked, so a typo is an error, never a field
/// silently left empty.
private struct MappingJSONReader {
    let file: MappingLocation
    typealias Object = [String: JSONValue]

    static let entityKeys: Set<String> = [
        "name", "kind", "sourceEntityName", "destinationEntityName", "sourceEntityVersionHash", "destinationEntityVersionHash",
        "sourceExpression", "attributeMappings", "relationshipMappings", "userInfo", "migrationPolicyName",
    ]
    static let propertyKeys: Set<String> = ["name", "valueExpression", "userInfo"]

    func object(_ v: JSONValue, _ what: String, allowed: Set<String>, _ at: MappingLocation) throws(ObjectGraphError) -> Object {
        guard case .object(let o) = v else { throw at.error("\(what) must be a JSON object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) { throw at.error("\(what) has an unknown key '\(unknown)'") }
        return o
    }

    func string(_ o: Object, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> String? {
        guard let v = o[key], v != .null else { return nil }
        guard case .string(let s) = v else { throw at.error("'\(key)' must be a string") }
        return s
    }

    func array(_ o: Object, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> [JSONValue] {
        guard let v = o[key], v != .null else { return [] }
        guard case .array(let a) = v else { throw at.error("'\(key)' must be an array") }
        return a
    }

    func userInfo(_ o: Object, _ at: MappingLocation) throws(ObjectGraphError) -> [String: String] {
        guard let v = o["userInfo"], v != .null else { return [:] }
        guard case .object(let d) = v else { throw at.error("'userInfo' must be an object of strings") }
        var out: [String: String] = [:]
        for (k, x) in d {
            guard case .string(let s) = x else { throw at.error("'userInfo' must be an object of strings; '\(k)' is not a string") }
            out[k] = s
        }
        return out
    }

    func hash(_ o: Object, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> [UInt8]? {
        guard let text = try string(o, key, at) else { return nil }
        let bytes = MappingJSONFormat.bytes(hex: text)
        guard let bytes, bytes.count == MappingValidation.versionHashLength else {
            throw at.error("'\(key)' must be \(MappingValidation.versionHashLength * 2) hexadecimal digits (\(MappingValidation.versionHashLength) bytes), not \"\(text.prefix(80))\"")
        }
        return bytes
    }

    func model(_ root: JSONValue) throws(ObjectGraphError) -> MappingModel {
        let o = try object(root, "the mapping model", allowed: ["format", "formatVersion", "entityMappings"], file)
        guard let format = try string(o, "format", file), format == MappingJSONFormat.formatName else {
            throw file.error("'format' must be \"\(MappingJSONFormat.formatName)\": not an ObjectGraph mapping model")
        }
        if let v = o["formatVersion"], v != .integer(MappingJSONFormat.formatVersion) {
            let shown = if case .integer(let i) = v { String(i) } else { "of another kind than a number" }
            throw file.error("unsupported formatVersion \(shown); this library reads \(MappingJSONFormat.formatVersion)")
        }
        guard o["entityMappings"] != nil else { throw file.error("the mapping model has no 'entityMappings'") }
        var mappings: [EntityMapping] = []
        for (i, v) in try array(o, "entityMappings", file).enumerated() {
            mappings.append(try entityMapping(v, index: i))
        }
        return MappingModel(entityMappings: mappings)
    }

    func entityMapping(_ v: JSONValue, index: Int) throws(ObjectGraphError) -> EntityMapping {
        var name: String?
        if case .object(let raw) = v, case .string(let n)? = raw["name"] { name = n }
        let at = file.with(entityMapping: name)
        let o = try object(v, name == nil ? "entity mapping #\(index + 1)" : "the entity mapping", allowed: Self.entityKeys, at)
        guard let name, !name.isEmpty else { throw at.error("entity mapping #\(index + 1) has no name") }
        var kind = EntityMappingKind.undefined
        if let k = try string(o, "kind", at) {
            guard let parsed = EntityMappingKind(name: k) else {
                throw at.error("unknown kind '\(k)'; the kinds are \(EntityMappingKind.allCases.map(\.name).joined(separator: ", "))")
            }
            kind = parsed
        }
        var attributes: [PropertyMapping] = []
        for (i, p) in try array(o, "attributeMappings", at).enumerated() { attributes.append(try propertyMapping(p, "attribute mapping #\(i + 1)", at)) }
        var relationships: [PropertyMapping] = []
        for (i, p) in try array(o, "relationshipMappings", at).enumerated() { relationships.append(try propertyMapping(p, "relationship mapping #\(i + 1)", at)) }
        return EntityMapping(
            name: name, kind: kind, sourceEntityName: try string(o, "sourceEntityName", at),
            destinationEntityName: try string(o, "destinationEntityName", at), attributeMappings: attributes,
            relationshipMappings: relationships, sourceExpression: try string(o, "sourceExpression", at), userInfo: try userInfo(o, at),
            sourceEntityVersionHash: try hash(o, "sourceEntityVersionHash", at),
            destinationEntityVersionHash: try hash(o, "destinationEntityVersionHash", at),
            migrationPolicyName: try string(o, "migrationPolicyName", at))
    }

    func propertyMapping(_ v: JSONValue, _ what: String, _ entity: MappingLocation) throws(ObjectGraphError) -> PropertyMapping {
        var name: String?
        if case .object(let raw) = v, case .string(let n)? = raw["name"] { name = n }
        let at = entity.with(entityMapping: entity.entityMapping, propertyMapping: name)
        let o = try object(v, name == nil ? what : "the property mapping", allowed: Self.propertyKeys, at)
        guard let name, !name.isEmpty else { throw at.error("\(what) has no name") }
        return PropertyMapping(name: name, valueExpression: try string(o, "valueExpression", at), userInfo: try userInfo(o, at))
    }
}
