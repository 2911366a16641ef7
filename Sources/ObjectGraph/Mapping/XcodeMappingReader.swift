import FoundationEssentials

/// Reads the `xcmapping.xml` of an Xcode `.xcmappingmodel` (docs/mapping-format.md).
///
/// Xcode's names: entity mappings (`XDDEVENTITYMAPPING`) carry `sourcename`,
/// `destinationname`, `mappingtypename`, `mappingnumber` (the processing order),
/// `migrationpolicyclassname`, `autogenerateexpression` and the relationships
/// `attributemappings` / `relationshipmappings`; property mappings carry `name` and
/// `valueexpressiondata` (an archived NSExpression). What Xcode's compiler derives from
/// the two models (version hashes, generated property expressions) is not in the file;
/// ObjectGraph writes its own attributes for those fields (`name`,
/// `sourceentityversionhash`, `destinationentityversionhash`, `sourceexpressiondata`,
/// `userinfodata`, and `…expressionstring` for text no archive can hold).
struct XcodeMappingReader {
    typealias Document = XcodeMappingDocument
    typealias StoreObject = XcodeMappingDocument.StoreObject

    let document: Document
    let file: MappingLocation

    static func read(_ bytes: [UInt8], source: String) throws(ObjectGraphError) -> MappingModel {
        let file = MappingLocation(file: source)
        guard bytes.count <= MappingLimits.maximumFileBytes else { throw file.error("the file is larger than \(MappingLimits.maximumFileBytes) bytes") }
        let reader = XcodeMappingReader(document: try Document(bytes, at: file), file: file)
        let model = try reader.model()
        try MappingValidation.check(model, file: source)
        return model
    }

    static let kinds: [String: EntityMappingKind] = [
        "UNDEFINED": .undefined, "CUSTOM": .custom, "ADD": .add, "REMOVE": .remove, "COPY": .copy, "TRANSFORM": .transform,
    ]

    /// The name Xcode gives a mapping it was not given one for: `SourceToDestination`.
    static func defaultName(source: String?, destination: String?) -> String? {
        switch (source.flatMap { $0.isEmpty ? nil : $0 }, destination.flatMap { $0.isEmpty ? nil : $0 }) {
        case (let s?, let d?): "\(s)To\(d)"
        case (nil, let d?): d
        case (let s?, nil): s
        case (nil, nil): nil
        }
    }

    private func model() throws(ObjectGraphError) -> MappingModel {
        let models = document.objects(ofType: Document.Kind.mappingModel)
        guard let root = models.first else { throw file.error("there is no \(Document.Kind.mappingModel) object: not an Xcode mapping model") }
        guard models.count == 1 else { throw file.error("there are \(models.count) \(Document.Kind.mappingModel) objects; a mapping model has one") }
        var entries: [StoreObject] = []
        if let refs = root.relationships["entitymappings"] {
            for id in refs { entries.append(try referenced(id, Document.Kind.entityMapping, "the mapping model's entitymappings", file)) }
        } else {
            entries = document.objects(ofType: Document.Kind.entityMapping)
        }
        // The file lists mappings in any order; `mappingnumber` is the order of processing.
        var numbered: [(Int, Int, StoreObject)] = []
        for (i, o) in entries.enumerated() {
            let at = file.with(entityMapping: o.attributes["name"] ?? Self.defaultName(source: o.attributes["sourcename"], destination: o.attributes["destinationname"]))
            numbered.append((try Document.integer(o, "mappingnumber", at) ?? Int.max, i, o))
        }
        numbered.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        return MappingModel(entityMappings: try numbered.map { (_, _, o) throws(ObjectGraphError) in try entityMapping(o) })
    }

    /// The object `id` refers to, which must exist and be of `type`.
    private func referenced(_ id: String, _ type: String, _ what: String, _ at: MappingLocation) throws(ObjectGraphError) -> StoreObject {
        guard let o = document.object(id) else { throw at.error("\(what) refers to the unknown object '\(id)'") }
        guard o.type == type else { throw at.error("\(what) refers to '\(id)', an object of type \(o.type), not \(type)") }
        return o
    }

    private func entityMapping(_ o: StoreObject) throws(ObjectGraphError) -> EntityMapping {
        // Values are taken as written (an empty name stays empty), so what is saved reads back the same.
        let source = o.attributes["sourcename"]
        let destination = o.attributes["destinationname"]
        guard let name = o.attributes["name"] ?? Self.defaultName(source: source, destination: destination), !name.isEmpty else {
            throw file.error("the entity mapping '\(o.id)' (line \(o.line)) has no name and names no entity")
        }
        let at = file.with(entityMapping: name)
        var kind = EntityMappingKind.undefined
        if let typeName = o.attributes["mappingtypename"] {
            guard let k = Self.kinds[typeName.uppercased()] else {
                throw at.error("unknown mappingtypename '\(typeName.prefix(40))'; Xcode's are Undefined, Custom, Add, Remove, Copy and Transform")
            }
            kind = k
        }
        let mapping = EntityMapping(
            name: name, kind: kind, sourceEntityName: source, destinationEntityName: destination,
            userInfo: try userInfo(o, at), sourceEntityVersionHash: try Document.binary(o, "sourceentityversionhash", at),
            destinationEntityVersionHash: try Document.binary(o, "destinationentityversionhash", at),
            migrationPolicyName: o.attributes["migrationpolicyclassname"])
        if let text = o.attributes["sourceexpressionstring"] {
            mapping.sourceExpression = text
        } else if let archived = try Document.binary(o, "sourceexpressiondata", at) {
            mapping.sourceExpression = try expression(archived, at, "sourceexpressiondata")
        } else if try Document.bool(o, "autogenerateexpression", at) == true, let source {
            // What Xcode's compiler generates: every instance of the source entity.
            mapping.sourceExpression = EntityMapping.defaultSourceExpression(forEntityNamed: source)
        }
        mapping.attributeMappings = try properties(o, "attributemappings", Document.Kind.attributeMapping, at)
        mapping.relationshipMappings = try properties(o, "relationshipmappings", Document.Kind.relationshipMapping, at)
        return mapping
    }

    private func properties(_ o: StoreObject, _ key: String, _ type: String, _ at: MappingLocation) throws(ObjectGraphError) -> [PropertyMapping] {
        var out: [PropertyMapping] = []
        for id in o.relationships[key] ?? [] {
            let p = try referenced(id, type, "'\(key)'", at)
            guard let name = p.attributes["name"], !name.isEmpty else {
                throw at.error("the property mapping '\(p.id)' (line \(p.line)) has no name")
            }
            let here = at.with(entityMapping: at.entityMapping, propertyMapping: name)
            let mapping = PropertyMapping(name: name, userInfo: try userInfo(p, here))
            if let text = p.attributes["valueexpressionstring"] {
                mapping.valueExpression = text
            } else if let archived = try Document.binary(p, "valueexpressiondata", here) {
                mapping.valueExpression = try expression(archived, here, "valueexpressiondata")
            }
            // Left empty otherwise: an expression Xcode generates needs the two models.
            out.append(mapping)
        }
        return out
    }

    private func expression(_ archived: [UInt8], _ at: MappingLocation, _ key: String) throws(ObjectGraphError) -> String {
        do { return try ArchivedExpressionReader.format(archiveBytes: archived) } catch { throw at.error("'\(key)': \(error)") }
    }

    /// `userinfodata`: an archived dictionary; values that are numbers become their text.
    private func userInfo(_ o: StoreObject, _ at: MappingLocation) throws(ObjectGraphError) -> [String: String] {
        guard let bytes = try Document.binary(o, "userinfodata", at) else { return [:] }
        let archive: KeyedArchive
        do { archive = try KeyedArchive(bytes) } catch { throw at.error("'userinfodata' is not an archived dictionary: \(error)") }
        return try ArchivedUserInfo.read(archive, .uid(archive.root), at, "'userinfodata'")
    }
}
