import Foundation
@testable import ObjectGraph
import XCTest

/// The store-type registry and interface (`StoreTypes.swift`, `PersistentStoreType.swift`):
/// built-in types found by name and by their files, an application's type plugging in,
/// migration and metadata asking the type.
/// Where `StoreTypesTests.DocumentStore` keeps its documents (a store reads them as it is made).
final class Documents: @unchecked Sendable {
    var byPath: [String: [UInt8]] = [:]
}
let testDocuments = Documents()

final class StoreTypesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func notes() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "title", type: .string)
        return model
    }

    func testTheBuiltInTypesAreRegisteredAndCannotBeReplaced() throws {
        XCTAssertTrue(Set(StoreTypes.names).isSuperset(of: [StoreType.sqlite, StoreType.binary, StoreType.inMemory]))
        XCTAssertEqual(StoreTypes.named(StoreType.sqlite)?.name, StoreType.sqlite)
        XCTAssertEqual(expectError { try StoreTypes.register(FactoryStoreType(name: StoreType.sqlite) { setup throws(ObjectGraphError) in InMemoryStore(setup: setup) }) }?.code,
                       ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try StoreTypes.unregister(StoreType.binary) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try StoreTypes.unregister("NoSuchType") }?.code, ErrorCode.storeInvalidType)
        // Still the real SQLite type.
        let stack = try Stack(model: try notes(), path: dir + "/n.sqlite")
        XCTAssertTrue(stack.store is SQLiteStore)
    }

    func testAFileIsRecognisedByItsFirstBytes() throws {
        let model = try notes()
        for (type, name) in [(StoreType.sqlite, "a.sqlite"), (StoreType.binary, "a.binary")] {
            let stack = try Stack(model: model, path: dir + "/" + name, type: type)
            _ = try stack.context.insertObject(entityName: "Note")
            try stack.context.save()
            XCTAssertEqual(try StoreTypes.type(ofStoreAt: dir + "/" + name, named: nil).name, type)
        }
        // Named wrongly: a mismatch; not a store at all: refused; missing: no readable store.
        XCTAssertEqual(expectError { _ = try StoreTypes.type(ofStoreAt: self.dir + "/a.sqlite", named: StoreType.binary) }?.code,
                       ErrorCode.storeTypeMismatch)
        FileManager.default.createFile(atPath: dir + "/plain.txt", contents: Data("hello, world".utf8))
        XCTAssertEqual(expectError { _ = try StoreTypes.type(ofStoreAt: self.dir + "/plain.txt", named: nil) }?.code, ErrorCode.storeInvalidType)
        XCTAssertEqual(expectError { _ = try StoreTypes.type(ofStoreAt: self.dir + "/plain.txt", named: StoreType.sqlite) }?.code,
                       ErrorCode.storeInvalidType)
        XCTAssertEqual(expectError { _ = try StoreTypes.type(ofStoreAt: self.dir + "/none", named: nil) }?.code, ErrorCode.storeOpen)
    }

    func testTheSQLiteTypeNamesItsCompanionFilesAndRemovesThem() throws {
        let path = dir + "/c.sqlite"
        let type = try StoreTypes.require(StoreType.sqlite)
        XCTAssertEqual(type.files(at: path), [path, path + "-wal", path + "-shm", path + "-journal"])
        do {
            let stack = try Stack(model: try notes(), path: path)
            _ = try stack.context.insertObject(entityName: "Note")
            try stack.context.save()
        }
        XCTAssertTrue(type.hasStore(at: path))
        type.removeStore(at: path)
        XCTAssertFalse(type.files(at: path).contains { FileManager.default.fileExists(atPath: $0) })
        XCTAssertFalse(type.hasStore(at: path))
    }

    /// A type of the test's own: stores kept in a dictionary, migrated automatically by
    /// nothing (no capability), removed through the type.
    final class DocumentStore: BinaryStore, @unchecked Sendable {
        override func hasStoredData() -> Bool { testDocuments.byPath[path] != nil }
        override func readDocument() throws(ObjectGraphError) -> [UInt8]? { testDocuments.byPath[path] }
        override func writeDocument(_ bytes: [UInt8]) throws(ObjectGraphError) { testDocuments.byPath[path] = bytes }
    }

    final class DocumentStoreType: PersistentStoreType {
        let name = "TestDocuments"
        var capabilities: StoreTypeCapabilities { [] }
        func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore { try DocumentStore(type: name, setup: setup) }
        func hasStore(at path: String) -> Bool { testDocuments.byPath[path] != nil }
        func removeStore(at path: String) { testDocuments.byPath[path] = nil }
    }

    func testAnApplicationsTypePlugsInAndIsAskedAboutItsStores() throws {
        let type = DocumentStoreType()
        try StoreTypes.register(type)
        defer { try? StoreTypes.unregister(type.name) }
        XCTAssertTrue(PersistentStoreCoordinator.registeredStoreTypes.contains(type.name))
        let model = try notes()
        do {
            let stack = try Stack(model: model, path: "shelf/one", type: type.name)
            let note = try stack.context.insertObject(entityName: "Note")
            try note.setValue("kept", forKey: "title")
            try stack.context.save()
        }
        XCTAssertTrue(type.hasStore(at: "shelf/one"))
        let again = try Stack(model: model, path: "shelf/one", type: type.name)
        XCTAssertEqual(try again.context.fetch(FetchRequest(entityName: "Note")).map { try $0.value(forKey: "title") }, [.string("kept")])
        // Its metadata cannot be read without a store: the type says so.
        XCTAssertEqual(expectError { _ = try type.metadata(at: "shelf/one") }?.code, ErrorCode.storeInvalidType)
        // A store moves itself.
        try again.coordinator.setPath("shelf/two", for: again.store)
        XCTAssertEqual(again.store.path, "shelf/two")
        try StoreTypes.unregister(type.name)
        XCTAssertEqual(expectError { _ = try Stack(model: model, path: "shelf/one", type: type.name) }?.code, ErrorCode.storeInvalidType)
        // A store of it already added keeps working.
        _ = try again.context.insertObject(entityName: "Note")
        try again.context.save()
        XCTAssertTrue(type.hasStore(at: "shelf/two"))
    }

    func testAFactoryRegistrationIsAStoreTypeWithEveryDefault() throws {
        PersistentStoreCoordinator.registerStoreType("TestFactoryMemory", makeStore: { setup throws(ObjectGraphError) in InMemoryStore(setup: setup) })
        defer { PersistentStoreCoordinator.registerStoreType("TestFactoryMemory", makeStore: nil) }
        let type = try StoreTypes.require("TestFactoryMemory")
        XCTAssertEqual(type.capabilities, [])
        XCTAssertFalse(type.recognizes(header: Array("SQLite format 3\0".utf8)))
        let stack = try Stack(model: try notes(), path: "", type: "TestFactoryMemory")
        XCTAssertEqual(stack.store.type, StoreType.inMemory)
        // Built-in types are not replaced this way either.
        PersistentStoreCoordinator.registerStoreType(StoreType.sqlite, makeStore: { setup throws(ObjectGraphError) in InMemoryStore(setup: setup) })
        XCTAssertTrue(try Stack(model: try notes(), path: dir + "/s.sqlite").store is SQLiteStore)
    }
}
