import Foundation
import ObjectGraph
import XCTest

/// The coordinator's store management: removing stores, read-only stores, object ID URIs
/// back to IDs, and store metadata without a stack.
final class CoordinatorStoresTests: XCTestCase {
    func test_1_13_metadataWithoutAStackForEveryFileType() throws {
        let dir = try temporaryDirectory()
        for (type, name) in [(StoreType.sqlite, "m.sqlite"), (StoreType.binary, "m.binary")] {
            let path = dir + "/" + name
            var uuid = ""
            do {
                let stack = try Stack(model: try makeLibraryModel(), path: path, type: type)
                uuid = stack.store.identifier
                try stack.context.insertObject(entityName: "Author").setValue("A", forKey: "name")
                try stack.context.save()
            }
            for asked in [type, nil] {
                let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: asked, at: path)
                XCTAssertEqual(metadata[StoreMetadataKey.storeType]?.stringValue, type)
                XCTAssertEqual(metadata[StoreMetadataKey.storeUUID]?.stringValue, uuid)
                XCTAssertNotNil(metadata[StoreMetadataKey.modelVersionHashes])
            }
            var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
            metadata["Owner"] = .string("library")
            metadata[StoreMetadataKey.storeUUID] = nil
            try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: nil, at: path)
            let again = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: path)
            XCTAssertEqual(again["Owner"]?.stringValue, "library")
            XCTAssertEqual(again[StoreMetadataKey.storeUUID]?.stringValue, uuid, "the UUID is kept when not supplied")
            // The store still opens, with its data.
            let stack = try Stack(model: try makeLibraryModel(), path: path, type: type)
            XCTAssertEqual(stack.store.metadata["Owner"]?.stringValue, "library")
            XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Author")), 1)
            let other = type == StoreType.sqlite ? StoreType.binary : StoreType.sqlite
            XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: other, at: path) }?.code, ErrorCode.storeTypeMismatch)
        }
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: dir + "/missing") }?.code, ErrorCode.storeOpen)
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: dir + "/plain"))
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: dir + "/plain") }?.code, ErrorCode.storeInvalidType)
    }

    /// §2.16 types: SQLite (a database), Binary (an atomic store: all in memory, the file
    /// rewritten on save), InMemory (no file), and custom types once registered; anything
    /// else is refused with the registered types named.
    func testRule2_16_storeTypes() throws {
        XCTAssertTrue(Set(PersistentStoreCoordinator.registeredStoreTypes).isSuperset(of: [StoreType.sqlite, StoreType.binary, StoreType.inMemory]))
        let dir = try temporaryDirectory()
        let sqlite = try Stack(model: try makeLibraryModel(), path: dir + "/t.sqlite", type: StoreType.sqlite)
        XCTAssertTrue(sqlite.store is SQLiteStore)
        let binary = try Stack(model: try makeLibraryModel(), path: dir + "/t.bin", type: StoreType.binary)
        XCTAssertTrue(binary.store is AtomicStore)
        let memory = try Stack(model: try makeLibraryModel(), path: "", type: StoreType.inMemory)
        try memory.context.insertObject(entityName: "Author").setValue("A", forKey: "name")
        try memory.context.save()
        XCTAssertEqual(try memory.context.count(for: FetchRequest(entityName: "Author")), 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix("t.") }, [], "an in-memory store writes no file")
        let unknown = expectError { _ = try Stack(model: try makeLibraryModel(), path: dir + "/t.xml", type: "Plist") }
        XCTAssertEqual(unknown?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(unknown?.message.contains("SQLite") ?? false, "the error names the registered types")
    }

    func test_1_13_uriRepresentationsResolveToIDs() throws {
        for type in [StoreType.sqlite, StoreType.inMemory, StoreType.binary] {
            let stack = try lendingStack(type: type)
            let author = try stack.context.insertObject(entityName: "Author")
            try author.setValue("Ursula", forKey: "name")
            try stack.context.save()
            let uri = author.objectID.uriRepresentation
            let id = try XCTUnwrap(stack.coordinator.managedObjectID(forURIRepresentation: uri))
            XCTAssertEqual(id, author.objectID)
            XCTAssertEqual(id.uriRepresentation, uri)
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            XCTAssertEqual(try fresh.existingObject(with: id).string("name"), "Ursula")
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: "x-coredata://NOSUCHSTORE/Author/p1"))
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: "x-coredata://\(stack.store.identifier)/Nobody/p1"))
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: "https://example.org/Author/p1"))
            XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: "x-coredata://\(stack.store.identifier)/Author/t12"))
        }
    }

    func test_2_16_readOnlyStoresRefuseSaves() throws {
        let path = try temporaryDirectory() + "/ro.sqlite"
        do {
            let stack = try lendingStack(path)
            try stack.context.insertObject(entityName: "Tag").setValue("kept", forKey: "name")
            try stack.context.save()
        }
        ManagedObjectClasses.register(BookObject.self)
        let coordinator = try PersistentStoreCoordinator(model: try makeLendingModel())
        let store = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path, readOnly: true)
        XCTAssertTrue(coordinator.isReadOnly(store))
        let ctx = ManagedObjectContext(coordinator: coordinator)
        XCTAssertEqual(try ctx.fetch(FetchRequest(entityName: "Tag")).count, 1, "reading works")
        try ctx.insertObject(entityName: "Tag").setValue("refused", forKey: "name")
        XCTAssertEqual(expectError { try ctx.save() }?.code, ErrorCode.storeOperation)
        XCTAssertTrue(ctx.hasChanges)
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZTAG"), [["1"]])
        coordinator.setReadOnly(false, for: store)
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM ZTAG"), [["2"]])
    }

    func test_1_13_removingAStore() throws {
        let stack = try lendingStack(type: StoreType.inMemory)
        let second = try stack.coordinator.addPersistentStore(type: StoreType.inMemory, path: "")
        XCTAssertEqual(stack.coordinator.persistentStores.count, 2)
        try stack.coordinator.removePersistentStore(second)
        XCTAssertEqual(stack.coordinator.persistentStores.count, 1)
        XCTAssertEqual(expectError { try stack.coordinator.removePersistentStore(second) }?.code, ErrorCode.invalidArgument)
        try stack.coordinator.removePersistentStore(stack.store)
        XCTAssertTrue(stack.coordinator.persistentStores.isEmpty)
        XCTAssertEqual(expectError { _ = try stack.context.fetch(FetchRequest(entityName: "Tag")) }?.code, ErrorCode.storeOperation)
        XCTAssertNil(stack.coordinator.managedObjectID(forURIRepresentation: "x-coredata://\(stack.store.identifier)/Tag/p1"))
    }
}
