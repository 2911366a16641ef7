import FoundationEssentials

/// Writes a model as a compiled model: the NSKeyedArchiver archive of an
/// NSManagedObjectModel, laid out as Core Data writes the model it caches in an SQLite
/// store's `Z_MODELCACHE` (the entities in a known-keys dictionary sorted by name, every
/// entity listing its inherited properties too, conditional references to the model, to
/// superentities and to destinations). `CompiledModelReader` reads it back.
///
/// What Core Data's compiled models have no key for travels the way Xcode's compiler
/// writes it: value bounds, lengths and patterns become validation predicates whose
/// warning is the NSValidation error code (the reader turns them back into bounds).
/// The localization dictionary is not archived.
struct CompiledModelWriter {
    typealias Object = BinaryPropertyList.Object

    let model: ManagedObjectModel
    let archive = KeyedArchiveWriter()

    static func write(_ model: ManagedObjectModel) -> [UInt8] {
        let writer = CompiledModelWriter(model: model)
        return writer.archive.finish(root: writer.modelObject())
    }

    // NSPropertyDescription's `_P`: the flags, and which keys are absent (so not decoded).
    static let pPresent = 0x001, pOptional = 0x002, pReadOnly = 0x004, pTransient = 0x008, pNoValidation = 0x030,
        pNoUserInfo = 0x040, pNoModifier = 0x080, pSpotlight = 0x100, pTruth = 0x200, pOrdered = 0x400

    /// Entities sorted by name, as Core Data sorts the keys of its known-keys dictionaries.
    private var sortedEntities: [EntityDescription] { model.entities.sorted { VersionHash.utf16Less($0.name, $1.name) } }

    private func modelObject() -> Object {
        archive.object("model", "NSManagedObjectModel") {
            var fields: [(String, Object)] = [("NSEntities", entitiesDictionary())]
            let templates = model.fetchRequestTemplatesByName
            fields.append(("NSFetchRequestTemplates", templates.isEmpty ? KeyedArchiveWriter.null
                : archive.dictionary("NSDictionary", keys: templates.keys.sorted()) { fetchRequest(templates[$0]!) }))
            if !model.configurations.isEmpty {
                // Sorted, as sets and dictionaries have no order of their own.
                fields.append(("NSConfigurations", archive.dictionary("NSMutableDictionary", keys: model.configurations.sorted()) { name in
                    archive.array("NSSet") { model.configurationEntityNames(name).sorted().compactMap { model.entity(named: $0).map(entity) } }
                }))
            }
            fields.append(("NSVersionIdentifiers", archive.array("NSSet") { model.versionIdentifiers.map { archive.string($0) } }))
            return fields
        }
    }

    /// `NSKnownKeysDictionary1`: a mapping strategy holding the sorted keys, and the values in that order.
    private func entitiesDictionary() -> Object {
        archive.object(nil, "NSKnownKeysDictionary1") {
            let entities = sortedEntities
            let mapping = archive.object(nil, "NSKnownKeysMappingStrategy1") {
                [("keys", archive.array { entities.map { archive.string($0.name) } }), ("length", .int(Int64(entities.count))), ("version", .int(1))]
            }
            let empty = archive.string("__empty_slot_token_4c24_98dc_ac1e_b773__")
            return [("searchMapping", mapping), ("emptyToken", empty), ("values", archive.array { entities.map(entity) }), ("version", .int(1))]
        }
    }

    // MARK: Entities

    private func entity(_ e: EntityDescription) -> Object {
        archive.object("entity " + e.name, "NSEntityDescription") {
            var fields: [(String, Object)] = [("NSEntityName", archive.string(e.name))]
            fields.append(("NSClassNameForEntity", archive.string(e.managedObjectClassName == "ManagedObject" ? nil : e.managedObjectClassName)))
            fields.append(("NSManagedObjectModel", archive.conditional("model")))
            fields.append(("NSSuperentity", e.superentity.map { archive.conditional("entity " + $0.name) } ?? KeyedArchiveWriter.null))
            let subentities = e.subentities.sorted { $0.name < $1.name }
            fields.append(("NSSubentities", archive.dictionary("NSMutableDictionary", keys: subentities.map(\.name)) { name in
                entity(subentities.first { $0.name == name }!)
            }))
            // Inherited properties are listed too, as copies owned by this entity.
            let properties = (e.allProperties).sorted { $0.name < $1.name }
            fields.append(("NSProperties", archive.dictionary("NSMutableDictionary", keys: properties.map(\.name)) { name in
                property(properties.first { $0.name == name }!, owner: e)
            }))
            fields.append(("NSUserInfo", userInfo(e.userInfo)))
            fields.append(("NSVersionHashModifier", archive.string(e.versionHashModifier)))
            fields.append(("NSRenamingIdentifier", archive.string(e.renamingIdentifier)))
            if e.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
            if !e.uniquenessConstraints.isEmpty {
                fields.append(("NSUniqueTuples", archive.array("NSMutableArray") {
                    e.uniquenessConstraints.map { tuple in archive.array("NSMutableArray") { tuple.map { archive.string($0) } } }
                }))
            }
            // Core Data lists fetch indexes (and their older form, compound indexes) in
            // every entity once the model has any.
            if model.entities.contains(where: { !$0.fetchIndexes.isEmpty }) {
                fields.append(("NSFetchIndexDescriptions", archive.array("NSMutableArray") {
                    e.fetchIndexes.enumerated().map { fetchIndex($0.element, number: $0.offset, e) }
                }))
                fields.append(("NSCompoundIndexes", archive.array("NSMutableArray") {
                    e.fetchIndexes.map { index in archive.array("NSMutableArray") { index.elements.map { archive.string($0.property) } } }
                }))
            }
            return fields
        }
    }

    private func fetchIndex(_ index: FetchIndexDescription, number: Int, _ e: EntityDescription) -> Object {
        let identity = "index \(number) of \(e.name)"
        return archive.object(identity, "NSFetchIndexDescription") {
            let name = archive.string(index.name)
            let elements = archive.array("NSMutableArray") {
                index.elements.map { el in
                    archive.object(nil, "NSFetchIndexElementDescription") {
                        [("NSPropertyName", archive.string(el.property)), ("NSFetchIndexElementType", .int(el.collation == .rtree ? 1 : 0)),
                         ("NSFetchIndexDescription", archive.conditional(identity)), ("NSAscending", .bool(el.ascending))]
                    }
                }
            }
            return [("NSIndexName", name), ("NSIndexElements", elements), ("NSEntity", archive.conditional("entity " + e.name)),
                    ("NSPartialIndexPredicate", index.partialPredicate.map { PredicateArchive.write(predicate: $0, archive) } ?? KeyedArchiveWriter.null)]
        }
    }

    /// User info; every empty one is the same shared empty dictionary, as in Core Data.
    private func userInfo(_ info: [String: String]) -> Object {
        if info.isEmpty { return archive.object("empty dictionary", "NSDictionary") { [("NS.keys", .array([])), ("NS.objects", .array([]))] } }
        return archive.dictionary("NSDictionary", keys: info.keys.sorted()) { archive.string(info[$0]) }
    }

    // MARK: Properties

    private func property(_ p: PropertyDescription, owner: EntityDescription) -> Object {
        let className: String
        switch p {
        case let a as AttributeDescription: className = a.derivationExpression == nil ? "NSAttributeDescription" : "NSDerivedAttributeDescription"
        case is RelationshipDescription: className = "NSRelationshipDescription"
        default: className = "NSFetchedPropertyDescription"
        }
        // A subentity's copy shares the objects its declaring entity's property holds.
        let declared = "\(p.entity?.name ?? owner.name).\(p.name)"
        return archive.object("property \(owner.name).\(p.name)", className) {
            var fields: [(String, Object)] = [("NSPropertyName", archive.string(p.name)), ("NSEntity", archive.conditional("entity " + owner.name)),
                                              ("NSRenamingIdentifier", archive.string(p.renamingIdentifier))]
            // A subentity's own redeclaration of an inherited name looks like an inherited copy;
            // this key (which Core Data's reader ignores) tells the two apart.
            if p.entity === owner, owner.superentity?.property(named: p.name) != nil {
                fields.append((CompiledModelReader.redeclaredKey, .bool(true)))
            }
            if !p.userInfo.isEmpty { fields.append(("NSUserInfo", archive.shared("user info " + declared) { userInfo(p.userInfo) })) }
            let rules = validation(p)
            if !rules.isEmpty {
                fields.append(("NSValidationPredicates", archive.shared("predicates " + declared) { archive.array { rules.map(write) } }))
                fields.append(("NSValidationWarnings", archive.shared("warnings " + declared) {
                    archive.array { rules.map { rule in rule.code.map { archive.value(.int(Int64($0))) } ?? archive.string(rule.warning) } }
                }))
            }
            if let m = p.versionHashModifier { fields.append(("NSVersionHashModifier", archive.string(m))) }
            // A relationship always reports indexed (its foreign key is); Apple archives the flag for attributes only.
            let archivedIndexed = (p as? AttributeDescription)?.isIndexed ?? false
            if archivedIndexed { fields.append(("NSIsIndexed", .bool(true))) }
            if p.isIndexedBySpotlight { fields.append(("NSIndexedBySpotlight", .bool(true))) }
            if p.isStoredInExternalRecord { fields.append(("NSIsStoredInTruth", .bool(true))) }
            if p.isOptional { fields.append(("NSIsOptional", .bool(true))) }
            if p.isTransient { fields.append(("NSIsTransient", .bool(true))) }
            var readOnly = false, ordered = false
            switch p {
            case let a as AttributeDescription:
                fields += attributeFields(a, declared)
                readOnly = a.derivationExpression != nil
            case let r as RelationshipDescription:
                fields += relationshipFields(r)
                ordered = r.isOrdered
            case let f as FetchedPropertyDescription:
                fields += [("NSFetchRequest", archive.shared("request " + declared) { fetchRequest(f.fetchRequest) }), ("_NSFetchRequestEntityName", archive.string(f.fetchRequest.entityName)),
                           ("NSIsReadOnly", .bool(true))]
                readOnly = true
            default: break
            }
            if readOnly, className != "NSFetchedPropertyDescription" { fields.append(("NSIsReadOnly", .bool(true))) }
            var flags = Self.pPresent
            if p.isOptional { flags |= Self.pOptional }
            if readOnly { flags |= Self.pReadOnly }
            if p.isTransient { flags |= Self.pTransient }
            if rules.isEmpty { flags |= Self.pNoValidation }
            if p.userInfo.isEmpty { flags |= Self.pNoUserInfo }
            if p.versionHashModifier == nil && !((p as? AttributeDescription)?.isIndexed ?? false) { flags |= Self.pNoModifier }
            if p.isIndexedBySpotlight { flags |= Self.pSpotlight }
            if p.isStoredInExternalRecord { flags |= Self.pTruth }
            if ordered { flags |= Self.pOrdered }
            fields.append(("_P", .int(Int64(flags))))
            return fields
        }
    }

    private func attributeFields(_ a: AttributeDescription, _ declared: String) -> [(String, Object)] {
        var fields: [(String, Object)] = [("NSAttributeType", .int(Int64(a.attributeType.rawValue)))]
        fields.append(("NSAttributeValueClassName", archive.string(a.attributeValueClassName ?? CompiledModelReader.standardClass[a.attributeType])))
        fields.append(("NSDefaultValue", archive.shared("default " + declared) { ArchivedValues.write(a.defaultValue, archive) }))
        fields.append(("NSValueTransformerName", archive.string(a.valueTransformerName)))
        var flags = 0
        if a.allowsExternalBinaryDataStorage { flags |= CompiledModelReader.aExternalBinary }
        if a.preservesValueInHistoryOnDeletion { flags |= CompiledModelReader.aPreserveOnDelete }
        fields.append(("NSFlagsKey", .int(Int64(flags))))
        if let derivation = a.derivationExpression {
            fields.append(("NSDerivationExpression", archive.shared("derivation " + declared) { PredicateArchive.write(derivation: derivation, archive) }))
            fields.append(("NSFilteringPredicate", KeyedArchiveWriter.null))
        }
        return fields
    }

    private func relationshipFields(_ r: RelationshipDescription) -> [(String, Object)] {
        var fields: [(String, Object)] = []
        fields.append(("NSDestinationEntity", r.destinationEntity.map { archive.conditional("entity " + $0.name) } ?? KeyedArchiveWriter.null))
        // The inverse is encoded in full (as the one its own entity declares).
        let inverse = r.inverseRelationship
        fields.append(("NSInverseRelationship", inverse.flatMap { i in i.entity.map { property(i, owner: $0) } } ?? KeyedArchiveWriter.null))
        fields.append(("_NSInverseRelationshipName", archive.string(inverse?.name)))
        fields.append(("_NSDestinationEntityName", archive.string(r.destinationEntity?.name)))
        fields += [("NSMinCount", .int(Int64(r.minCount))), ("NSMaxCount", .int(Int64(r.maxCount))), ("NSDeleteRule", .int(Int64(r.deleteRule.rawValue)))]
        if r.isOrdered { fields.append(("NSIsOrdered", .bool(true))) }
        return fields
    }

    // MARK: Validation rules

    /// A validation rule: a predicate and its warning, a string or an NSValidation error code.
    struct Rule {
        var predicate: ObjectPredicate?
        var format: String
        var warning: String?
        var code: Int?
    }

    private func write(_ rule: Rule) -> Object {
        rule.predicate.map { PredicateArchive.write($0, archive) } ?? PredicateArchive.write(predicate: rule.format, archive)
    }

    /// Bounds, lengths and the pattern as Xcode compiles them, then the property's own predicates.
    private func validation(_ p: PropertyDescription) -> [Rule] {
        var rules: [Rule] = []
        func bound(_ left: ObjectExpression, _ op: ComparisonOperator, _ right: AttributeValue, _ code: Int) {
            let predicate = ObjectPredicate.compare(left, op, .constant(.scalar(right)))
            rules.append(Rule(predicate: predicate, format: "", warning: nil, code: code))
        }
        if let a = p as? AttributeDescription {
            let isDate = a.attributeType == .date
            if !a.minValue.isNull {
                bound(.evaluatedObject, .greaterThanOrEqual, a.minValue, isDate ? ErrorCode.validationDateTooSoon : ErrorCode.validationNumberTooSmall)
            }
            if !a.maxValue.isNull {
                bound(.evaluatedObject, .lessThanOrEqual, a.maxValue, isDate ? ErrorCode.validationDateTooLate : ErrorCode.validationNumberTooLarge)
            }
            if let n = a.minLength { bound(.key("length"), .greaterThanOrEqual, .integer(Int64(n)), ErrorCode.validationStringTooShort) }
            if let n = a.maxLength { bound(.key("length"), .lessThanOrEqual, .integer(Int64(n)), ErrorCode.validationStringTooLong) }
            if let r = a.regularExpression { bound(.evaluatedObject, .matches, .string(r), ErrorCode.validationStringPatternMatching) }
        }
        for (predicate, warning) in zip(p.validationPredicates, p.validationWarnings) {
            rules.append(Rule(predicate: nil, format: predicate, warning: warning, code: nil))
        }
        return rules
    }

    // MARK: Fetch requests

    /// NSFetchRequest's archived flags (`NSFetchRequestFlags`); the result type has its own key.
    static let fDistinct = 0x01, fSubentities = 0x02, fPropertyValues = 0x04, fFaults = 0x08, fPendingChanges = 0x10

    private func fetchRequest(_ t: FetchRequestTemplate) -> Object {
        archive.object(nil, "NSFetchRequest") {
            var fields: [(String, Object)] = []
            if model.entity(named: t.entityName) != nil {
                fields.append(("NSEntity", archive.conditional("entity " + t.entityName)))
            } else {
                fields.append(("NSEntityName", archive.string(t.entityName)))
            }
            fields.append(("NSPredicate", t.predicateFormat.map { PredicateArchive.write(predicate: $0, archive) } ?? KeyedArchiveWriter.null))
            fields.append(("NSSortDescriptors", t.sortKeys.isEmpty ? KeyedArchiveWriter.null : archive.array {
                t.sortKeys.map { key in
                    archive.object(nil, "NSSortDescriptor") {
                        [("NSKey", archive.string(key.key)), ("NSSelector", archive.string(key.comparison.rawValue)),
                         ("NSAscending", .bool(key.ascending)), ("NSReverseNullOrder", .bool(false))]
                    }
                }
            }))
            for key in ["NSValuesToFetch", "NSValuesToGroupBy", "NSHavingPredicate", "NSRelationshipKeyPathsForPrefetching"] {
                fields.append((key, KeyedArchiveWriter.null))
            }
            var flags = Self.fPendingChanges
            if t.returnsDistinctResults { flags |= Self.fDistinct }
            if t.includesSubentities { flags |= Self.fSubentities }
            if t.includesPropertyValues { flags |= Self.fPropertyValues }
            if t.returnsObjectsAsFaults { flags |= Self.fFaults }
            fields += [("NSHasFetchRequestFlags", .bool(true)), ("NSFetchRequestFlags", .int(Int64(flags))), ("NSResultType", .int(Int64(t.resultType))),
                       ("NSFetchOffset", .int(Int64(t.fetchOffset))), ("NSFetchLimit", .int(Int64(t.fetchLimit))),
                       ("NSBatchSize", .int(Int64(t.fetchBatchSize))), ("NSAllocationType", .int(0))]
            return fields
        }
    }
}
