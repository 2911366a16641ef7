import Foundation
@testable import ObjectGraph
import XCTest

/// Transformable attributes through contexts and stores (`ValueTransformers.swift`,
/// `ManagedObject+Transformable.swift`): values in objects, archives in the store.
final class ValueTransformersTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func model(transformer: String? = nil, default value: AttributeValue = .null) throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "title", type: .string)
        let extra = try note.addAttribute(named: "extra", type: .transformable)
        try extra.setValueTransformerName(transformer)
        if !value.isNull { try extra.setDefaultValue(value) }
        return model
    }

    private let sample: TransformableValue = [
        "tags": ["a", "b"], "count": 3, "ratio": 0.25, "on": false, "when": .date(Date(timeIntervalSinceReferenceDate: 99)),
        "id": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), "link": .url("https://example.com/x y"),
        "raw": .data(Data([0, 255])), "nothing": .null,
    ]

    func testValuesRoundTripThroughSQLiteAcrossAReopen() throws {
        let path = dir + "/notes.sqlite"
        let m = try model()
        do {
            let stack = try Stack(model: m, path: path)
            let note = try stack.context.insertObject(entityName: "Note")
            try note.setValue(.transformable(sample), forKey: "extra")
            XCTAssertEqual(try note.value(forKey: "extra"), .transformable(sample))
            try stack.context.save()
        }
        // The column holds the keyed archive.
        let blob = sqliteRows(path, "SELECT hex(ZEXTRA) FROM ZNOTE").first?.first ?? ""
        XCTAssertTrue(blob.hasPrefix("62706C6973743030"), blob)  // "bplist00"
        let stack = try Stack(model: m, path: path)
        let note = try XCTUnwrap(try stack.context.fetch(FetchRequest(entityName: "Note")).first)
        XCTAssertEqual(try note.value(forKey: "extra"), .transformable(sample))
    }

    func testDictionaryResultsGiveValues() throws {
        let stack = try Stack(model: try model(), path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue(.transformable(["k": [1, 2]]), forKey: "extra")
        try stack.context.save()
        let request = FetchRequest(entityName: "Note")
        request.resultType = .dictionary
        request.propertiesToFetch = [.property("extra")]
        let rows = try stack.context.fetchDictionaries(request)
        XCTAssertEqual(rows.first?["extra"], .value(.transformable(["k": [1, 2]])))
    }

    func testADefaultValueSurvivesACompiledModel() throws {
        let value: TransformableValue = ["level": 2, "names": ["x", .date(Date(timeIntervalSinceReferenceDate: 3))]]
        let read = try CompiledModelReader.read(CompiledModelWriter.write(try model(default: .transformable(value))), source: "test")
        XCTAssertEqual(read.loadWarnings, [])
        XCTAssertEqual(read.entity(named: "Note")?.attributesByName["extra"]?.defaultValue, .transformable(value))
    }

    func testAnEqualValueIsNoChange() throws {
        let stack = try Stack(model: try model(), path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue(.transformable(sample), forKey: "extra")
        try stack.context.save()
        try stack.context.refresh(note, mergeChanges: false)
        try note.setValue(.transformable(sample), forKey: "extra")
        XCTAssertFalse(note.isUpdated)
        XCTAssertFalse(stack.context.hasChanges)
        try note.setValue(.transformable(["tags": ["a"]]), forKey: "extra")
        XCTAssertTrue(note.isUpdated)
        // A plain scalar is a transformable value too.
        try note.setValue("plain", forKey: "extra")
        XCTAssertEqual(try note.value(forKey: "extra"), .transformable("plain"))
    }

    func testArchivedObjectsNeedTheirClassRegistered() throws {
        let path = dir + "/n.sqlite"
        let stack = try Stack(model: try model(), path: path)
        let note = try stack.context.insertObject(entityName: "Note")
        let point: TransformableValue = .object(ArchivedObject(className: "TestPoint", fields: ["x": 1, "y": [2, 3]]))
        let refused = expectError { try note.setValue(.transformable(point), forKey: "extra") }
        XCTAssertEqual(refused?.code, ErrorCode.typeMismatch)
        XCTAssertTrue(refused?.message.contains("register_value_transformer") ?? false)
        try ValueTransformers.registerArchivableClass("TestPoint")
        defer { try? ValueTransformers.unregisterArchivableClass("TestPoint") }
        try note.setValue(.transformable(point), forKey: "extra")
        try stack.context.save()
        let again = try Stack(model: stack.model, path: path)
        let read = try XCTUnwrap(try again.context.fetch(FetchRequest(entityName: "Note")).first)
        XCTAssertEqual(try read.value(forKey: "extra"), .transformable(point))
        // Once withdrawn, the class is refused on read: nothing is built.
        try ValueTransformers.unregisterArchivableClass("TestPoint")
        let third = try Stack(model: stack.model, path: path)
        let unread = try XCTUnwrap(try third.context.fetch(FetchRequest(entityName: "Note")).first)
        XCTAssertEqual(expectError { _ = try unread.value(forKey: "extra") }?.code, ErrorCode.typeMismatch)
        // A value that cannot be read can still be replaced.
        try unread.setValue("replaced", forKey: "extra")
        try third.context.save()
        XCTAssertEqual(try unread.value(forKey: "extra"), .transformable("replaced"))
        try ValueTransformers.registerArchivableClass("TestPoint")
    }

    func testANamedTransformerStoresItsBytes() throws {
        let name = "TestReversedText"
        try ValueTransformers.register(
            name: name,
            forward: { (v) throws(ObjectGraphError) in
                guard case .string(let s) = v else { throw .invalidArgument("text only") }
                return Data(s.utf8.reversed())
            },
            reverse: { (d) throws(ObjectGraphError) in .string(String(decoding: d.reversed(), as: UTF8.self)) })
        defer { try? ValueTransformers.unregister(name: name) }
        XCTAssertEqual(expectError { try ValueTransformers.register(name: name, forward: { _ in Data() }, reverse: { _ in .null }) }?.code,
                       ErrorCode.invalidArgument)
        let path = dir + "/n.sqlite"
        let stack = try Stack(model: try model(transformer: name), path: path)
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue("abc", forKey: "extra")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT CAST(ZEXTRA AS TEXT) FROM ZNOTE"), [["cba"]])
        let again = try Stack(model: stack.model, path: path)
        let read = try XCTUnwrap(try again.context.fetch(FetchRequest(entityName: "Note")).first)
        XCTAssertEqual(try read.value(forKey: "extra"), .transformable("abc"))
        // The transformer's own error fails the save.
        try read.setValue(.transformable([1]), forKey: "extra")
        XCTAssertEqual(expectError { try again.context.save() }?.code, ErrorCode.invalidArgument)
    }

    func testUnregisteringWaitsForACallAnotherThreadIsMaking() throws {
        let name = "TestSlowText"
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        try ValueTransformers.register(
            name: name,
            forward: { (v) throws(ObjectGraphError) in
                inside.signal()
                release.wait()
                return Data("\(v)".utf8)
            },
            reverse: { (d) throws(ObjectGraphError) in .string(String(decoding: d, as: UTF8.self)) })
        let stack = try Stack(model: try model(transformer: name), path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue("abc", forKey: "extra")
        let steps = Results()
        let saved = DispatchSemaphore(value: 0), unregistered = DispatchSemaphore(value: 0)
        let context = stack.context
        // The save runs on this thread (the context's); another thread waits until the
        // transformer is inside its call, then unregisters it from a third.
        Thread.detachNewThread {
            inside.wait()
            Thread.detachNewThread {
                try? ValueTransformers.unregister(name: name)
                steps.append(.success("unregistered"))
                unregistered.signal()
            }
            // Unregistering must still be waiting for the call under way.
            Thread.sleep(forTimeInterval: 0.3)
            steps.append(.success("released"))
            release.signal()
            saved.signal()
        }
        try context.save()
        saved.wait()
        unregistered.wait()
        XCTAssertEqual(steps.all.compactMap { try? $0.get() }, ["released", "unregistered"])
        XCTAssertFalse(ValueTransformers.isRegistered(name: name))
    }

    func testATransformerMayUnregisterItselfDuringItsCall() throws {
        let name = "TestSelfRemoving"
        try ValueTransformers.register(
            name: name,
            forward: { (v) throws(ObjectGraphError) in
                try ValueTransformers.unregister(name: name)  // returns: only this thread is inside
                return Data("\(v)".utf8)
            },
            reverse: { (d) throws(ObjectGraphError) in .string(String(decoding: d, as: UTF8.self)) })
        let stack = try Stack(model: try model(transformer: name), path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue("abc", forKey: "extra")
        try stack.context.save()
        XCTAssertFalse(ValueTransformers.isRegistered(name: name))
    }

    func testAnUnregisteredTransformerFailsTheSaveWritingNothing() throws {
        let path = dir + "/n.sqlite"
        let stack = try Stack(model: try model(transformer: "NoSuchTransformer"), path: path)
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue("t", forKey: "title")
        try note.setValue(.transformable(["x": 1]), forKey: "extra")
        let e = expectError { try stack.context.save() }
        XCTAssertEqual(e?.code, ErrorCode.coreData)
        XCTAssertTrue(e?.message.contains("NoSuchTransformer") ?? false)
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZNOTE"), [["0"]])
        XCTAssertTrue(stack.context.hasChanges)
        XCTAssertEqual(expectError { try ValueTransformers.unregister(name: "NoSuchTransformer") }?.code, ErrorCode.invalidArgument)
    }

    func testTheLegacyNameWritesPlistValuesOnly() throws {
        try ValueTransformers.registerArchivableClass("TestLegacyThing")
        defer { try? ValueTransformers.unregisterArchivableClass("TestLegacyThing") }
        let stack = try Stack(model: try model(transformer: ValueTransformers.keyedUnarchiveFromData), path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        try note.setValue(.transformable(["a": 1]), forKey: "extra")
        try stack.context.save()
        try note.setValue(.transformable(.object(ArchivedObject(className: "TestLegacyThing", fields: [:]))), forKey: "extra")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.coreData)
    }

    func testADefaultValueSurvivesTheJSONModelFormat() throws {
        let m = try model(default: .transformable(["level": 2, "names": ["x"]]))
        let json = JSONModelFormat.write(m)
        XCTAssertTrue(json.contains("\"default\""))
        let read = try JSONModelFormat.read(Data(json.utf8), source: "test")
        let extra = try XCTUnwrap(read.entity(named: "Note")?.attributesByName["extra"])
        XCTAssertEqual(extra.defaultValue, .transformable(["level": 2, "names": ["x"]]))
        let stack = try Stack(model: read, path: dir + "/n.sqlite")
        let note = try stack.context.insertObject(entityName: "Note")
        XCTAssertEqual(try note.value(forKey: "extra"), .transformable(["level": 2, "names": ["x"]]))
        XCTAssertEqual(expectError { try extra.setDefaultValue(.decimal(1)) }?.code, ErrorCode.modelImmutable)
    }

    /// A store Apple's Core Data wrote: the default transformer's archive of an NSString.
    func testReadsATransformableAppleWrote() throws {
        guard FileManager.default.fileExists(atPath: AppleStoreTests.root) else { throw XCTSkip("no Apple fixtures at \(AppleStoreTests.root)") }
        let path = try AppleStoreTests.copy(AppleStoreTests.book)
        let model = try ManagedObjectModel(contentsOf: "\(AppleStoreTests.root)/\(AppleStoreTests.book.model)", version: AppleStoreTests.book.version)
        let stack = try Stack(model: model, path: path)
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'The Trial'"))
        let book = try XCTUnwrap(try stack.context.fetch(request).first)
        XCTAssertEqual(try book.value(forKey: "fileURL"), .transformable("The Trial.file"))
        // Written back unchanged, the value keeps Apple's bytes; a new value is our archive, read back.
        try book.setValue("Another.file", forKey: "fileURL")
        try stack.context.save()
        let again = try Stack(model: model, path: path)
        let reread = try XCTUnwrap(try again.context.fetch(request).first)
        XCTAssertEqual(try reread.value(forKey: "fileURL"), .transformable("Another.file"))
    }
}
