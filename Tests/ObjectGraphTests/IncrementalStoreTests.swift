import Foundation
@testable import ObjectGraph
import XCTest

/// Incremental stores (`Stores/Incremental/`): a subclass answering fetches, faults and
/// saves through its hooks, and the engine merging, faulting, naming and saving around it.
final class IncrementalStoreTests: XCTestCase {
    /// Authors and books kept in dictionaries by reference, counting every hook call.
    final class LibraryStore: IncrementalStore, @unchecked Sendable {
        struct Row { var entity: String; var values: [String: AttributeValue]; var author: String?; var version: Int64 }
        var rows: [String: Row] = [
            "a1": Row(entity: "Author", values: ["name": .string("Ann")], author: nil, version: 1),
            "b1": Row(entity: "Book", values: ["title": .string("Strata"), "pages": .integer(300)], author: "a1", version: 1),
            "b2": Row(entity: "Book", values: ["title": .string("Eddies"), "pages": .integer(120)], author: "a1", version: 1),
            "n1": Row(entity: "Novel", values: ["title": .string("Drift"), "pages": .integer(410)], author: nil, version: 1),
        ]
        var calls: [String] = []
        var nodesGiveAuthor = true
        var failSave: ObjectGraphError?
        var saveBody: ((SaveChangesRequest, ManagedObjectContext?) throws(ObjectGraphError) -> Void)?

        func id(_ ref: String) -> ManagedObjectID {
            newObjectID(for: model.entity(named: rows[ref]!.entity)!, reference: .string(ref))
        }

        func ref(_ id: ManagedObjectID) -> String {
            if case .string(let s)? = referenceObject(for: id) { return s }
            return ""
        }

        override func loadMetadata() throws(ObjectGraphError) {
            calls.append("loadMetadata")
            metadata = [StoreMetadataKey.storeType: .string(type), StoreMetadataKey.storeUUID: .string("5A1D2C3B-0000-4000-8000-000000000001")]
        }

        override func execute(_ request: FetchRequest, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalFetchResult {
            calls.append("fetch \(request.entityName) \(request.resultType)")
            let entity = model.entity(named: request.entityName)!
            var ids: [ManagedObjectID] = []
            for key in rows.keys.sorted() {
                let row = rows[key]!
                let e = model.entity(named: row.entity)!
                guard e.isKind(of: entity) else { continue }
                if let p = request.predicate {
                    var scalars: [String: PredicateValue] = [:]
                    for (k, v) in row.values { scalars[k] = .scalar(v) }
                    guard try p.evaluate(with: .dictionary(scalars)) else { continue }
                }
                ids.append(id(key))
            }
            for key in request.sortKeys.reversed() {
                ids.sort { a, b in
                    let x = rows[ref(a)]!.values[key.key] ?? .null, y = rows[ref(b)]!.values[key.key] ?? .null
                    return key.ascending ? StoreOrder.compare(x, y) < 0 : StoreOrder.compare(x, y) > 0
                }
            }
            switch request.resultType {
            case .count: return .count(ids.count)
            case .dictionary: return .dictionaries(ids.map { ["title": .value(rows[ref($0)]!.values["title"] ?? .null)] })
            default: return .objectIDs(ids)
            }
        }

        override func execute(_ request: SaveChangesRequest, context: ManagedObjectContext?) throws(ObjectGraphError) {
            calls.append("save \(request.insertedObjects?.count ?? -1) \(request.updatedObjects?.count ?? -1) \(request.deletedObjects?.count ?? -1)")
            if let failSave { throw failSave }
            try saveBody?(request, context)
            for o in (request.insertedObjects ?? []) + (request.updatedObjects ?? []) {
                var values: [String: AttributeValue] = [:]
                for a in o.entity.attributesByName.keys { values[a] = try o.value(forKey: a) }
                let author = o.entity.relationshipsByName["author"] == nil ? nil : try o.object(forKey: "author").map { ref($0.objectID) }
                rows[ref(o.objectID), default: Row(entity: o.entity.name, values: [:], author: nil, version: 0)].values = values
                rows[ref(o.objectID)]!.author = author
                rows[ref(o.objectID)]!.version += 1
            }
            for o in request.deletedObjects ?? [] { rows.removeValue(forKey: ref(o.objectID)) }
        }

        override func newValues(forObjectWith id: ManagedObjectID, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalStoreNode {
            calls.append("values \(ref(id))")
            guard let row = rows[ref(id)] else { throw .objectInaccessible("no row \(ref(id))") }
            var destinations: [String: ManagedObjectID?] = [:]
            if nodesGiveAuthor, id.entity.relationshipsByName["author"] != nil { destinations.updateValue(row.author.map(self.id), forKey: "author") }
            return IncrementalStoreNode(objectID: id, attributes: row.values, destinations: destinations, version: row.version)
        }

        override func newValue(forRelationship relationship: RelationshipDescription, forObjectWith id: ManagedObjectID,
                               context: ManagedObjectContext?) throws(ObjectGraphError) -> [ManagedObjectID] {
            calls.append("relationship \(relationship.name) \(ref(id))")
            if relationship.name == "author" { return rows[ref(id)]!.author.map { [self.id($0)] } ?? [] }
            return rows.keys.sorted().filter { rows[$0]!.author == ref(id) }.map(self.id)
        }

        override func obtainPermanentIDs(for objects: [ManagedObject]) throws(ObjectGraphError) -> [ManagedObjectID] {
            calls.append("ids \(objects.count)")
            return objects.map { newObjectID(for: $0.entity, reference: .string("new-" + String(rows.count + calls.count) + "-" + (try! $0.value(forKey: "title")).description)) }
        }
    }

    var coordinator: PersistentStoreCoordinator!
    var store: LibraryStore!
    var context: ManagedObjectContext!
    let typeName = "Library-\(UUID().uuidString)"

    override func setUpWithError() throws {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string, optional: false)
        try book.addAttribute(named: "pages", type: .integer64)
        let novel = try model.addEntity(named: "Novel")
        try novel.setSuperentity(book)
        let books = try author.addRelationship(named: "books", destination: book, toMany: true)
        let writer = try book.addRelationship(named: "author", destination: author)
        try books.setInverse(writer)
        try writer.setInverse(books)
        try StoreTypes.register(IncrementalStoreType(name: typeName, storeClass: LibraryStore.self), replacing: false)
        coordinator = try PersistentStoreCoordinator(model: model)
        store = try XCTUnwrap(try coordinator.addPersistentStore(type: typeName, configuration: nil, path: "library://test") as? LibraryStore)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    override func tearDown() {
        context = nil
        store = nil
        coordinator = nil
        try? StoreTypes.unregister(typeName)
    }

    func testFetchesGoThroughTheStoreAndReturnFaultsThatFireThroughNodes() throws {
        XCTAssertEqual(store.calls, ["loadMetadata"])
        XCTAssertEqual(store.identifier, "5A1D2C3B-0000-4000-8000-000000000001")
        let books = try context.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")]))
        XCTAssertEqual(store.calls.last, "fetch Book managedObject")
        // Subentities included; every object a fault until read.
        XCTAssertEqual(books.count, 3)
        XCTAssertTrue(books.allSatisfy(\.isFault))
        XCTAssertFalse(store.calls.contains { $0.hasPrefix("values") })
        XCTAssertEqual(try books[0].value(forKey: "title"), .string("Drift"))
        XCTAssertEqual(store.calls.last, "values n1")
        XCTAssertEqual(books[0].entity.name, "Novel")
        let onlyBooks = FetchRequest(entityName: "Book")
        onlyBooks.includesSubentities = false
        XCTAssertEqual(try context.fetch(onlyBooks).count, 2)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > 200"))), 2)
        XCTAssertEqual(store.calls.last, "fetch Book count")
        // Asked for loaded objects: their values are read with the fetch.
        let loaded = FetchRequest(entityName: "Author")
        loaded.returnsObjectsAsFaults = false
        let authors = try ManagedObjectContext(coordinator: coordinator).fetch(loaded)
        XCTAssertFalse(authors[0].isFault)
        XCTAssertEqual(store.calls.last, "values a1")
    }

    func testPendingChangesAreLaidOverTheStoresAnswer() throws {
        let book = try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "title == 'Eddies'")))[0]
        try context.delete(book)
        let new = try context.insertObject(entityName: "Book")
        try new.setValue(.string("Aloft"), forKey: "title")
        let before = store.calls.count
        let titles = try context.fetch(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])).map { try $0.value(forKey: "title") }
        XCTAssertEqual(titles, [.string("Aloft"), .string("Drift"), .string("Strata")])
        XCTAssertTrue(store.calls[before...].contains("fetch Book managedObject"), "the store answered even with unsaved changes")
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Book")), 3)
        XCTAssertEqual(try context.fetchObjectIDs(FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])).count, 3)
    }

    func testRelationshipsComeFromNodesOrTheRelationshipHookOnceThenCached() throws {
        let author = try context.existingObject(with: store.id("a1"))
        _ = try author.objects(forKey: "books")
        let members = try author.objects(forKey: "books")
        XCTAssertEqual(members.count, 2)
        XCTAssertEqual(store.calls.filter { $0 == "relationship books a1" }.count, 1)
        XCTAssertTrue(members.allSatisfy(\.isFault), "members stay faults until read")
        // The node names the author: no relationship call for it.
        let b1 = try context.existingObject(with: store.id("b1"))
        XCTAssertTrue(try b1.object(forKey: "author") === author)
        XCTAssertFalse(store.calls.contains("relationship author b1"))
        // A node without it: read through the hook when the row loads.
        store.nodesGiveAuthor = false
        let other = ManagedObjectContext(coordinator: coordinator)
        other.stalenessInterval = 0
        let b2 = try other.existingObject(with: store.id("b2"))
        XCTAssertEqual(try b2.object(forKey: "author")?.objectID, store.id("a1"))
        XCTAssertTrue(store.calls.contains("relationship author b2"))
    }

    func testASaveObtainsPermanentIDsThenSendsExactlyOneRequest() throws {
        let book = try context.insertObject(entityName: "Book")
        try book.setValue(.string("Aloft"), forKey: "title")
        try book.setObject(try context.existingObject(with: store.id("a1")), forKey: "author")
        try context.save()
        let saves = store.calls.filter { $0.hasPrefix("save") }
        XCTAssertEqual(saves, ["save 1 1 0"], "the book inserted, its author updated through the inverse")
        XCTAssertLessThan(store.calls.firstIndex(of: "ids 1")!, store.calls.firstIndex(of: "save 1 1 0")!)
        XCTAssertFalse(book.objectID.isTemporaryID)
        XCTAssertTrue(store.ref(book.objectID).hasPrefix("new-"))
        XCTAssertEqual(store.rows[store.ref(book.objectID)]?.author, "a1")
        // An empty save sends one request too.
        try context.save()
        XCTAssertEqual(store.calls.filter { $0.hasPrefix("save") }.count, 2)
        XCTAssertEqual(store.calls.last, "save 0 0 0")
    }

    func testAFailingSaveReachesTheCallerAndTheContextKeepsItsChanges() throws {
        let book = try context.existingObject(with: store.id("b1"))
        try book.setValue(.string("Strata II"), forKey: "title")
        store.failSave = ObjectGraphError(code: 4242, message: "the service said no")
        let error = expectError { try self.context.save() }
        XCTAssertEqual(error?.code, 4242)
        XCTAssertEqual(error?.message, "the service said no")
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(try book.value(forKey: "title"), .string("Strata II"))
        store.failSave = nil
        try context.save()
        XCTAssertEqual(store.rows["b1"]?.values["title"], .string("Strata II"))
    }

    func testSavingAgainFromTheSaveRequestIsRefused() throws {
        let book = try context.existingObject(with: store.id("b1"))
        try book.setValue(.string("Again"), forKey: "title")
        var inner: ObjectGraphError?
        store.saveBody = { (_, context) throws(ObjectGraphError) in
            do throws(ObjectGraphError) { try context?.save() } catch { inner = error }
        }
        try context.save()
        XCTAssertEqual(inner?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(store.calls.filter { $0.hasPrefix("save") }.count, 1)
    }

    func testURIsCarryTheReferenceAsCoreDataWritesIt() throws {
        let book = try XCTUnwrap(coordinator.managedObjectModel.entity(named: "Book"))
        let uuid = store.identifier
        XCTAssertEqual(store.newObjectID(for: book, reference: .string("key with/slash")).uriRepresentation, "x-coredata://\(uuid)/Book/pkey%20with/slash")
        XCTAssertEqual(store.newObjectID(for: book, reference: .integer(42)).uriRepresentation, "x-coredata://\(uuid)/Book/p42")
        XCTAssertEqual(store.newObjectID(for: book, reference: .data([0x01, 0xab, 0xff])).uriRepresentation, "x-coredata://\(uuid)/Book/p%3C01abff%3E")
        // The same reference gives the same ID; a URI gives back the ID it was made from.
        let id = store.newObjectID(for: book, reference: .string("key with/slash"))
        XCTAssertEqual(id, store.newObjectID(for: book, reference: .string("key with/slash")))
        XCTAssertEqual(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation), id)
        XCTAssertEqual(store.referenceObject(for: coordinator.managedObjectID(forURIRepresentation: "x-coredata://\(uuid)/Book/pfresh%20one")!), .string("fresh one"))
        XCTAssertEqual(store.referenceObject(for: store.newObjectID(for: book, reference: .integer(42))), .integer(42))
        XCTAssertNil(coordinator.managedObjectID(forURIRepresentation: "x-coredata://OTHER/Book/p1"))
    }

    func testBadAnswersGetClearErrorsAndTheTypeIsGuarded() throws {
        // A node lacking a non-optional attribute.
        store.rows["b1"]!.values["title"] = nil
        let e1 = expectError { _ = try self.context.existingObject(with: self.store.id("b1")).value(forKey: "pages") }
        XCTAssertTrue(e1?.message.contains("'title'") ?? false, e1?.message ?? "")
        // Registering the name again, unregistering it while a store is open.
        XCTAssertEqual(expectError { try StoreTypes.register(IncrementalStoreType(name: self.typeName, storeClass: LibraryStore.self), replacing: false) }?.code,
                       ErrorCode.invalidArgument)
        XCTAssertEqual(expectError { try StoreTypes.unregister(self.typeName) }?.code, ErrorCode.invalidArgument)
        try coordinator.removePersistentStore(store)
        try StoreTypes.unregister(typeName)
        XCTAssertNil(StoreTypes.named(typeName))
    }

    func testAStoreNamingAnotherTypeIsNotAdded() throws {
        final class Liar: IncrementalStore, @unchecked Sendable {
            override func loadMetadata() throws(ObjectGraphError) {
                metadata = [StoreMetadataKey.storeType: .string("SQLite"), StoreMetadataKey.storeUUID: .string(UUID().uuidString)]
            }
        }
        let name = "Liar-\(UUID().uuidString)"
        try StoreTypes.register(IncrementalStoreType(name: name, storeClass: Liar.self), replacing: false)
        defer { try? StoreTypes.unregister(name) }
        let before = coordinator.persistentStores.count
        XCTAssertEqual(expectError { _ = try self.coordinator.addPersistentStore(type: name, configuration: nil, path: "x") }?.code, ErrorCode.storeTypeMismatch)
        XCTAssertEqual(coordinator.persistentStores.count, before)
    }
}
