import FoundationEssentials

/// Reads a compiled model (`.mom`): the NSKeyedArchiver archive of an
/// NSManagedObjectModel that Xcode's model compiler writes and that Core Data caches in a
/// store's `Z_MODELCACHE`. Predicates come back as format strings; default values that
/// are archived objects of the application's own classes are skipped with a warning.
struct CompiledModelReader {
    let archive: KeyedArchive
    let source: String
    var warnings: [String] = []

    typealias Object = KeyedArchive.Object

    // NSPropertyDescription's flag word `_P`.
    static let pPresent = 0x001, pOptional = 0x002, pTransient = 0x008, pSpotlight = 0x100, pTruth = 0x200, pOrdered = 0x400
    // NSAttributeDescription's `NSFlagsKey`.
    static let aExternalBinary = 0x04, aPreserveOnDelete = 0x10

    /// Marks a subentity's redeclaration of an inherited property in a compiled model
    /// ObjectGraph writes (Core Data's reader ignores the key).
    static let redeclaredKey = "ObjectGraphRedeclared"

    static let standardClass: [AttributeType: String] = [
        .integer16: "NSNumber", .integer32: "NSNumber", .integer64: "NSNumber", .double: "NSNumber", .float: "NSNumber",
        .boolean: "NSNumber", .decimal: "NSDecimalNumber", .string: "NSString", .date: "NSDate", .binaryData: "NSData",
        .uuid: "NSUUID", .uri: "NSURL",
    ]

    static func read(_ bytes: [UInt8], source: String) throws(ObjectGraphError) -> ManagedObjectModel {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(bytes) } catch { throw ModelLocation(file: source).error("not a compiled model: \(error)") }
        var reader = CompiledModelReader(archive: archive, source: source)
        let model = try reader.model()
        model.loadWarnings = reader.warnings
        return model
    }

    private var file: ModelLocation { ModelLocation(file: source) }

    private func field(_ o: Object?, _ key: String) -> Object? { archive.resolve(o)?.dict?[key] }

    private func entityName(_ ref: Object?) -> String? { archive.string(field(ref, "NSEntityName")) }

    private mutating func model() throws(ObjectGraphError) -> ManagedObjectModel {
        let root = archive.objects[archive.root]
        guard archive.className(root) == "NSManagedObjectModel" else {
            throw file.error("the archive holds a \(archive.className(root) ?? "?"), not an NSManagedObjectModel")
        }
        let model = ManagedObjectModel()
        model.versionIdentifiers = archive.array(field(root, "NSVersionIdentifiers")).compactMap { archive.string($0) }.sorted()
        let entityRefs = archive.dictionary(field(root, "NSEntities")).sorted { $0.0 < $1.0 }
        var created: [(EntityDescription, Object)] = []
        for (_, ref) in entityRefs {
            guard let name = entityName(ref) else { throw file.error("an entity has no name") }
            do throws(ObjectGraphError) { created.append((try model.addEntity(named: name), ref)) } catch { throw file.with(entity: name).wrap(error) }
        }
        for (entity, ref) in created {
            let at = file.with(entity: entity.name)
            do throws(ObjectGraphError) {
                if let parent = entityName(field(ref, "NSSuperentity")) {
                    guard let p = model.entity(named: parent) else { throw at.error("unknown superentity '\(parent)'") }
                    try entity.setSuperentity(p)
                }
                try entity.setAbstract(field(ref, "NSIsAbstract")?.bool ?? false)
                if let c = archive.string(field(ref, "NSClassNameForEntity")), c != "NSManagedObject" { try entity.setManagedObjectClassName(c) }
                try entity.setUserInfo(archive.stringDictionary(field(ref, "NSUserInfo")))
                try entity.setVersionHashModifier(archive.string(field(ref, "NSVersionHashModifier")))
                try entity.setRenamingIdentifier(archive.string(field(ref, "NSRenamingIdentifier")))
                try entity.setUniquenessConstraints(archive.array(field(ref, "NSUniqueTuples")).map { tuple in
                    archive.array(tuple).compactMap { archive.string($0) ?? archive.string(field($0, "NSPropertyName")) }
                })
                var indexes: [FetchIndexDescription] = []
                for index in archive.array(field(ref, "NSFetchIndexDescriptions")) {
                    let elements = archive.array(field(index, "NSIndexElements")).compactMap { el -> FetchIndexDescription.Element? in
                        guard let p = archive.string(field(el, "NSPropertyName")) else { return nil }
                        let rtree = field(el, "NSFetchIndexElementType")?.int == 1  // NSFetchIndexElementTypeRTree
                        return .init(property: p, ascending: field(el, "NSAscending")?.bool ?? true, collation: rtree ? .rtree : .binary)
                    }
                    indexes.append(FetchIndexDescription(name: archive.string(field(index, "NSIndexName")) ?? "", elements: elements,
                                                         partialPredicate: PredicateArchive.format(archive, field(index, "NSPartialIndexPredicate"))))
                }
                try entity.setFetchIndexes(indexes)
            } catch { throw at.wrap(error) }
        }
        // Models cached by stores repeat inherited properties in each subentity: keep the
        // declaring entity's copy only, unless the subentity redeclares the name (marked).
        var inverses: [(RelationshipDescription, String, String?)] = []
        for (entity, ref) in created {
            for (name, pref) in archive.dictionary(field(ref, "NSProperties")).sorted(by: { $0.0 < $1.0 }) {
                let redeclared = field(pref, Self.redeclaredKey)?.bool == true
                if !redeclared, let parent = entity.superentity, parent.property(named: name) != nil || declaredInAncestor(name, entity, created) { continue }
                let at = file.with(entity: entity.name, property: name)
                do throws(ObjectGraphError) {
                    if let pair = try property(pref, name: name, in: entity, model: model, at: at) { inverses.append(pair) }
                } catch { throw at.wrap(error) }
            }
        }
        for (r, inverseName, inverseEntity) in inverses {
            let owner = inverseEntity.flatMap { model.entity(named: $0) } ?? r.destinationEntity
            guard let inverse = owner?.property(named: inverseName) as? RelationshipDescription else {
                throw file.with(entity: r.entity?.name, property: r.name).error("inverse '\(inverseName)' is not a relationship of '\(owner?.name ?? "?")'")
            }
            r.setInverseOneSided(inverse)
        }
        for (name, members) in archive.dictionary(field(root, "NSConfigurations")).sorted(by: { $0.0 < $1.0 }) {
            model.setConfigurationNames(archive.array(members).compactMap { entityName($0) }.sorted(), forConfiguration: name)
        }
        for (name, request) in archive.dictionary(field(root, "NSFetchRequestTemplates")) {
            guard let t = fetchRequest(request) else { throw file.error("fetch request template '\(name)' names no entity") }
            model.fetchRequestTemplatesByName[name] = t
        }
        do throws(ObjectGraphError) { try model.validate() } catch { throw file.wrap(error) }
        return model
    }

    private func declaredInAncestor(_ name: String, _ entity: EntityDescription, _ created: [(EntityDescription, Object)]) -> Bool {
        var e = entity.superentity
        while let a = e {
            if let ref = created.first(where: { $0.0 === a })?.1, archive.dictionary(field(ref, "NSProperties")).contains(where: { $0.0 == name }) {
                return true
            }
            e = a.superentity
        }
        return false
    }

    private mutating func property(_ ref: Object, name: String, in entity: EntityDescription, model: ManagedObjectModel,
                                   at: ModelLocation) throws(ObjectGraphError) -> (RelationshipDescription, String, String?)? {
        let cls = archive.className(ref) ?? "?"
        let flags = Int(field(ref, "_P")?.int ?? 0)
        func flag(_ bit: Int, _ key: String) -> Bool {
            flags & Self.pPresent != 0 ? flags & bit != 0 : (field(ref, key)?.bool ?? false)
        }
        var result: (RelationshipDescription, String, String?)?
        let p: PropertyDescription
        switch cls {
        case "NSAttributeDescription", "NSDerivedAttributeDescription":
            let raw = Int(field(ref, "NSAttributeType")?.int ?? 0)
            guard let type = AttributeType(rawValue: raw) else { throw at.error("unsupported attribute type \(raw)") }
            let a = try entity.addAttribute(named: name, type: type)
            // The compiler records the standard class of each type; only a custom one is the model's.
            let valueClass = archive.string(field(ref, "NSAttributeValueClassName"))
            if valueClass != Self.standardClass[type] { try a.setAttributeValueClassName(valueClass) }
            try a.setValueTransformerName(archive.string(field(ref, "NSValueTransformerName")))
            let aflags = Int(field(ref, "NSFlagsKey")?.int ?? 0)
            try a.setAllowsExternalBinaryDataStorage(aflags & Self.aExternalBinary != 0)
            try a.setPreservesValueInHistoryOnDeletion(aflags & Self.aPreserveOnDelete != 0)
            if field(ref, "NSIsIndexed")?.bool == true { try a.setIndexed(true) }  // never drops an archived index
            if cls == "NSDerivedAttributeDescription" {
                try a.setDerivationExpression(PredicateArchive.format(archive, field(ref, "NSDerivationExpression")) ?? "")
            }
            if let value = defaultValue(field(ref, "NSDefaultValue"), type: type) {
                do throws(ObjectGraphError) { try a.setDefaultValue(value) } catch { warnings.append("\(at.prefix)default value skipped: \(error.message)") }
            }
            p = a
        case "NSRelationshipDescription":
            let destinationName = archive.string(field(ref, "_NSDestinationEntityName")) ?? entityName(field(ref, "NSDestinationEntity"))
            guard let dn = destinationName, let destination = model.entity(named: dn) else {
                throw at.error("unknown destination entity '\(destinationName ?? "?")'")
            }
            let r = try entity.addRelationship(named: name, destination: destination)
            try r.setCounts(min: Int(field(ref, "NSMinCount")?.int ?? 0), max: Int(field(ref, "NSMaxCount")?.int ?? 0))
            guard let rule = DeleteRule(rawValue: Int(field(ref, "NSDeleteRule")?.int ?? 1)) else { throw at.error("unknown delete rule") }
            try r.setDeleteRule(rule)
            if flag(Self.pOrdered, "NSIsOrdered") && r.isToMany { try r.setOrdered(true) }
            let inverseRef = field(ref, "NSInverseRelationship")
            if let inverseName = archive.string(field(ref, "_NSInverseRelationshipName")) ?? archive.string(field(inverseRef, "NSPropertyName")) {
                result = (r, inverseName, entityName(field(inverseRef, "NSEntity")))
            }
            p = r
        case "NSFetchedPropertyDescription":
            guard var request = fetchRequest(field(ref, "NSFetchRequest")) ?? nil as FetchRequestTemplate? else {
                throw at.error("fetched property has no fetch request")
            }
            if request.entityName.isEmpty, let n = archive.string(field(ref, "_NSFetchRequestEntityName")) { request.entityName = n }
            p = try entity.addFetchedProperty(named: name, fetchRequest: request)
        default:
            warnings.append("\(at.prefix)skipped a property of unsupported class \(cls)")
            return nil
        }
        try p.setOptional(flag(Self.pOptional, "NSIsOptional"))
        try p.setTransient(flag(Self.pTransient, "NSIsTransient"))
        try p.setIndexedBySpotlight(flag(Self.pSpotlight, "NSIndexedBySpotlight"))
        try p.setStoredInExternalRecord(flag(Self.pTruth, "NSIsStoredInTruth"))
        try p.setVersionHashModifier(archive.string(field(ref, "NSVersionHashModifier")))
        try p.setRenamingIdentifier(archive.string(field(ref, "NSRenamingIdentifier")))
        try p.setUserInfo(archive.stringDictionary(field(ref, "NSUserInfo")))
        try validation(ref, p, at: at)
        return result
    }

    /// Validation predicates; those Xcode compiles from an attribute's bounds, length and
    /// pattern (their warning is the NSValidation error code) become those rules again.
    private mutating func validation(_ ref: Object, _ p: PropertyDescription, at: ModelLocation) throws(ObjectGraphError) {
        let refs = archive.array(field(ref, "NSValidationPredicates"))
        let warningRefs = archive.array(field(ref, "NSValidationWarnings"))
        guard !refs.isEmpty, refs.count == warningRefs.count else { return }
        var predicates: [String] = [], warnings: [String] = []
        var bounds = Bounds()
        for (predicateRef, warning) in zip(refs, warningRefs) {
            if let a = p as? AttributeDescription, let code = archive.resolve(warning)?.int,
                let rule = PredicateArchive.predicate(archive, predicateRef), bounds.take(rule, code: Int(code), isDate: a.attributeType == .date)
            {
                continue
            }
            predicates.append(PredicateArchive.format(archive, predicateRef) ?? "TRUEPREDICATE")
            warnings.append(archive.string(warning) ?? "")
        }
        if let a = p as? AttributeDescription {
            do throws(ObjectGraphError) {
                if !bounds.min.isNull || !bounds.max.isNull { try a.setValueBounds(min: bounds.min, max: bounds.max) }
                if bounds.minLength != nil || bounds.maxLength != nil { try a.setLengthBounds(min: bounds.minLength, max: bounds.maxLength) }
                if let pattern = bounds.pattern { try a.setRegularExpression(pattern) }
            } catch { self.warnings.append("\(at.prefix)validation bounds skipped: \(error.message)") }
        }
        if !predicates.isEmpty { try p.setValidationPredicates(predicates, warnings: warnings) }
    }

    /// An attribute's bounds, length and pattern, gathered from its validation predicates.
    private struct Bounds {
        var min = AttributeValue.null, max = AttributeValue.null
        var minLength: Int?, maxLength: Int?
        var pattern: String?

        /// Whether `rule`, with the warning `code`, is one of them (and is now recorded).
        mutating func take(_ rule: ObjectPredicate, code: Int, isDate: Bool) -> Bool {
            guard case .comparison(let c) = rule, c.quantifier == .direct, c.options.isEmpty, case .constant(.scalar(let value)) = c.right
            else { return false }
            let onSelf = if case .evaluatedObject = c.left { true } else { false }
            let onLength = if case .keyPath(.none, "length") = c.left { true } else { false }
            let length = if case .integer(let n) = value { Int(exactly: n) } else { nil as Int? }
            let tooSmall = isDate ? ErrorCode.validationDateTooSoon : ErrorCode.validationNumberTooSmall
            let tooLarge = isDate ? ErrorCode.validationDateTooLate : ErrorCode.validationNumberTooLarge
            switch c.op {
            case .greaterThanOrEqual where onSelf && code == tooSmall && min.isNull: min = value
            case .lessThanOrEqual where onSelf && code == tooLarge && max.isNull: max = value
            case .greaterThanOrEqual where onLength && code == ErrorCode.validationStringTooShort && length != nil && minLength == nil: minLength = length
            case .lessThanOrEqual where onLength && code == ErrorCode.validationStringTooLong && length != nil && maxLength == nil: maxLength = length
            case .matches where onSelf && code == ErrorCode.validationStringPatternMatching && pattern == nil:
                guard case .string(let r) = value else { return false }
                pattern = r
            default: return false
            }
            return true
        }
    }

    private mutating func defaultValue(_ ref: Object?, type: AttributeType) -> AttributeValue? {
        guard let o = archive.resolve(ref) else { return nil }
        switch o {
        case .bool(let b): return type == .boolean ? .boolean(b) : .integer(b ? 1 : 0)
        case .int(let i): return type == .boolean ? .boolean(i != 0) : (type == .double || type == .float ? .double(Double(i)) : .integer(i))
        case .real(let d): return .double(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(Data(d))
        default: break
        }
        if let v = ArchivedValues.read(archive, ref) { return v }
        // A transformable's default array or dictionary of plist values.
        if type == .transformable, let name = archive.className(ref), SecureArchive.plistClasses.contains(name),
            let v = try? SecureArchive.read(archive, ref, allows: { _ in false }), v != .null
        {
            return .transformable(v)
        }
        warnings.append("\(source): skipped a default value archived as \(archive.className(ref) ?? "an unknown object")")
        return nil
    }

    private func fetchRequest(_ ref: Object?) -> FetchRequestTemplate? {
        guard archive.resolve(ref) != nil else { return nil }
        let name = entityName(field(ref, "NSEntity")) ?? archive.string(field(ref, "NSEntityName")) ?? ""
        var t = FetchRequestTemplate(entityName: name, predicateFormat: PredicateArchive.format(archive, field(ref, "NSPredicate")))
        t.fetchLimit = Int(field(ref, "NSFetchLimit")?.int ?? 0)
        t.fetchOffset = Int(field(ref, "NSFetchOffset")?.int ?? 0)
        t.fetchBatchSize = Int(field(ref, "NSBatchSize")?.int ?? 0)
        t.resultType = Int(field(ref, "NSResultType")?.int ?? 0)
        if field(ref, "NSHasFetchRequestFlags")?.bool == true, let flags = field(ref, "NSFetchRequestFlags")?.int {
            t.returnsDistinctResults = Int(flags) & CompiledModelWriter.fDistinct != 0
            t.includesSubentities = Int(flags) & CompiledModelWriter.fSubentities != 0
            t.includesPropertyValues = Int(flags) & CompiledModelWriter.fPropertyValues != 0
            t.returnsObjectsAsFaults = Int(flags) & CompiledModelWriter.fFaults != 0
        }
        for sd in archive.array(field(ref, "NSSortDescriptors")) {
            guard let key = archive.string(field(sd, "NSKey")) else { continue }
            let comparison = archive.string(field(sd, "NSSelector")).flatMap(SortComparison.init(rawValue:)) ?? .compare
            t.sortKeys.append(SortKey(key, ascending: field(sd, "NSAscending")?.bool ?? true, comparison: comparison))
        }
        return t
    }
}
