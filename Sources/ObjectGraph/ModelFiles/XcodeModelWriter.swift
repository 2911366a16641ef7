import FoundationEssentials

/// Writes a model as the `contents` XML of an Xcode `.xcdatamodel`, in the element and
/// attribute spelling Xcode uses. What Xcode's format cannot say (arbitrary validation
/// predicates, the localization dictionary, template sort keys) is written as
/// ObjectGraph's extension elements, documented in docs/model-format.md.
enum XcodeModelWriter {
    static func write(_ model: ManagedObjectModel) -> String {
        let root = XMLTag(name: "model")
        var attributes = model.xcodeAttributes.filter { $0.0 != "userDefinedModelVersionIdentifier" }
        if attributes.isEmpty {
            attributes = [
                ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
            ]
        }
        attributes.append(("userDefinedModelVersionIdentifier", model.versionIdentifiers.first ?? ""))
        root.attributes = attributes.map { (name: $0.0, value: $0.1) }
        for entity in model.entitiesSortedByName { root.children.append(element(for: entity)) }
        for name in model.configurations {
            let c = root.add("configuration", [("name", name)])
            for member in model.configurationEntityNames(name) { c.add("memberEntity", [("name", member)]) }
        }
        for name in model.fetchRequestTemplatesByName.keys.sorted() {
            let t = fetchRequest(model.fetchRequestTemplatesByName[name]!, name: name)
            root.children.append(t)
        }
        if !model.localizationDictionary.isEmpty {
            let l = root.add("localization")
            for k in model.localizationDictionary.keys.sorted() { l.add("entry", [("key", k), ("value", model.localizationDictionary[k]!)]) }
        }
        root.children += model.preservedXML.map { $0.copy() }
        return XMLDocumentWriter.write(root)
    }

    private static func yes(_ flag: Bool) -> String? { flag ? "YES" : nil }

    private static func put(_ e: XMLTag, _ pairs: [(String, String?)]) {
        for (k, v) in pairs { if let v { e.attributes.append((k, v)) } }
    }

    private static func element(for entity: EntityDescription) -> XMLTag {
        let e = XMLTag(name: "entity")
        put(e, [
            ("name", entity.name),
            ("representedClassName", entity.managedObjectClassName == "ManagedObject" ? nil : entity.managedObjectClassName),
            ("parentEntity", entity.superentity?.name), ("isAbstract", yes(entity.isAbstract)),
            ("elementID", entity.explicitRenamingIdentifier), ("versionHashModifier", entity.versionHashModifier),
        ])
        put(e, entity.xcodeAttributes.map { ($0.0, $0.1) })
        for p in entity.ownProperties { e.children.append(element(for: p)) }
        if !entity.userInfo.isEmpty { e.children.append(userInfo(entity.userInfo)) }
        for index in entity.fetchIndexes {
            let x = e.add("fetchIndex", [("name", index.name)])
            if let p = index.partialPredicate { x.attributes.append(("partialIndexPredicate", p)) }
            for el in index.elements {
                x.add("fetchIndexElement", [
                    ("property", el.property), ("type", el.collation == .rtree ? "RTree" : "Binary"), ("order", el.ascending ? "ascending" : "descending"),
                ])
            }
        }
        if !entity.uniquenessConstraints.isEmpty {
            let u = e.add("uniquenessConstraints")
            for constraint in entity.uniquenessConstraints {
                let c = u.add("uniquenessConstraint")
                for v in constraint { c.add("constraint", [("value", v)]) }
            }
        }
        e.children += entity.preservedXML.map { $0.copy() }
        return e
    }

    private static func element(for p: PropertyDescription) -> XMLTag {
        let e: XMLTag
        if let a = p as? AttributeDescription {
            e = XMLTag(name: "attribute")
            // Xcode writes no attributeType for Undefined.
            put(e, [("name", a.name), ("optional", yes(a.isOptional)), ("transient", yes(a.isTransient)), ("indexed", yes(a.isIndexed)),
                    ("attributeType", a.attributeType == .undefined ? nil : XcodeNames.name(of: a.attributeType))])
            if case .date(let d) = a.defaultValue {
                put(e, [("defaultDateTimeInterval", String(d.timeIntervalSinceReferenceDate))])
            } else {
                put(e, [("defaultValueString", XcodeNames.string(a.defaultValue))])
            }
            if a.attributeType == .date {
                if case .date(let d) = a.minValue { put(e, [("minDateTimeInterval", String(d.timeIntervalSinceReferenceDate))]) }
                if case .date(let d) = a.maxValue { put(e, [("maxDateTimeInterval", String(d.timeIntervalSinceReferenceDate))]) }
            } else if a.attributeType == .string || a.attributeType == .binaryData {
                put(e, [("minValueString", a.minLength.map(String.init)), ("maxValueString", a.maxLength.map(String.init))])
            } else {
                put(e, [("minValueString", XcodeNames.string(a.minValue)), ("maxValueString", XcodeNames.string(a.maxValue))])
            }
            put(e, [
                ("regularExpressionString", a.regularExpression), ("valueTransformerName", a.valueTransformerName),
                ("customClassName", a.attributeValueClassName), ("allowsExternalBinaryDataStorage", yes(a.allowsExternalBinaryDataStorage)),
                ("preserveAfterDeletion", yes(a.preservesValueInHistoryOnDeletion)),
                ("derived", yes(a.derivationExpression != nil)), ("derivationExpression", a.derivationExpression),
            ])
        } else if let r = p as? RelationshipDescription {
            e = XMLTag(name: "relationship")
            put(e, [("name", r.name), ("optional", yes(r.isOptional)), ("transient", yes(r.isTransient)),
                    ("minCount", r.minCount == 0 ? nil : String(r.minCount)),
                    ("maxCount", r.isToMany ? (r.maxCount == 0 ? nil : String(r.maxCount)) : "1"),
                    ("toMany", yes(r.isToMany)), ("ordered", yes(r.isOrdered)),
                    ("deletionRule", XcodeNames.name(of: r.deleteRule)), ("destinationEntity", r.destinationEntity?.name),
                    ("inverseName", r.inverseRelationship?.name), ("inverseEntity", r.inverseRelationship?.entity?.name)])
        } else {
            let f = p as! FetchedPropertyDescription
            e = XMLTag(name: "fetchedProperty")
            put(e, [("name", f.name), ("optional", yes(f.isOptional))])
            e.children.append(fetchRequest(f.fetchRequest, name: "fetchedPropertyFetchRequest"))
        }
        put(e, [
            ("elementID", p.explicitRenamingIdentifier), ("versionHashModifier", p.versionHashModifier),
            ("spotlightIndexingEnabled", yes(p.isIndexedBySpotlight)), ("storedInTruthFile", yes(p.isStoredInExternalRecord)),
        ])
        put(e, p.xcodeAttributes.map { ($0.0, $0.1) })
        for (predicate, warning) in zip(p.validationPredicates, p.validationWarnings) {
            e.add("validationPredicate", [("predicate", predicate), ("warning", warning)])
        }
        if !p.userInfo.isEmpty { e.children.append(userInfo(p.userInfo)) }
        return e
    }

    private static func userInfo(_ info: [String: String]) -> XMLTag {
        let u = XMLTag(name: "userInfo")
        for k in info.keys.sorted() { u.add("entry", [("key", k), ("value", info[k]!)]) }
        return u
    }

    private static func fetchRequest(_ t: FetchRequestTemplate, name: String) -> XMLTag {
        let e = XMLTag(name: "fetchRequest")
        put(e, [
            ("name", name), ("entity", t.entityName), ("predicateString", t.predicateFormat),
            ("fetchLimit", t.fetchLimit == 0 ? nil : String(t.fetchLimit)), ("fetchOffset", t.fetchOffset == 0 ? nil : String(t.fetchOffset)),
            ("fetchBatchSize", t.fetchBatchSize == 0 ? nil : String(t.fetchBatchSize)),
            ("resultType", t.resultType == 0 ? nil : String(t.resultType)),
            ("includeSubentities", t.includesSubentities ? nil : "NO"), ("returnDistinctResults", yes(t.returnsDistinctResults)),
            ("returnObjectsAsFaults", t.returnsObjectsAsFaults ? nil : "NO"), ("includePropertyValues", t.includesPropertyValues ? nil : "NO"),
        ])
        for s in t.sortKeys { e.add("sortDescriptor", [("key", s.key), ("ascending", s.ascending ? "YES" : "NO")]) }
        return e
    }
}
