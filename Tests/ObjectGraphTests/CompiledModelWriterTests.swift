import Foundation
@testable import ObjectGraph
import XCTest

/// The compiled-model writer (`CompiledModelWriter.swift`, `KeyedArchiveWriter.swift`,
/// `PredicateArchive.swift`, `ArchivedValues.swift`): every model reads back with the same
/// version hashes and structure, and the archive has the classes and keys of Apple's.
final class CompiledModelWriterTests: XCTestCase {
    static var appleRoot: String { AppleModelTests.root }

    /// Writes and reads back `model`, checking hashes and structure.
    @discardableResult
    func roundTrip(_ model: ManagedObjectModel, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws -> ManagedObjectModel {
        let bytes = CompiledModelWriter.write(model)
        let again = try CompiledModelReader.read(bytes, source: label)
        XCTAssertEqual(again.entityVersionHashesByName, model.entityVersionHashesByName, "\(label): version hashes", file: file, line: line)
        let (a, b) = (try Self.structure(model), try Self.structure(again))
        XCTAssertEqual(a, b, "\(label): structure", file: file, line: line)
        XCTAssertEqual(again.loadWarnings, [], label, file: file, line: line)
        return again
    }

    /// The canonical JSON form with what a compiled model spells its own way made equal:
    /// predicates as their canonical text, derivations as Core Data hashes them, and no
    /// localization (compiled models keep it elsewhere).
    static func structure(_ model: ManagedObjectModel) throws -> String {
        let json = JSONModelFormat.write(model, canonical: true)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        func normalize(_ v: Any, key: String?) -> Any {
            switch v {
            case var d as [String: Any]:
                d["localization"] = nil
                for (k, x) in d { d[k] = normalize(x, key: k) }
                return d
            case let a as [Any]: return a.map { normalize($0, key: nil) }
            case let s as String where key == "predicate": return (try? ObjectPredicate(format: s))?.predicateFormat ?? s
            case let s as String where key == "derivation":
                let n = VersionHash.derivationFormat(s)
                return (try? ObjectExpression(format: n))?.expressionFormat ?? n
            default: return v
            }
        }
        let data = try JSONSerialization.data(withJSONObject: normalize(object, key: nil), options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }

    /// A model using everything a compiled model carries.
    static func makeEverythingModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        try model.setVersionIdentifiers(["1", "beta"])
        let thing = try model.addEntity(named: "Thing")
        try thing.setAbstract(true)
        try thing.setUserInfo(["kind": "root", "note": "ünïcode"])
        try thing.setVersionHashModifier("v2")
        try thing.setRenamingIdentifier("OldThing")
        try thing.addAttribute(named: "code", type: .string, optional: false).setIndexed(true)
        let item = try model.addEntity(named: "Item")
        try item.setSuperentity(thing)
        try item.setManagedObjectClassName("ItemObject")
        try item.setUniquenessConstraints([["code"], ["name", "size"]])
        try item.setFetchIndexes([FetchIndexDescription(name: "byName", elements: [.init(property: "name"), .init(property: "size", ascending: false)])])
        let name = try item.addAttribute(named: "name", type: .string, defaultValue: "none")
        try name.setLengthBounds(min: 1, max: 40)
        try name.setRegularExpression("[A-Z].*\"")
        try name.setValidationPredicates(["SELF != 'bad'", "length < 30 OR SELF BEGINSWITH[cd] \"x\""], warnings: ["not bad", ""])
        try name.setUserInfo(["ui": "text"])
        try name.setRenamingIdentifier("title")
        try name.setVersionHashModifier("m")
        try name.setIndexedBySpotlight(true)
        try name.setStoredInExternalRecord(true)
        let size = try item.addAttribute(named: "size", type: .integer16, defaultValue: 7)
        try size.setValueBounds(min: .integer(-3), max: .integer(900))
        try item.addAttribute(named: "count32", type: .integer32, defaultValue: -70000)
        try item.addAttribute(named: "count64", type: .integer64, defaultValue: .integer(Int64.min))
        let price = try item.addAttribute(named: "price", type: .decimal, defaultValue: .decimal(Decimal(string: "-1234.5678")!))
        try price.setValueBounds(min: .decimal(Decimal(string: "0.01")!), max: .decimal(Decimal(string: "99999999999999999999999999999999999999")!))
        try item.addAttribute(named: "weight", type: .double, defaultValue: 2.5).setValueBounds(min: .double(-0.5), max: .null)
        try item.addAttribute(named: "width", type: .float, defaultValue: 1)
        try item.addAttribute(named: "flag", type: .boolean, defaultValue: true)
        let when = try item.addAttribute(named: "when", type: .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12345.5)))
        try when.setValueBounds(min: .date(Date(timeIntervalSinceReferenceDate: 0)), max: .date(Date(timeIntervalSinceReferenceDate: 9e8)))
        let blob = try item.addAttribute(named: "blob", type: .binaryData, defaultValue: .data(Data([0, 1, 2, 255])))
        try blob.setAllowsExternalBinaryDataStorage(true)
        try blob.setLengthBounds(min: nil, max: 1000)
        try item.addAttribute(named: "ident", type: .uuid, defaultValue: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
            .setPreservesValueInHistoryOnDeletion(true)
        try item.addAttribute(named: "link", type: .uri, defaultValue: .uri("https://example.com/a b"))
        let shape = try item.addAttribute(named: "shape", type: .transformable)
        try shape.setValueTransformerName("ShapeTransformer")
        try shape.setAttributeValueClassName("Shape")
        try item.addAttribute(named: "scratch", type: .string).setTransient(true)
        try item.addAttribute(named: "partCount", type: .integer64).setDerivationExpression("parts.@count")
        try item.addAttribute(named: "lowerName", type: .string).setDerivationExpression("lowercase:(name)")
        try item.addAttribute(named: "odd", type: .string).setDerivationExpression("canonical:(name)")
        let part = try model.addEntity(named: "Part")
        try part.addAttribute(named: "label", type: .string)
        let parts = try item.addRelationship(named: "parts", destination: part, toMany: true, deleteRule: .cascade)
        try parts.setOrdered(true)
        try parts.setCounts(min: 1, max: 10)
        let owner = try part.addRelationship(named: "owner", destination: item, deleteRule: .deny)
        try owner.setOptional(false)
        try parts.setInverse(owner)
        let loose = try part.addRelationship(named: "related", destination: part, toMany: true, deleteRule: .noAction)
        try loose.setCounts(min: 0, max: -1)
        let selfInverse = try part.addRelationship(named: "twin", destination: part)
        try selfInverse.setInverse(selfInverse)
        var request = FetchRequestTemplate(entityName: "Part", predicateFormat: "owner == $FETCH_SOURCE AND label IN {'a', 'b'}",
                                           sortKeys: [SortKey("label", ascending: false, comparison: .caseInsensitiveCompare)], fetchLimit: 5)
        request.fetchOffset = 2
        request.fetchBatchSize = 20
        request.includesSubentities = false
        request.returnsDistinctResults = true
        request.returnsObjectsAsFaults = false
        request.includesPropertyValues = false
        request.resultType = 2
        try item.addFetchedProperty(named: "someParts", fetchRequest: request).setUserInfo(["f": "p"])
        try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Item", predicateFormat: "name BEGINSWITH $PREFIX"), forName: "byPrefix")
        try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Part"), forName: "allParts")
        let predicates = [
            "TRUEPREDICATE", "FALSEPREDICATE", "NOT (label == nil)", "ANY owner.parts.label LIKE[c] '*x?'", "ALL owner.parts.label ENDSWITH 'z'",
            "label MATCHES '[a-z]+' OR label CONTAINS[n] 'q'", "SELF.label != $X", "owner.size BETWEEN {1, 5}", "owner.price > 2.5",
            "owner.when < CAST(100.5, 'NSDate')", "owner.flag == YES AND owner.blob != nil", "label == FUNCTION(label, 'uppercaseString')",
            "SUBQUERY(owner.parts, $p, $p.label == 'a').@count > 0", "TERNARY(label == nil, 'x', label) == 'x'", "owner.parts[FIRST].label == 'a'",
            "owner.parts[LAST] == SELF", "owner.parts[SIZE] == 2", "{1, 2}[0] == 1", "label IN {'a', 2, 3.5}",
            "(owner.size + 2) * 3 <= -owner.count32 / 4", "sum:(owner.parts.label) == 0", "now() > owner.when", "owner.ident == nil",
        ]
        for (i, format) in predicates.enumerated() {
            try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Part", predicateFormat: format), forName: "p\(i)")
        }
        try model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Part", predicateFormat: "this is not a predicate (("), forName: "broken")
        try model.setEntities([thing, item, part], forConfiguration: "All")
        try model.setEntities([part], forConfiguration: "Parts")
        return model
    }

    func testAModelWithEverythingReadsBackAsItWas() throws {
        let model = try Self.makeEverythingModel()
        let again = try roundTrip(model, "everything")
        let item = try XCTUnwrap(again.entity(named: "Item"))
        let name = try XCTUnwrap(item.attributesByName["name"])
        XCTAssertEqual(name.minLength, 1)
        XCTAssertEqual(name.regularExpression, "[A-Z].*\"")
        XCTAssertEqual(name.validationWarnings, ["not bad", ""])
        XCTAssertEqual(item.attributesByName["price"]?.defaultValue, .decimal(Decimal(string: "-1234.5678")!))
        XCTAssertEqual(item.attributesByName["partCount"]?.derivationExpression, "count:(parts)")
        XCTAssertEqual(item.attributesByName["odd"]?.derivationExpression, "canonical:(name)")
        XCTAssertEqual(again.fetchRequestTemplate(named: "broken")?.predicateFormat, "this is not a predicate ((")
        XCTAssertEqual(again.fetchRequestTemplate(named: "p15")?.predicateFormat, "owner.parts[LAST] == SELF")
        let someParts = try XCTUnwrap(item.fetchedPropertiesByName["someParts"]?.fetchRequest)
        XCTAssertEqual(someParts.sortKeys, [SortKey("label", ascending: false, comparison: .caseInsensitiveCompare)])
        XCTAssertEqual(again.configurations.sorted(), ["All", "Parts"])
    }

    /// Fetch indexes keep their R-tree elements and partial predicates in the archive.
    func testFetchIndexesKeepCollationAndPartialPredicate() throws {
        let model = try ManagedObjectModel(contentsOf: "\(SQLiteSchemaTests.fixtures)/XcodeDefaults.xcdatamodel")
        let again = try roundTrip(model, "XcodeDefaults")
        for entity in model.entities {
            let (before, after) = (entity.fetchIndexes, try XCTUnwrap(again.entity(named: entity.name)).fetchIndexes)
            XCTAssertEqual(before.map(\.name), after.map(\.name), entity.name)
            XCTAssertEqual(before.map { $0.partialPredicate.map { try? ObjectPredicate(format: $0).predicateFormat } },
                           after.map { $0.partialPredicate.map { try? ObjectPredicate(format: $0).predicateFormat } }, entity.name)
            XCTAssertEqual(before.map { $0.elements.map(\.collation) }, after.map { $0.elements.map(\.collation) }, entity.name)
        }
        XCTAssertTrue(model.entities.contains { $0.fetchIndexes.contains { $0.partialPredicate != nil } }, "the fixture has a partial index")
        XCTAssertTrue(model.entities.contains { $0.fetchIndexes.contains { $0.elements.contains { $0.collation == .rtree } } }, "and an R-tree one")
    }

    func testEveryTestModelReadsBackAsItWas() throws {
        let built: [(String, ManagedObjectModel)] = [
            ("library", try makeLibraryModel()), ("lending", try makeLendingModel()), ("differential", try makeDifferentialModel()),
            ("warehouse", try makeWarehouseModel(hashModifier: "x", extraAttribute: true)), ("results", try FetchResultTypeTests.makeModel()),
            ("empty", ManagedObjectModel()),
        ]
        for (label, model) in built { try roundTrip(model, label) }
        for name in ModelFileTests.bundles {
            let bundle = "\(ModelFileTests.fixtures)/\(name).xcdatamodeld"
            for version in try ManagedObjectModel.versionNames(inBundle: bundle) {
                try roundTrip(try ManagedObjectModel(contentsOf: bundle, version: version), "\(name) \(version)")
            }
        }
    }

    /// Every model of the Apple fixtures: Xcode's XML, compiled `.mom` files and the models
    /// Core Data cached in its stores.
    func testEveryAppleModelReadsBackAsItWas() throws {
        let root = Self.appleRoot
        guard FileManager.default.fileExists(atPath: root) else { throw XCTSkip("no Apple fixtures at \(root)") }
        var count = 0
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for path in files.sorted() {
            let full = "\(root)/\(path)"
            if path.hasSuffix(".xcdatamodeld") || path.hasSuffix(".momd") {
                for version in try ManagedObjectModel.versionNames(inBundle: full) {
                    try roundTrip(try ManagedObjectModel(contentsOf: full, version: version), "\(path) \(version)")
                    count += 1
                }
            } else if path.hasSuffix(".mom") && !path.contains(".momd/") {
                try roundTrip(try ManagedObjectModel(contentsOf: full), path)
                count += 1
            } else if path.hasSuffix(".sqlite") {
                let copy = try temporaryDirectory() + "/store.sqlite"
                try FileManager.default.copyItem(atPath: full, toPath: copy)
                if FileManager.default.fileExists(atPath: full + "-wal") { try FileManager.default.copyItem(atPath: full + "-wal", toPath: copy + "-wal") }
                guard let cached = try? SQLiteStore.cachedModel(at: copy) else { continue }
                try roundTrip(cached, path + " (Z_MODELCACHE)")
                count += 1
            }
        }
        XCTAssertGreaterThanOrEqual(count, 25)
    }

    // MARK: Apple's layout

    /// The compiled model Core Data cached in an Apple fixture store, inflated; nil for
    /// stores older than the cache.
    func appleCache(_ fixture: AppleStoreTests.Fixture) throws -> [UInt8]? {
        let path = try AppleStoreTests.copy(fixture)
        guard let blob = sqliteRows(path, "SELECT hex(Z_CONTENT) FROM Z_MODELCACHE").first?.first else { return nil }
        var bytes: [UInt8] = []
        var i = blob.startIndex
        while i < blob.endIndex {
            let j = blob.index(i, offsetBy: 2)
            bytes.append(UInt8(blob[i..<j], radix: 16)!)
            i = j
        }
        return try Inflate.decompress(bytes)
    }

    /// Every object of an archive as its class and fields, each reference shown as what it
    /// points at (a string, a class, an entity or property by name), as a multiset: two
    /// archives of the same model compare equal whatever UIDs they gave their objects.
    static func shapes(_ bytes: [UInt8]) throws -> [String: Int] {
        let archive = try KeyedArchive(bytes)
        func describe(_ v: KeyedArchive.Object, nested: Bool = false) -> String {
            guard case .uid(let u) = v else {
                if case .array(let items) = v { return "[" + items.map { describe($0, nested: true) }.joined(separator: ",") + "]" }
                return "\(v)"
            }
            if u == 0 { return "$null" }
            let o = archive.objects[u]
            guard let fields = o.dict, let className = archive.className(v) else { return "\(o)" }
            if className == "NSEntityDescription" { return "entity " + (archive.string(fields["NSEntityName"]) ?? "?") }
            if let name = archive.string(fields["NSPropertyName"]), let owner = fields["NSEntity"] {
                return "\(className) " + (archive.string(archive.resolve(owner)?.dict?["NSEntityName"]) ?? "?") + "." + name
            }
            if !nested, case .array(let items)? = fields["NS.objects"], fields["NS.keys"] == nil {
                return className + "[" + items.map { describe($0, nested: true) }.sorted().joined(separator: ",") + "]"
            }
            return className
        }
        var out: [String: Int] = [:]
        for (i, o) in archive.objects.enumerated() where i > 0 {
            guard let fields = o.dict, let className = archive.className(.uid(i)) else { continue }
            let pairs: [String]
            if case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"] {
                pairs = zip(keys, values).map { (archive.string($0) ?? "?") + "=" + describe($1) }
            } else if className.hasSuffix("Set"), case .array(let items)? = fields["NS.objects"] {
                pairs = ["NS.objects=[" + items.map { describe($0, nested: true) }.sorted().joined(separator: ",") + "]"]
            } else {
                pairs = fields.filter { $0.key != "$class" }.map { $0.key + "=" + describe($0.value) }
            }
            out[className + " {" + pairs.sorted().joined(separator: ", ") + "}", default: 0] += 1
        }
        return out
    }

    /// The classes of an archive with their `$classes` chains.
    static func classChains(_ bytes: [UInt8]) throws -> [String: [String]] {
        let archive = try KeyedArchive(bytes)
        var out: [String: [String]] = [:]
        for o in archive.objects {
            if case .string(let name)? = o.dict?["$classname"], case .array(let chain)? = o.dict?["$classes"] {
                out[name] = chain.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
        }
        return out
    }

    /// What Core Data cached in the stores of recent fixtures, we write field for field
    /// (apart from a default value of the app's own class, which we cannot archive); for
    /// SampleModel3 the object table is Apple's exactly.
    func testTheArchiveIsApplesObjectForObject() throws {
        // Skipped, not failed, without the fixtures (XCTUnwrap below would wrap the skip).
        guard FileManager.default.fileExists(atPath: AppleStoreTests.root) else { throw XCTSkip("no Apple fixtures at \(AppleStoreTests.root)") }
        for fixture in [AppleStoreTests.sampleV1, AppleStoreTests.sampleV2, AppleStoreTests.sample2V1, AppleStoreTests.sample2V2, AppleStoreTests.sample3] {
            let apple = try XCTUnwrap(try appleCache(fixture))
            let ours = CompiledModelWriter.write(try CompiledModelReader.read(apple, source: fixture.store))
            let own = { (shape: String) in !shape.contains("Cover") }
            let (a, b) = (try Self.shapes(apple).filter { own($0.key) }, try Self.shapes(ours).filter { own($0.key) })
            for shape in Set(a.keys).union(b.keys) where a[shape] != b[shape] {
                XCTFail("\(fixture.store): Apple has \(a[shape] ?? 0), we have \(b[shape] ?? 0) of \(shape)")
            }
        }
        let apple = try XCTUnwrap(try appleCache(AppleStoreTests.sample3))
        let ours = CompiledModelWriter.write(try CompiledModelReader.read(apple, source: "SampleModel3"))
        XCTAssertEqual(try KeyedArchive(ours).objects, try KeyedArchive(apple).objects)
    }

    /// Every class we write that Apple's archives have, has Apple's superclass chain.
    func testClassChainsAreApples() throws {
        var apple: [String: [String]] = [:]
        for fixture in AppleStoreTests.all {
            guard let bytes = try appleCache(fixture) else { continue }
            apple.merge(try Self.classChains(bytes)) { a, _ in a }
        }
        let root = Self.appleRoot
        for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".mom") {
            apple.merge(try Self.classChains(Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(path)"))))) { a, _ in a }
        }
        let ours = try Self.classChains(CompiledModelWriter.write(try Self.makeEverythingModel()))
        var compared = 0
        for (name, chain) in ours {
            guard let theirs = apple[name] else { continue }
            XCTAssertEqual(chain, theirs, name)
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 25)
    }
}
