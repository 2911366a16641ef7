import Foundation
import ObjectGraph
import XCTest

/// A store subclassed from Swift: its "file" is a dictionary in memory, and it records
/// what the framework asks of it.
final class NotebookStore: AtomicStore, @unchecked Sendable {
    nonisolated(unsafe) static var pages: [String: ([AtomicStoreCacheNode], [String: PropertyListValue])] = [:]
    nonisolated(unsafe) static var events: [String] = []
    nonisolated(unsafe) static var failNextSave = false

    init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        try super.init(type: "Notebook", path: path, model: model)
        if let page = Self.pages[path] {
            Self.events.append("load")
            metadata = page.1
            if let uuid = page.1[StoreMetadataKey.storeUUID]?.stringValue { identifier = uuid }
            // Nodes of another store object are rebuilt for this one's model.
            try addCacheNodes(page.0.map { node in
                AtomicStoreCacheNode(entity: model.entitiesByName[node.entity.name]!, referenceObject: node.referenceObject,
                                     version: node.version, values: node.values, members: node.members)
            })
        }
    }

    override func save() throws(ObjectGraphError) {
        if Self.failNextSave {
            Self.failNextSave = false
            throw ObjectGraphError(code: ErrorCode.storeOperation, message: "the notebook is full")
        }
        Self.events.append("save \(cacheNodes.count)")
        Self.pages[path] = (cacheNodes, metadata)
    }

    override func newReferenceObjects(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        Self.events.append("keys \(entity.name) \(count)")
        return max(1000, largestReferenceObject(for: entity) + 1)
    }

    override func willRemove(_ nodes: [AtomicStoreCacheNode]) {
        Self.events.append("remove " + nodes.map { "\($0.entity.name)/\($0.referenceObject)" }.joined(separator: ","))
    }
}

final class AtomicStoreTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory() }

    private func insertBooks(_ stack: Stack) throws -> [ManagedObject] {
        let ctx = stack.context
        let author = try ctx.insertObject(entityName: "Author")
        try author.setValue("Ursula", forKey: "name")
        let tag = try ctx.insertObject(entityName: "Tag")
        try tag.setValue("classic", forKey: "name")
        var books: [ManagedObject] = []
        for (t, p) in [("Earthsea", 183), ("Dispossessed", 387)] {
            let b = try ctx.insertObject(entityName: "Book")
            try b.setValue(.string(t), forKey: "title")
            try b.setValue(.integer(Int64(p)), forKey: "pages")
            try b.setObject(author, forKey: "author")
            try b.addObject(tag, forKey: "tags")
            books.append(b)
        }
        try ctx.save()
        return books
    }

    func test_2_22_binaryStoreKeepsEveryValueAndRelationship() throws {
        let path = dir + "/books.binary"
        let published = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        var storeID = ""
        do {
            let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
            XCTAssertEqual(stack.store.type, "Binary")
            storeID = stack.store.identifier
            let author = try stack.context.insertObject(entityName: "Author")
            try author.setValue("Terry", forKey: "name")
            let book = try stack.context.insertObject(entityName: "Book")
            try book.setValue("Strata", forKey: "title")
            try book.setValue(.integer(Int64.min), forKey: "copies")
            try book.setValue(.decimal(Decimal(string: "12.50")!), forKey: "price")
            try book.setValue(0.1, forKey: "weight")
            try book.setValue(false, forKey: "inPrint")
            try book.setValue(.date(published), forKey: "published")
            try book.setValue(.data(Data([0, 1, 2, 255])), forKey: "cover")
            try book.setValue(.uuid(uuid), forKey: "isbnUUID")
            try book.setValue(.uri(URL(string: "https://example.org/strata?x=1")!), forKey: "link")
            try book.setObject(author, forKey: "author")
            try stack.context.save()
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(bytes.prefix(12)), Array("OGBINARY".utf8) + [0, 0, 0, 1], "the signature and format version")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["books.binary"], "no temporary file is left")

        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        XCTAssertEqual(stack.store.identifier, storeID, "the UUID is saved with the data")
        let book = try stack.context.fetch(FetchRequest(entityName: "Book"))[0]
        XCTAssertEqual(try book.value(forKey: "title"), "Strata")
        XCTAssertEqual(try book.value(forKey: "copies"), .integer(Int64.min))
        XCTAssertEqual(try book.value(forKey: "price"), .decimal(Decimal(string: "12.5")!))
        XCTAssertEqual(try book.value(forKey: "weight"), .double(0.1))
        XCTAssertEqual(try book.value(forKey: "inPrint"), false)
        XCTAssertEqual(try book.value(forKey: "published"), .date(published))
        XCTAssertEqual(try book.value(forKey: "cover"), .data(Data([0, 1, 2, 255])))
        XCTAssertEqual(try book.value(forKey: "isbnUUID"), .uuid(uuid))
        XCTAssertEqual(try book.value(forKey: "link"), .uri(URL(string: "https://example.org/strata?x=1")!))
        XCTAssertEqual(try book.object(forKey: "author")?.value(forKey: "name"), "Terry")
        XCTAssertEqual(try book.object(forKey: "author")?.objects(forKey: "books").count, 1)
        // New keys continue after the saved ones.
        let another = try stack.context.insertObject(entityName: "Book")
        try another.setValue("Second", forKey: "title")
        try stack.context.save()
        XCTAssertEqual(another.objectID.primaryKey, 2)
    }

    func test_2_22_binaryStoreKeepsManyToManyAndDeletes() throws {
        let path = dir + "/lending.binary"
        do {
            let stack = try lendingStack(path, type: StoreType.binary)
            let books = try insertBooks(stack)
            try stack.context.delete(books[1])
            try stack.context.save()
        }
        let stack = try lendingStack(path, type: StoreType.binary)
        let tags = try stack.context.fetch(FetchRequest(entityName: "Tag"))
        XCTAssertEqual(try tags[0].objects(forKey: "books").compactMap { $0.string("title") }, ["Earthsea"])
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "ANY tags.name == 'classic' AND author.name == 'Ursula'"))), 1)
    }

    func test_2_22_aFailedWriteLeavesFileAndNodesAsTheyWere() throws {
        let path = dir + "/lending.binary"
        let stack = try lendingStack(path, type: StoreType.binary)
        _ = try insertBooks(stack)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // A directory where the temporary file goes makes the write fail.
        try FileManager.default.createDirectory(atPath: path + ".tmp-\(getpid())", withIntermediateDirectories: false)
        let extra = try stack.context.insertObject(entityName: "Tag")
        try extra.setValue("new", forKey: "name")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSave)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the file is untouched")
        XCTAssertEqual(try ManagedObjectContext(coordinator: stack.coordinator).count(for: FetchRequest(entityName: "Tag")), 1, "the nodes are as before")
        try FileManager.default.removeItem(atPath: path + ".tmp-\(getpid())")
        try stack.context.save()
        XCTAssertEqual(try lendingStack(path, type: StoreType.binary).context.count(for: FetchRequest(entityName: "Tag")), 2)
    }

    func test_2_22_badFilesAreRefused() throws {
        let garbage = dir + "/garbage.binary"
        try Data("not a store at all".utf8).write(to: URL(fileURLWithPath: garbage))
        XCTAssertEqual(expectError { _ = try lendingStack(garbage, type: StoreType.binary) }?.code, ErrorCode.storeInvalidType)
        let empty = dir + "/empty.binary"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertNoThrow(try lendingStack(empty, type: StoreType.binary), "an empty file is a new store")
        let path = dir + "/library.binary"
        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        try stack.context.insertObject(entityName: "Author").setValue("A", forKey: "name")
        try stack.context.save()
        let other = try makeLibraryModel()
        try other.entitiesByName["Author"]!.addAttribute(named: "born", type: .date)
        XCTAssertEqual(expectError { _ = try Stack(model: other, path: path, type: StoreType.binary) }?.code, ErrorCode.storeIncompatibleVersionHash)
    }

    func testRule2_22_3_aSwiftSubclassIsAskedForKeysRemovalsAndSavesInOrder() throws {
        PersistentStoreCoordinator.registerStoreType("Notebook") { (path, model) throws(ObjectGraphError) in try NotebookStore(path: path, model: model) }
        defer { PersistentStoreCoordinator.registerStoreType("Notebook", factory: nil) }
        XCTAssertTrue(PersistentStoreCoordinator.registeredStoreTypes.contains("Notebook"))
        NotebookStore.events = []
        let path = "notebook-\(UUID().uuidString)"
        var uuid = ""
        do {
            let stack = try lendingStack(path, type: "Notebook")
            uuid = stack.store.identifier
            let books = try insertBooks(stack)
            XCTAssertEqual(books[0].objectID.primaryKey, 1000, "keys come from newReferenceObjects")
            try stack.context.delete(books[0])
            try stack.context.save()
            NotebookStore.failNextSave = true
            try stack.context.insertObject(entityName: "Tag").setValue("lost", forKey: "name")
            XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.storeSave)
        }
        XCTAssertEqual(NotebookStore.events, ["keys Author 1", "keys Tag 1", "keys Book 2", "save 4", "remove Book/1000", "save 3", "keys Tag 1"])
        let stack = try lendingStack(path, type: "Notebook")
        XCTAssertEqual(NotebookStore.events.last, "load")
        XCTAssertEqual(stack.store.identifier, uuid)
        let book = try stack.context.fetch(FetchRequest(entityName: "Book"))[0]
        XCTAssertEqual(book.string("title"), "Dispossessed")
        XCTAssertEqual(try book.objects(forKey: "tags").compactMap { $0.string("name") }, ["classic"])
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Tag")), 1, "the failed save left nothing")
        let store = stack.store as! AtomicStore
        XCTAssertEqual(store.cacheNodes.count, 3)
        let node = store.cacheNode(for: stack.model.entitiesByName["Book"]!, referenceObject: 1001)
        XCTAssertEqual(node?.value(forKey: "title"), .string("Dispossessed"))
        XCTAssertEqual(node?.members["tags"]?.count, 1)
        XCTAssertNil(node?.value(forKey: "nothing"))
    }
}
