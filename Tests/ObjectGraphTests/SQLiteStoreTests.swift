import CSQLite
import Foundation
import ObjectGraph
import XCTest

final class SQLiteStoreTests: XCTestCase {
    func testNewStoreHasCoreDataLayout() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        _ = try Stack(model: try makeLibraryModel(), path: path)
        let schema = sqliteRows(path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0[0] }
        XCTAssertEqual(schema, [
            "CREATE TABLE ZAUTHOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRATING INTEGER, ZNAME VARCHAR )",
            "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOPIES INTEGER, ZINPRINT INTEGER, ZPAGES INTEGER, ZAUTHOR INTEGER, ZWEIGHT FLOAT, ZWIDTH FLOAT, ZPUBLISHED TIMESTAMP, ZPRICE DECIMAL, ZLINK VARCHAR, ZTITLE VARCHAR, ZISBNUUID BLOB, ZCOVER BLOB )",
            "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        ])
        XCTAssertEqual(sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"), [["1", "Author", "0", "0"], ["2", "Book", "0", "0"]])
        XCTAssertEqual(sqliteRows(path, "PRAGMA journal_mode"), [["wal"]])
    }

    func testMetadataIsABinaryPlistWithTheModelsHashes() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        let model = try makeLibraryModel()
        let stack = try Stack(model: model, path: path)
        let hex = sqliteRows(path, "SELECT hex(Z_PLIST), Z_UUID FROM Z_METADATA")
        XCTAssertEqual(hex.count, 1)
        XCTAssertEqual(hex[0][1], stack.store.identifier)
        let bytes = stride(from: 0, to: hex[0][0].count, by: 2).map { i -> UInt8 in
            let start = hex[0][0].index(hex[0][0].startIndex, offsetBy: i)
            return UInt8(hex[0][0][start...hex[0][0].index(after: start)], radix: 16)!
        }
        let plist = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as! [String: Any]
        XCTAssertEqual(plist["NSStoreType"] as? String, "SQLite")
        XCTAssertEqual(plist["NSStoreUUID"] as? String, stack.store.identifier)
        XCTAssertEqual(plist["NSStoreModelVersionIdentifiers"] as? [String], ["1"])
        let hashes = plist["NSStoreModelVersionHashes"] as! [String: Data]
        XCTAssertEqual(hashes.mapValues { Array($0) }, model.entityVersionHashesByName)
    }

    func testOpeningWithAnIncompatibleModelFailsNamingTheEntity() throws {
        let path = try temporaryDirectory() + "/books.sqlite"
        _ = try Stack(model: try makeLibraryModel(), path: path)
        let changed = try makeLibraryModel()
        try changed.entity(named: "Author")!.addAttribute(named: "born", type: .date)
        let e = expectError { _ = try Stack(model: changed, path: path) }
        XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash)
        XCTAssertEqual(e?.domain, ObjectGraphError.cocoaDomain)
        XCTAssertTrue(e?.message.contains("'Author'") ?? false, e?.message ?? "")
        // The store is untouched and still opens with its own model.
        XCTAssertNoThrow(try Stack(model: try makeLibraryModel(), path: path))
    }

    func testAFileThatIsNotAStoreIsRefused() throws {
        let dir = try temporaryDirectory()
        let garbage = dir + "/garbage.sqlite"
        try Data("this is not a database at all, just some text".utf8).write(to: URL(fileURLWithPath: garbage))
        let e = expectError { _ = try Stack(model: try makeLibraryModel(), path: garbage) }
        XCTAssertEqual(e?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(e?.message.contains("not an SQLite database") ?? false)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: garbage)), Data("this is not a database at all, just some text".utf8))

        let other = dir + "/other.sqlite"
        var db: OpaquePointer?
        _ = other.withCString { sqlite3_open($0, &db) }
        sqlite3_exec(db, "CREATE TABLE t(x)", nil, nil, nil)
        sqlite3_close(db)
        let e2 = expectError { _ = try Stack(model: try makeLibraryModel(), path: other) }
        XCTAssertEqual(e2?.code, ErrorCode.storeInvalidType)
        XCTAssertTrue(e2?.message.contains("not a Core Data store") ?? false)
    }

    func testAPathThatCannotBeOpenedIsAnOpenError() throws {
        let e = expectError { _ = try Stack(model: try makeLibraryModel(), path: "/nonexistent-dir-og/sub/x.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.storeOpen)
        XCTAssertEqual(e?.details.first?.domain, ObjectGraphError.sqliteDomain)
    }

    func testUnknownStoreTypeIsRefused() throws {
        let coordinator = try PersistentStoreCoordinator(model: try makeLibraryModel())
        XCTAssertEqual(expectError { try coordinator.addPersistentStore(type: "Paper", path: "/tmp/x") }?.code, ErrorCode.storeInvalidType)
    }

    func testInheritanceSharesTheRootTableWithEntityNumbers() throws {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.setSuperentity(item)
        try book.addAttribute(named: "pages", type: .integer32)
        let disc = try model.addEntity(named: "Disc")
        try disc.setSuperentity(item)
        try disc.addAttribute(named: "pages", type: .integer16)
        let path = try temporaryDirectory() + "/items.sqlite"
        let stack = try Stack(model: model, path: path)
        XCTAssertEqual(sqliteRows(path, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [["1", "Item", "0"], ["2", "Book", "1"], ["3", "Disc", "1"]])
        XCTAssertEqual(sqliteRows(path, "SELECT sql FROM sqlite_master WHERE name = 'ZITEM'")[0][0],
                       "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGES INTEGER, ZPAGES1 INTEGER, ZNAME VARCHAR )")
        let b = try stack.context.insertObject(entityName: "Book")
        try b.setValue(300, forKey: "pages")
        let d = try stack.context.insertObject(entityName: "Disc")
        try d.setValue(2, forKey: "pages")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT Z_PK, Z_ENT, ZPAGES, ZPAGES1 FROM ZITEM ORDER BY Z_PK"),
                       [["1", "2", "300", "NULL"], ["2", "3", "NULL", "2"]])
        XCTAssertEqual(sqliteRows(path, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1"), [["2"]])
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Item")), 2)
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Disc")), 1)
    }
}

/// The whole-model layout: inheritance, many-to-many join tables, ordered to-many,
/// destination-entity columns, indexes (docs/store-format.md).
final class SQLiteSchemaTests: XCTestCase {
    /// Item(1) > Book(2); Shelf(3) holds an ordered to-many of items; Tag(4) ↔ Item.tags
    /// many-to-many; Tag.related is an ordered inverse-less to-many of tags.
    func makeModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        try item.addAttribute(named: "name", type: .string)
        let code = try item.addAttribute(named: "code", type: .string)
        try item.setUniquenessConstraints([["code"]])
        try item.setFetchIndexes([FetchIndexDescription(name: "byName", elements: [.init(property: "name", ascending: false)])])
        try code.setIndexed(true)  // an index named after it, as Core Data makes it
        let book = try model.addEntity(named: "Book")
        try book.setSuperentity(item)
        try book.addAttribute(named: "pages", type: .integer32)
        let shelf = try model.addEntity(named: "Shelf")
        try shelf.addAttribute(named: "label", type: .string)
        let items = try shelf.addRelationship(named: "items", destination: item, toMany: true)
        try items.setOrdered(true)
        let onShelf = try item.addRelationship(named: "shelf", destination: shelf)
        try items.setInverse(onShelf)
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "word", type: .string)
        let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
        let tagged = try tag.addRelationship(named: "items", destination: item, toMany: true)
        try tags.setInverse(tagged)
        let related = try tag.addRelationship(named: "related", destination: tag, toMany: true)
        try related.setOrdered(true)
        let favourite = try shelf.addRelationship(named: "favourite", destination: item)
        _ = favourite
        return model
    }

    /// Every attribute type, on a subentity sharing its root's table, next to a many-to-many
    /// and an ordered to-many: each column has the declared type docs/store-format.md gives,
    /// indexed attributes get their index, and Z_PRIMARYKEY and Z_METADATA describe the model.
    func testEveryAttributeTypeIsLaidOutAsTheStoreFormatSays() throws {
        let model = try makeModel()
        let book = model.entitiesByName["Book"]!
        let types: [(String, AttributeType, String)] = [
            ("i16", .integer16, "INTEGER"), ("i32", .integer32, "INTEGER"), ("i64", .integer64, "INTEGER"),
            ("flag", .boolean, "INTEGER"), ("dbl", .double, "FLOAT"), ("flt", .float, "FLOAT"),
            ("when", .date, "TIMESTAMP"), ("amount", .decimal, "DECIMAL"), ("text", .string, "VARCHAR"),
            ("link", .uri, "VARCHAR"), ("bytes", .binaryData, "BLOB"), ("code2", .uuid, "BLOB"), ("shape", .transformable, "BLOB"),
        ]
        for (name, type, _) in types {
            let a = try book.addAttribute(named: name, type: type)
            if type == .transformable { try a.setValueTransformerName("NSSecureUnarchiveFromDataTransformer") }
        }
        try book.attributesByName["i64"]!.setIndexed(true)
        try book.addAttribute(named: "scratch", type: .string).setTransient(true)
        let path = try temporaryDirectory() + "/types.sqlite"
        let stack = try Stack(model: model, path: path)
        let declared = Dictionary(uniqueKeysWithValues: sqliteRows(path, "SELECT name, type FROM pragma_table_info('ZITEM')").map { ($0[0], $0[1]) })
        for (name, _, column) in types {
            XCTAssertEqual(declared["Z" + name.uppercased()], column, name)
        }
        XCTAssertNil(declared["ZSCRATCH"], "transient attributes have no column")
        XCTAssertEqual(declared["Z_PK"], "INTEGER")
        XCTAssertEqual(declared["Z_FOK_SHELF"], "INTEGER", "the order of the ordered to-many Shelf.items")
        XCTAssertEqual(sqliteRows(path, "SELECT sql FROM sqlite_master WHERE name = 'Z_Book_i64'"), [["CREATE INDEX Z_Book_i64 ON ZITEM (ZI64 COLLATE BINARY ASC)"]])
        XCTAssertEqual(sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name").map { $0[0] },
                       ["Z_1TAGS", "Z_4RELATED", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"])
        XCTAssertEqual(sqliteRows(path, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [["1", "Item", "0"], ["2", "Book", "1"], ["3", "Shelf", "0"], ["4", "Tag", "0"]])
        // Z_METADATA: one row whose plist names the type, the UUID and each entity's hash.
        let metadata = stack.store.metadata
        XCTAssertEqual(metadata[StoreMetadataKey.storeType]?.stringValue, StoreType.sqlite)
        XCTAssertEqual(sqliteRows(path, "SELECT Z_VERSION, Z_UUID FROM Z_METADATA"), [["1", stack.store.identifier]])
        let hashes = try XCTUnwrap(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue)
        XCTAssertEqual(Set(hashes.keys), ["Item", "Book", "Shelf", "Tag"])
        XCTAssertEqual(hashes["Book"]?.dataValue, model.entityVersionHashesByName["Book"])
        // Values go in and come back with their types.
        let b = try stack.context.insertObject(entityName: "Book")
        try b.setValue(.integer(-7), forKey: "i16")
        try b.setValue(.boolean(true), forKey: "flag")
        try b.setValue(.double(2.5), forKey: "dbl")
        try b.setValue(.date(Date(timeIntervalSinceReferenceDate: 86400.5)), forKey: "when")
        try b.setValue(.string("é"), forKey: "text")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZI16, ZFLAG, ZDBL, ZWHEN, typeof(ZWHEN), ZTEXT, Z_OPT FROM ZITEM"), [["-7", "1", "2.5", "86400.5", "real", "é", "1"]])
        try b.setValue(.integer(8), forKey: "i16")
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT ZI16, Z_OPT FROM ZITEM"), [["8", "2"]], "Z_OPT counts the updates")
    }

    /// A first row whose Z_ENT is -1 (or any number of no entity) is a damaged store: the
    /// fetch fails with 134020, with or without values, and the process goes on.
    func testAFirstRowOfAnUnknownEntityNumberFailsTheFetch() throws {
        let path = try temporaryDirectory() + "/entity.sqlite"
        let stack = try Stack(model: try makeLibraryModel(), path: path)
        for title in ["A", "B"] { try stack.context.insertObject(entityName: "Book").setValue(.string(title), forKey: "title") }
        try stack.context.save()
        for number in [-1, 0, Int64.min, 99] {
            var db: OpaquePointer?
            XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
            XCTAssertEqual(sqlite3_exec(db, "UPDATE ZBOOK SET Z_ENT = \(number) WHERE Z_PK = 1", nil, nil, nil), SQLITE_OK)
            sqlite3_close(db)
            let context = ManagedObjectContext(coordinator: stack.coordinator)
            let request = FetchRequest(entityName: "Book")
            for values in [true, false] {
                request.includesPropertyValues = values
                XCTAssertEqual(expectError { _ = try context.fetch(request) }?.code, ErrorCode.storeIncompatibleSchema, "Z_ENT \(number), values \(values)")
            }
        }
    }

    /// An unsorted fetch with no limit or offset has no ORDER BY: its rows are put in key
    /// order after reading, also when an index hands them over in another order. A window
    /// keeps the ORDER BY, which must decide the rows before the window is taken.
    func testUnsortedFetchesComeInKeyOrderWithoutOrderByInSQL() throws {
        let model = try makeLibraryModel()
        try model.entitiesByName["Book"]!.attributesByName["pages"]!.setIndexed(true)
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/order.sqlite")
        for n in 0..<30 {
            let book = try stack.context.insertObject(entityName: "Book")
            try book.setValue(.integer(Int64(100 - n)), forKey: "pages")  // later books, fewer pages
        }
        try stack.context.save()
        let fresh = ManagedObjectContext(coordinator: stack.coordinator)
        let request = FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "pages > 80"))
        let explanation = try XCTUnwrap(fresh.explain(request).first)
        XCTAssertFalse(explanation.store.sql?.contains("ORDER BY") ?? true, explanation.description)
        XCTAssertTrue(explanation.store.queryPlan.contains { $0.contains("INDEX") }, explanation.description)
        XCTAssertFalse(explanation.store.queryPlan.contains { $0.contains("TEMP B-TREE") }, explanation.description)
        for values in [true, false] {
            request.includesPropertyValues = values
            let keys = try fresh.fetch(request).map(\.objectID.primaryKey)
            XCTAssertEqual(keys, Array(1...20), "includesPropertyValues \(values)")
        }
        request.includesPropertyValues = true
        request.fetchLimit = 5
        XCTAssertTrue(try XCTUnwrap(fresh.explain(request).first?.store.sql).hasSuffix("ORDER BY t0.Z_PK ASC LIMIT 5 OFFSET 0"))
        XCTAssertEqual(try fresh.fetch(request).map(\.objectID.primaryKey), Array(1...5))
    }

    func testWholeModelLayoutStatementByStatement() throws {
        let path = try temporaryDirectory() + "/whole.sqlite"
        _ = try Stack(model: try makeModel(), path: path)
        let schema = sqliteRows(path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0[0] }
        XCTAssertEqual(schema, [
            "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSHELF INTEGER, Z_FOK_SHELF INTEGER, ZPAGES INTEGER, ZCODE VARCHAR, ZNAME VARCHAR )",
            "CREATE INDEX ZITEM_ZSHELF_INDEX ON ZITEM (ZSHELF)",
            "CREATE INDEX ZITEM_Z_ENT_INDEX ON ZITEM (Z_ENT)",
            "CREATE TABLE ZSHELF ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFAVOURITE INTEGER, Z1_FAVOURITE INTEGER, ZLABEL VARCHAR )",
            "CREATE INDEX ZSHELF_ZFAVOURITE_INDEX ON ZSHELF (ZFAVOURITE)",
            "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZWORD VARCHAR )",
            "CREATE TABLE Z_1TAGS ( Z_1ITEMS INTEGER, Z_4TAGS INTEGER, PRIMARY KEY (Z_1ITEMS, Z_4TAGS) )",
            "CREATE INDEX Z_1TAGS_Z_4TAGS_INDEX ON Z_1TAGS (Z_4TAGS, Z_1ITEMS)",
            "CREATE TABLE Z_4RELATED ( Z_4TAG INTEGER, Z_4RELATED INTEGER, Z_FOK_4RELATED INTEGER, PRIMARY KEY (Z_4TAG, Z_4RELATED) )",
            "CREATE INDEX Z_4RELATED_Z_4RELATED_INDEX ON Z_4RELATED (Z_4RELATED, Z_4TAG)",
            "CREATE UNIQUE INDEX Z_Item_UNIQUE_code ON ZITEM (ZCODE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Item_byName ON ZITEM (ZNAME COLLATE BINARY DESC)",
            "CREATE INDEX Z_Item_code ON ZITEM (ZCODE COLLATE BINARY ASC)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        ])
        XCTAssertEqual(sqliteRows(path, "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                       [["1", "Item", "0", "0"], ["2", "Book", "1", "0"], ["3", "Shelf", "0", "0"], ["4", "Tag", "0", "0"]])
    }

    func testOrderedToManyAndDestinationEntityColumnsAreWrittenAndReadInOrder() throws {
        let path = try temporaryDirectory() + "/ordered.sqlite"
        let stack = try Stack(model: try makeModel(), path: path)
        let shelf = try stack.context.insertObject(entityName: "Shelf")
        var items: [ManagedObject] = []
        for (i, entity) in ["Item", "Book", "Item"].enumerated() {
            let o = try stack.context.insertObject(entityName: entity)
            try o.setValue(.string("n\(i)"), forKey: "name")
            try o.setValue(.string("c\(i)"), forKey: "code")
            try o.setObject(shelf, forKey: "shelf")
            items.append(o)
        }
        try shelf.setObject(items[1], forKey: "favourite")
        try stack.context.save()
        // Each new member goes last; the favourite's entity number is Book's (2).
        XCTAssertEqual(sqliteRows(path, "SELECT ZNAME, Z_FOK_SHELF FROM ZITEM ORDER BY Z_FOK_SHELF").map { $0[1] }, ["1", "2", "3"])
        XCTAssertEqual(sqliteRows(path, "SELECT Z1_FAVOURITE FROM ZSHELF"), [["2"]])
        // The store reads an ordered to-many in its order, and writes an explicit order.
        let store = stack.store
        let shelfEntity = try XCTUnwrap(stack.model.entity(named: "Shelf"))
        let itemsRelationship = try XCTUnwrap(shelfEntity.relationshipsByName["items"])
        let pks = items.map(\.objectID.primaryKey)
        try store.save { (tx: StoreSaveTransaction) throws(ObjectGraphError) in try tx.setMembers(of: shelf.objectID.primaryKey, through: itemsRelationship, to: [pks[2], pks[0], pks[1]]) }
        XCTAssertEqual(try store.fetchMembers(of: shelf.objectID.primaryKey, through: itemsRelationship).map(\.primaryKey), [pks[2], pks[0], pks[1]])
    }

    func testManyToManyPairsLiveInTheJoinTable() throws {
        let path = try temporaryDirectory() + "/m2m.sqlite"
        let stack = try Stack(model: try makeModel(), path: path)
        var tags: [ManagedObject] = []
        for w in ["red", "green", "blue"] {
            let t = try stack.context.insertObject(entityName: "Tag")
            try t.setValue(.string(w), forKey: "word")
            tags.append(t)
        }
        let item = try stack.context.insertObject(entityName: "Book")
        try item.setValue(.string("x"), forKey: "code")
        try stack.context.save()
        let model = stack.model
        let tagsRelationship = try XCTUnwrap(model.entity(named: "Item")?.relationshipsByName["tags"])
        let itemsRelationship = try XCTUnwrap(model.entity(named: "Tag")?.relationshipsByName["items"])
        let related = try XCTUnwrap(model.entity(named: "Tag")?.relationshipsByName["related"])
        let t = tags.map(\.objectID.primaryKey)
        try stack.store.save { (tx: StoreSaveTransaction) throws(ObjectGraphError) in
            try tx.setMembers(of: item.objectID.primaryKey, through: tagsRelationship, to: [t[0], t[2]])
            try tx.setMembers(of: t[0], through: related, to: [t[2], t[1]])
        }
        XCTAssertEqual(sqliteRows(path, "SELECT Z_1ITEMS, Z_4TAGS FROM Z_1TAGS ORDER BY Z_4TAGS"),
                       [["\(item.objectID.primaryKey)", "\(t[0])"], ["\(item.objectID.primaryKey)", "\(t[2])"]])
        XCTAssertEqual(try stack.store.fetchMembers(of: item.objectID.primaryKey, through: tagsRelationship).map(\.primaryKey), [t[0], t[2]])
        XCTAssertEqual(try stack.store.fetchMembers(of: t[2], through: itemsRelationship).map(\.primaryKey), [item.objectID.primaryKey])
        XCTAssertEqual(try stack.store.fetchMembers(of: t[0], through: related).map(\.primaryKey), [t[2], t[1]])
        // SQL reaches the members through the join table.
        let request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "ANY tags.word == 'blue'"))
        XCTAssertEqual(try stack.store.fetchRows(request, entity: try XCTUnwrap(model.entity(named: "Item"))).rows.map(\.primaryKey), [item.objectID.primaryKey])
        let none = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "tags.@count == 0"))
        XCTAssertEqual(try stack.store.fetchRows(none, entity: try XCTUnwrap(model.entity(named: "Item"))).rows.count, 0)
        // Deleting a tag removes its pairs.
        try stack.context.delete(tags[2])
        try stack.context.save()
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_1TAGS"), [["1"]])
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_4RELATED"), [["1"]])
    }
}

/// Transient relationships have no column: reading one of a fetched object asks the store
/// nothing (this was an index trap in `fetchRows(pointingAt:through:)`).
final class SQLiteStoreTransientRelationshipTests: XCTestCase {
    func testTransientToManyOfAFetchedObjectStartsEmptyAndHoldsWhatIsSet() throws {
        let model = try makeLibraryModel()
        let author = model.entity(named: "Author")!, book = model.entity(named: "Book")!
        let fans = try author.addRelationship(named: "fans", destination: book, toMany: true)
        let idol = try book.addRelationship(named: "idol", destination: author)
        try fans.setInverse(idol)
        try fans.setTransient(true)
        try idol.setTransient(true)
        let readers = try author.addRelationship(named: "readers", destination: book, toMany: true)
        try readers.setTransient(true)  // transient and without an inverse
        for type in [StoreType.sqlite, StoreType.binary, StoreType.inMemory] {
            let path = try temporaryDirectory() + "/books.\(type)"
            let stack = try Stack(model: model, path: path, type: type)
            let a = try stack.context.insertObject(entityName: "Author")
            try a.setValue("Ann", forKey: "name")
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue("T", forKey: "title")
            try b.setObject(a, forKey: "author")
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let fetched = try fresh.fetch(FetchRequest(entityName: "Author"))[0]
            XCTAssertEqual(try fetched.objects(forKey: "fans").count, 0, type)
            XCTAssertEqual(try fetched.objects(forKey: "readers").count, 0, type)
            XCTAssertEqual(try fetched.objects(forKey: "books").count, 1, type)
            let fetchedBook = try fresh.fetch(FetchRequest(entityName: "Book"))[0]
            XCTAssertNil(try fetchedBook.object(forKey: "idol"), type)
            try fetchedBook.setObject(fetched, forKey: "idol")
            XCTAssertEqual(try fetched.objects(forKey: "fans").count, 1, type)
            let other = ManagedObjectContext(coordinator: stack.coordinator)
            let otherAuthor = try other.fetch(FetchRequest(entityName: "Author"))[0]
            XCTAssertEqual(try otherAuthor.objects(forKey: "fans").count, 0, type)
        }
    }
}
