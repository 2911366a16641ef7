import Foundation
import ObjectGraph
import XCTest

/// §2.22 rule by rule, on the Binary store (an atomic store): nodes hold the whole data
/// set (1), values and related keys (2), the save order (3, with AtomicStoreTests'
/// Swift subclass), reservation files (4), metadata (5) and in-memory fetching (6). Rule 7,
/// atomic stores from C through callbacks, is tested by Tests/c/test_stores.c and
/// test_stores.py.
final class AtomicStoreRulesTests: XCTestCase {
    private func filled(_ path: String) throws -> Stack {
        let stack = try lendingStack(path, type: StoreType.binary)
        let ctx = stack.context
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue("Ursula", forKey: "name")
        for (t, p) in [("Earthsea", 183), ("Dispossessed", 387), ("Lathe", 184)] {
            let b = try ctx.insertObject(entityName: "Book")
            try b.setValue(.string(t), forKey: "title")
            try b.setValue(.integer(Int64(p)), forKey: "pages")
            try b.setObject(author, forKey: "author")
        }
        try ctx.save()
        return stack
    }

    func testRule2_22_1_theWholeDataSetIsHeldAsNodesKeyedByID() throws {
        let path = try temporaryDirectory() + "/one.bin"
        let saved = try filled(path)
        let id = try saved.context.fetch(FetchRequest(entityName: "Author"))[0].objectID
        let stack = try lendingStack(path, type: StoreType.binary)
        let store = try XCTUnwrap(stack.store as? AtomicStore)
        XCTAssertEqual(store.cacheNodes.count, 4, "every record is a node once the store is loaded")
        let node = try XCTUnwrap(store.cacheNode(for: stack.model.entitiesByName["Author"]!, referenceObject: id.primaryKey))
        XCTAssertEqual(node.value(forKey: "name"), .string("Ursula"))
    }

    func testRule2_22_2_nodesHoldValuesAndTheirRelatedNodes() throws {
        let path = try temporaryDirectory() + "/two.bin"
        _ = try filled(path)
        let stack = try lendingStack(path, type: StoreType.binary)
        let store = try XCTUnwrap(stack.store as? AtomicStore)
        let book = try XCTUnwrap(store.cacheNodes.first { $0.value(forKey: "title") == .string("Lathe") })
        XCTAssertEqual(book.value(forKey: "pages"), .integer(184))
        guard case .integer(let authorKey)? = book.value(forKey: "author") else { return XCTFail("a to-one holds its destination's key") }
        let author = try XCTUnwrap(store.cacheNode(for: stack.model.entitiesByName["Author"]!, referenceObject: authorKey))
        XCTAssertEqual(author.value(forKey: "name"), .string("Ursula"))
        XCTAssertNil(book.value(forKey: "colour"), "a key the entity does not have")
    }

    func testRule2_22_4_aZeroLengthFileIsANewStore() throws {
        let path = try temporaryDirectory() + "/reserved.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let stack = try lendingStack(path, type: StoreType.binary)
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Book")), 0)
        try stack.context.insertObject(entityName: "Author").setValue("A", forKey: "name")
        try stack.context.save()
        XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0, 0)
        XCTAssertEqual(try lendingStack(path, type: StoreType.binary).context.count(for: FetchRequest(entityName: "Author")), 1)
    }

    func testRule2_22_5_metadataIsLoadedWithTheStoreAndSavedWithTheData() throws {
        let path = try temporaryDirectory() + "/meta.bin"
        let first = try filled(path)
        let uuid = first.store.identifier
        XCTAssertEqual(first.store.metadata[StoreMetadataKey.storeType]?.stringValue, StoreType.binary)
        let again = try lendingStack(path, type: StoreType.binary)
        XCTAssertEqual(again.store.identifier, uuid)
        XCTAssertEqual(again.store.metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.keys.sorted(),
                       again.model.entityVersionHashesByName.keys.sorted())
        let read = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
        XCTAssertEqual(read[StoreMetadataKey.storeUUID]?.stringValue, uuid)
    }

    func testRule2_22_6_fetchesRunInMemoryWithTheWindowAfterEvaluation() throws {
        let path = try temporaryDirectory() + "/six.bin"
        let stack = try filled(path)
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > 183"), sortKeys: [SortKey("pages", ascending: false)])
        request.fetchOffset = 1
        request.fetchLimit = 1
        let fresh = ManagedObjectContext(coordinator: stack.coordinator)
        XCTAssertEqual(try fresh.fetch(request).map { $0.string("title") }, ["Lathe"])
        XCTAssertEqual(try stack.context.count(for: request), 1)
    }
}
