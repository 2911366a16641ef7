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
                                                         partialPredicate: PredicateText.format(archive, field(index, "NSPartialIndexPredicate"))))
                }
                try entity.setFetchIndexes(indexes)
            } catch { throw at.wrap(error) }
        }
        // Models cached by stores repeat inherited properties in each subentity: keep the
        // declaring entity's copy only (a subentity cannot redeclare a name).
        var inverses: [(RelationshipDescription, String, String?)] = []
        for (entity, ref) in created {
            for (name, pref) in archive.dictionary(field(ref, "NSProperties")).sorted(by: { $0.0 < $1.0 }) {
                if let parent = entity.superentity, parent.property(named: name) != nil || declaredInAncestor(name, entity, created) { continue }
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
                try a.setDerivationExpression(PredicateText.format(archive, field(ref, "NSDerivationExpression")) ?? "")
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
        let predicates = archive.array(field(ref, "NSValidationPredicates")).map { PredicateText.format(archive, $0) ?? "TRUEPREDICATE" }
        let warningsList = archive.array(field(ref, "NSValidationWarnings")).map { archive.string($0) ?? "" }
        if !predicates.isEmpty, predicates.count == warningsList.count { try p.setValidationPredicates(predicates, warnings: warningsList) }
        return result
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
        switch archive.className(ref) {
        case "NSString", "NSMutableString": return archive.string(ref).map { .string($0) }
        case "NSDate": if case .real(let t)? = field(ref, "NS.time") { return .date(Date(timeIntervalSinceReferenceDate: t)) }
        case "NSUUID": if case .data(let b)? = field(ref, "NS.uuidbytes"), b.count == 16 {
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
        case "NSURL": if let s = archive.string(field(ref, "NS.relative")), ValueText.isURI(s) { return .uri(s) }
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
            return nil  // momc writes decimal defaults as archived mantissas; left unset
        default: break
        }
        warnings.append("\(source): skipped a default value archived as \(archive.className(ref) ?? "an unknown object")")
        return nil
    }

    private func fetchRequest(_ ref: Object?) -> FetchRequestTemplate? {
        guard archive.resolve(ref) != nil else { return nil }
        let name = entityName(field(ref, "NSEntity")) ?? archive.string(field(ref, "NSEntityName")) ?? ""
        var t = FetchRequestTemplate(entityName: name, predicateFormat: PredicateText.format(archive, field(ref, "NSPredicate")))
        t.fetchLimit = Int(field(ref, "NSFetchLimit")?.int ?? 0)
        t.fetchOffset = Int(field(ref, "NSFetchOffset")?.int ?? 0)
        t.fetchBatchSize = Int(field(ref, "NSBatchSize")?.int ?? 0)
        t.resultType = Int(field(ref, "NSResultType")?.int ?? 0)
        for sd in archive.array(field(ref, "NSSortDescriptors")) {
            if let key = archive.string(field(sd, "NSKey")) { t.sortKeys.append(SortKey(key, ascending: field(sd, "NSAscending")?.bool ?? true)) }
        }
        return t
    }
}

/// Turns archived NSPredicate / NSExpression objects back into format strings, for the
/// predicate forms models hold (comparisons, compounds, key paths, variables, constants).
enum PredicateText {
    typealias Object = KeyedArchive.Object

    static func format(_ a: KeyedArchive, _ ref: Object?, depth: Int = 0) -> String? {
        guard depth < 64, let o = a.resolve(ref)?.dict else { return nil }
        let field = { (k: String) in o[k] }
        switch a.className(ref) ?? "" {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let subs = a.array(field("NSSubpredicates")).map { format(a, $0, depth: depth + 1) ?? "?" }
            switch field("NSCompoundPredicateType")?.int ?? 1 {
            case 0: return "NOT (\(subs.first ?? "?"))"
            case 2: return "(" + subs.joined(separator: " OR ") + ")"
            default: return "(" + subs.joined(separator: " AND ") + ")"
            }
        case "NSComparisonPredicate":
            let op = a.resolve(field("NSPredicateOperator"))?.dict ?? [:]
            let names: [Int64: String] = [0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH",
                                          9: "ENDSWITH", 10: "IN", 99: "CONTAINS", 100: "BETWEEN"]
            var s = names[op["NSOperatorType"]?.int ?? 4] ?? "=="
            let options = op["NSOptions"]?.int ?? op["NSFlags"]?.int ?? 0
            if options & 3 != 0 { s += "[" + (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "") + "]" }
            let modifier = [1: "ALL ", 2: "ANY "][Int(op["NSModifier"]?.int ?? 0)] ?? ""
            let left = format(a, field("NSLeftExpression"), depth: depth + 1) ?? "?"
            let right = format(a, field("NSRightExpression"), depth: depth + 1) ?? "?"
            return "\(modifier)\(left) \(s) \(right)"
        default:
            switch field("NSExpressionType")?.int {
            case 0?:
                guard let c = field("NSConstantValue"), let v = a.resolve(c) else { return "nil" }
                switch v {
                case .int(let i): return String(i)
                case .real(let d): return String(d)
                case .bool(let b): return b ? "1" : "0"
                default: return a.string(c).map(PredicateVariables.quoted) ?? "nil"
                }
            case 1?: return "SELF"
            case 2?: return "$" + (a.string(field("NSVariable")) ?? "")
            case 10?: return a.string(field("NSKeyPath"))
            case 3?, 4?:
                let selector = a.string(field("NSSelectorName")) ?? ""
                let args = a.array(field("NSArguments")).map { format(a, $0, depth: depth + 1) ?? "?" }
                let operand = format(a, field("NSOperand"), depth: depth + 1) ?? "SELF"
                if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                    return operand == "SELF" ? (args.first ?? "") : "\(operand).\(args.first ?? "")"
                }
                return "\(selector)(\(args.joined(separator: ", ")))"
            default: return nil
            }
        }
    }
}
