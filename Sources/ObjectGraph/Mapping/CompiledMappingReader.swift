import FoundationEssentials

/// Reads a compiled mapping model (`.cdm`): the NSKeyedArchiver archive of an
/// NSMappingModel that Xcode's mapping compiler writes next to the compiled models.
///
/// The archive keys, as Core Data encodes them: NSMappingModel `NSEntityMappings` (the
/// ordered array; `NSEntityMappingsByName` repeats it and is not needed); NSEntityMapping
/// `NSMappingName`, `NSMappingType`, `NSSourceEntityName`, `NSSourceEntityVersionHash`,
/// `NSDestinationEntityName`, `NSDestinationEntityVersionHash`, `NSSourceExpression`,
/// `NSUserInfo`, `NSEntityMigrationPolicyClassName`, `NSAttributeMappings`,
/// `NSRelationshipMappings`; NSPropertyMapping `NSDestinationPropertyName`,
/// `NSValueExpression`, `NSUserInfo` (its `NSPropertyTransforms` are an optimisation Core
/// Data derives again, and are not read). Expressions become format text.
struct CompiledMappingReader {
    typealias Object = KeyedArchive.Object

    let archive: KeyedArchive
    let file: MappingLocation

    static func read(_ bytes: [UInt8], source: String) throws(ObjectGraphError) -> MappingModel {
        let file = MappingLocation(file: source)
        guard bytes.count <= MappingLimits.maximumFileBytes else { throw file.error("the file is larger than \(MappingLimits.maximumFileBytes) bytes") }
        let archive: KeyedArchive
        do { archive = try KeyedArchive(bytes) } catch { throw file.error("not a compiled mapping model: \(error)") }
        let model = try CompiledMappingReader(archive: archive, file: file).model()
        try MappingValidation.check(model, file: source)
        return model
    }

    private func field(_ o: Object?, _ key: String) -> Object? { archive.resolve(o)?.dict?[key] }

    /// A string field; an object of another kind there is an error, not a missing value.
    private func string(_ o: Object?, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> String? {
        guard let v = field(o, key) else { return nil }
        if let s = archive.literalString(v) { return s }
        guard archive.resolve(v) == nil else { throw at.error("\(key) is not a string") }
        return nil
    }

    private func array(_ o: Object?, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> [Object] {
        guard let v = field(o, key), archive.resolve(v) != nil else { return [] }
        guard let cls = archive.className(v), ["NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet"].contains(cls) else {
            throw at.error("\(key) is not an array (\(archive.className(v) ?? "no class"))")
        }
        return archive.array(v)
    }

    private func model() throws(ObjectGraphError) -> MappingModel {
        let root = Object.uid(archive.root)
        let cls = archive.className(root)
        guard cls == "NSMappingModel" else { throw file.error("the archive holds \(Self.kind(cls)), not an NSMappingModel") }
        var mappings: [EntityMapping] = []
        for (i, ref) in try array(root, "NSEntityMappings", file).enumerated() { mappings.append(try entityMapping(ref, index: i)) }
        return MappingModel(entityMappings: mappings)
    }

    private func entityMapping(_ ref: Object, index: Int) throws(ObjectGraphError) -> EntityMapping {
        let unnamed = file.with(entityMapping: "#\(index + 1)")
        guard archive.className(ref) == "NSEntityMapping" else {
            throw unnamed.error("the entry is \(Self.kind(archive.className(ref))), not an NSEntityMapping")
        }
        let source = try string(ref, "NSSourceEntityName", unnamed)
        let destination = try string(ref, "NSDestinationEntityName", unnamed)
        // Core Data names an unnamed mapping after its entities when it loads it.
        guard let name = try string(ref, "NSMappingName", unnamed) ?? XcodeMappingReader.defaultName(source: source, destination: destination) else {
            throw unnamed.error("the mapping has no name and names no entity")
        }
        let at = file.with(entityMapping: name)
        let rawKind = field(ref, "NSMappingType")?.int ?? 0
        guard let kind = EntityMappingKind(rawValue: Int(clamping: rawKind)), Int64(kind.rawValue) == rawKind else {
            throw at.error("unknown NSMappingType \(rawKind); the types are 0 to 5")
        }
        let mapping = EntityMapping(
            name: name, kind: kind, sourceEntityName: source, destinationEntityName: destination,
            userInfo: try ArchivedUserInfo.read(archive, field(ref, "NSUserInfo"), at, "NSUserInfo"),
            sourceEntityVersionHash: try data(ref, "NSSourceEntityVersionHash", at),
            destinationEntityVersionHash: try data(ref, "NSDestinationEntityVersionHash", at),
            migrationPolicyName: try string(ref, "NSEntityMigrationPolicyClassName", at))
        mapping.sourceExpression = try expression(field(ref, "NSSourceExpression"), at, "NSSourceExpression")
        mapping.attributeMappings = try array(ref, "NSAttributeMappings", at).map { (p) throws(ObjectGraphError) in try propertyMapping(p, at) }
        mapping.relationshipMappings = try array(ref, "NSRelationshipMappings", at).map { (p) throws(ObjectGraphError) in try propertyMapping(p, at) }
        return mapping
    }

    private func propertyMapping(_ ref: Object, _ at: MappingLocation) throws(ObjectGraphError) -> PropertyMapping {
        guard archive.className(ref) == "NSPropertyMapping" else {
            throw at.error("a property mapping is \(Self.kind(archive.className(ref))), not an NSPropertyMapping")
        }
        guard let name = try string(ref, "NSDestinationPropertyName", at), !name.isEmpty else { throw at.error("a property mapping has no name") }
        let here = at.with(entityMapping: at.entityMapping, propertyMapping: name)
        return PropertyMapping(
            name: name, valueExpression: try expression(field(ref, "NSValueExpression"), here, "NSValueExpression"),
            userInfo: try ArchivedUserInfo.read(archive, field(ref, "NSUserInfo"), here, "NSUserInfo"))
    }

    /// How a message names what it found instead of the expected class.
    static func kind(_ className: String?) -> String { className.map { "an object of class \($0)" } ?? "a value without a class" }

    /// NSData archives inline as data, NSMutableData as an object holding `NS.data`.
    private func data(_ o: Object?, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> [UInt8]? {
        guard let v = field(o, key), let resolved = archive.resolve(v) else { return nil }
        if case .data(let bytes) = resolved { return bytes }
        if case .data(let bytes)? = archive.resolve(resolved.dict?["NS.data"]) { return bytes }
        throw at.error("\(key) is not data")
    }

    private func expression(_ ref: Object?, _ at: MappingLocation, _ key: String) throws(ObjectGraphError) -> String? {
        guard archive.resolve(ref) != nil else { return nil }
        do { return try ArchivedExpressionReader.format(archive, ref) } catch { throw at.error("\(key): \(error)") }
    }
}
