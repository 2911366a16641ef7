import Foundation
import ObjectGraph
import XCTest

/// The XML store: Apple's XML store format read and written, parsed safely, saved whole.
final class XMLStoreTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Stores/XML").path
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Authors, books with every attribute type, tags (many-to-many) and chapters (ordered).
    func makeModel() throws -> ManagedObjectModel {
        let model = try makeLibraryModel()
        let book = model.entity(named: "Book")!
        try book.addAttribute(named: "blurb", type: .transformable)
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "label", type: .string)
        let tags = try book.addRelationship(named: "tags", destination: tag, toMany: true)
        let tagged = try tag.addRelationship(named: "books", destination: book, toMany: true)
        try tags.setInverse(tagged)
        let chapter = try model.addEntity(named: "Chapter")
        try chapter.addAttribute(named: "heading", type: .string)
        let chapters = try book.addRelationship(named: "chapters", destination: chapter, toMany: true, deleteRule: .cascade)
        try chapters.setOrdered(true)
        let owner = try chapter.addRelationship(named: "book", destination: book)
        try chapters.setInverse(owner)
        let notes = try book.addRelationship(named: "notes", destination: tag, toMany: true)
        try notes.setOrdered(true)
        return model
    }

    /// Fills `context` with objects using every value kind and relationship kind.
    func fill(_ context: ManagedObjectContext) throws {
        let author = try context.insertObject(entityName: "Author")
        try author.setValue(.string("Terry <Pratchett> & \"co\"\r\n\ttabs"), forKey: "name")
        try author.setValue(.integer(-5), forKey: "rating")
        let tags = try (0..<3).map { n in
            let t = try context.insertObject(entityName: "Tag")
            try t.setValue(.string("tag \(n)"), forKey: "label")
            return t
        }
        for n in 0..<4 {
            let book = try context.insertObject(entityName: "Book")
            try book.setValue(.string("Book \(n) — ünïcødé 📚"), forKey: "title")
            try book.setValue(.integer(Int64(n) * 100), forKey: "pages")
            try book.setValue(.integer(Int64.max - Int64(n)), forKey: "copies")
            try book.setValue(.decimal(Decimal(string: "1234.25")!), forKey: "price")
            try book.setValue(.double(0.1 + Double(n)), forKey: "weight")
            try book.setValue(.double(Double(Float(2.5) + Float(n) / 3)), forKey: "width")
            try book.setValue(.boolean(n % 2 == 0), forKey: "inPrint")
            try book.setValue(.date(Date(timeIntervalSinceReferenceDate: 259495720.56406000256538391113 + Double(n))), forKey: "published")
            try book.setValue(.data(Data([0, 1, 2, 255, UInt8(n)])), forKey: "cover")
            try book.setValue(.uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(n)")!), forKey: "isbnUUID")
            try book.setValue(.uri("https://example.com/books/\(n)?q=a&b=c"), forKey: "link")
            try book.setValue(.transformable(.string("blurb \(n)")), forKey: "blurb")
            try book.setObject(author, forKey: "author")
            for t in tags.prefix(n) { try book.addObject(t, forKey: "tags") }
            try book.setObjects(tags.reversed(), forKey: "notes")
            for c in (0..<3).reversed() {
                let chapter = try context.insertObject(entityName: "Chapter")
                try chapter.setValue(.string("chapter \(c) of \(n)"), forKey: "heading")
                try book.insertObject(chapter, at: 0, forKey: "chapters")
            }
        }
        let empty = try context.insertObject(entityName: "Book")
        try empty.setValue(.string(""), forKey: "title")
        try context.save()
    }

    /// Every object of a store, by entity, as comparable text: attributes, to-ones by a
    /// describing attribute, to-manys in order (ordered ones) or sorted.
    func snapshot(_ context: ManagedObjectContext) throws -> [String] {
        func label(_ o: ManagedObject) throws -> String {
            for key in ["name", "title", "label", "heading"] where o.entity.property(named: key) != nil {
                if case .string(let s) = try o.value(forKey: key) { return s }
                return "nil"
            }
            return "?"
        }
        var out: [String] = []
        for entity in ["Author", "Book", "Tag", "Chapter"] {
            for o in try context.fetch(FetchRequest(entityName: entity)) {
                var parts: [String] = [entity]
                for p in o.entity.properties {
                    if let r = p as? RelationshipDescription {
                        if r.isToMany {
                            var names = try o.objects(forKey: r.name).map(label)
                            if !r.isOrdered { names.sort() }
                            parts.append("\(r.name)=\(names)")
                        } else {
                            parts.append("\(r.name)=\(try o.object(forKey: r.name).map(label) ?? "nil")")
                        }
                    } else {
                        parts.append("\(p.name)=\(try o.value(forKey: p.name))")
                    }
                }
                out.append(parts.joined(separator: " "))
            }
        }
        return out.sorted()
    }

    func testAnXMLStoreWrittenAndReadBackHoldsWhatAnSQLiteStoreHoldsForTheSameObjects() throws {
        let model = try makeModel()
        let sqlite = try Stack(model: model, path: dir + "/same.sqlite")
        try fill(sqlite.context)
        let xml = try Stack(model: model, path: dir + "/same.xml", type: "XML")
        try fill(xml.context)
        let fromSQLite = try snapshot(Stack(model: model, path: dir + "/same.sqlite").context)
        let fromXML = try snapshot(Stack(model: model, path: dir + "/same.xml", type: "XML").context)
        XCTAssertEqual(fromXML, fromSQLite)
        XCTAssertEqual(fromXML.count, 1 + 5 + 3 + 12)
        XCTAssertTrue(fromXML.contains { $0.contains("chapters=[\"chapter 0 of 2\", \"chapter 1 of 2\", \"chapter 2 of 2\"]") }, "ordered to-many keeps its order")
        XCTAssertTrue(fromXML.contains { $0.contains("notes=[\"tag 2\", \"tag 1\", \"tag 0\"]") }, "an inverse-less ordered to-many keeps its order")
    }

    func testTheFileUsesApplesElementsNamesIDsAndPrecision() throws {
        let model = try makeModel()
        let stack = try Stack(model: model, path: dir + "/apple.xml", type: "XML")
        try fill(stack.context)
        let text = try String(contentsOfFile: dir + "/apple.xml", encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("<?xml version=\"1.0\" standalone=\"yes\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n<database>\n    <databaseInfo>\n        <version>134481920</version>\n"))
        XCTAssertTrue(text.contains("<UUID>\(stack.store.identifier)</UUID>"))
        XCTAssertTrue(text.contains("<key>NSStoreModelVersionHashes</key>"))
        XCTAssertFalse(text.contains("<key>NSStoreUUID</key>"), "the UUID has its own element, as in Apple's files")
        XCTAssertTrue(text.contains(#"<object type="BOOK" id="z"#))
        XCTAssertTrue(text.contains(#"<attribute name="isbnuuid" type="uuid">E621E1F8-C36C-495A-93FC-0C247A3E6E50</attribute>"#))
        XCTAssertTrue(text.contains(#"<attribute name="published" type="date">259495720.56406000256538391113</attribute>"#))
        XCTAssertTrue(text.contains(#"<attribute name="inprint" type="bool">1</attribute>"#))
        XCTAssertTrue(text.contains(#"<attribute name="price" type="decimal">1234.25</attribute>"#))
        XCTAssertTrue(text.contains(#"<attribute name="cover" type="binary">AAEC/wA=</attribute>"#))
        XCTAssertTrue(text.contains(#"type="transformable">"#))
        XCTAssertTrue(text.contains(#"<attribute name="name" type="string">Terry &lt;Pratchett&gt; &amp; "co"&#13;"#))
        XCTAssertTrue(text.contains(#"<relationship name="author" type="0/1" destination="AUTHOR" idrefs="z"#))
        XCTAssertTrue(text.contains(#"<relationship name="tags" type="0/0" destination="TAG"></relationship>"#), "an empty to-many is written")
        // Every ID is unique in the file and nextObjectID is the largest.
        let ids = text.matches(of: /id="z(\d+)"/).map { Int($0.1)! }
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertTrue(text.contains("<nextObjectID>\(ids.max()!)</nextObjectID>"))
    }

    func testApplesThingsStoreLoadsWithItsFacts() throws {
        let model = try ManagedObjectModel(contentsOf: Self.fixtures + "/Things.json")
        let path = dir + "/Things.xml"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/Things-Database.xml", toPath: path)
        let meta = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
        XCTAssertEqual(meta[StoreMetadataKey.storeType], .string("XML"))
        XCTAssertEqual(meta[StoreMetadataKey.storeUUID], .string("B4FC79D0-E654-43EF-9020-A5273B3F104A"))
        XCTAssertEqual(meta[StoreMetadataKey.persistenceFrameworkVersion], .integer(186))
        XCTAssertEqual(meta["BuildNumber"], .integer(591))
        XCTAssertEqual(meta[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.count, 14)
        XCTAssertEqual(meta[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?["Tag"]?.dataValue.map { Data($0).base64EncodedString() },
                       "L9tlQ9OeHv0Nd5JzQ7T++N5lSPGZQs/yjZXVp2fatLI=")

        // Our reconstruction of Things' model has other version hashes than Apple computed.
        let coordinator = try PersistentStoreCoordinator(model: model)
        let refused = expectError { _ = try coordinator.addPersistentStore(type: "XML", path: path) }
        XCTAssertEqual(refused?.code, ErrorCode.storeIncompatibleVersionHash)
        let store = try coordinator.addPersistentStore(type: "XML", configuration: nil, path: path, options: [StoreOptionKey.ignoreVersioning: .boolean(true)])
        XCTAssertEqual(store.identifier, "B4FC79D0-E654-43EF-9020-A5273B3F104A")
        try checkThingsFacts(ManagedObjectContext(coordinator: coordinator))

        // Saved here and read again, it holds the same facts.
        let context = ManagedObjectContext(coordinator: coordinator)
        let todo = try context.insertObject(entityName: "ToDo")
        try todo.setValue(.string("written on Linux"), forKey: "title")
        try context.save()
        XCTAssertEqual(todo.objectID.uriRepresentation.hasSuffix("/ToDo/p190"), true, "new IDs continue after nextObjectID 189")
        let again = try PersistentStoreCoordinator(model: model)
        _ = try again.addPersistentStore(type: "XML", configuration: nil, path: path, options: [StoreOptionKey.ignoreVersioning: .boolean(true)])
        let reread = ManagedObjectContext(coordinator: again)
        try checkThingsFacts(reread, extraToDos: 1)
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: "XML", at: path)["BuildNumber"], .integer(591), "user metadata kept")
    }

    func checkThingsFacts(_ context: ManagedObjectContext, extraToDos: Int = 0) throws {
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "ToDo")), 40 + extraToDos)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Focus")), 18)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Tag")), 5)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "SyncedCalendar")), 11)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Globals")), 1)
        XCTAssertEqual(try context.count(for: FetchRequest(entityName: "Thing")), 63 + extraToDos)
        let heading = try context.fetch(FetchRequest(entityName: "Focus", predicate: ObjectPredicate(format: "identifier == 'FocusWorkflowHeading'"))).first
        XCTAssertEqual(try heading?.objects(forKey: "children").map { try $0.value(forKey: "identifier") }.count, 5)
        let globals = try XCTUnwrap(context.fetch(FetchRequest(entityName: "Globals")).first)
        XCTAssertEqual(try globals.value(forKey: "applicationQuitDate"), .date(Date(timeIntervalSinceReferenceDate: 259495720.56406000256538391113)))
        XCTAssertEqual(Set(try globals.objects(forKey: "scheduledTodos").map { try $0.value(forKey: "title") }), [.string("Make dinner"), .string("a scheduled item")])
        let dinner = try XCTUnwrap(context.fetch(FetchRequest(entityName: "ToDo", predicate: ObjectPredicate(format: "title == 'Make dinner'"))).first)
        XCTAssertEqual(try dinner.objects(forKey: "children").count, 9)
        XCTAssertEqual(try dinner.objects(forKey: "tags").map { try $0.value(forKey: "title") }, [.string("Home")])
        // Tag.notes and Note.tags, a many-to-many written on both sides: 18 links.
        let links = try context.fetch(FetchRequest(entityName: "Tag")).reduce(0) { $0 + (try $1.objects(forKey: "notes").count) }
        XCTAssertEqual(links, 18)
        XCTAssertEqual(try dinner.value(forKey: "dateCreated"), .date(Date(timeIntervalSinceReferenceDate: 259257733.72509700059890747070)))
        let scheduled = try XCTUnwrap(context.fetch(FetchRequest(entityName: "ToDo", predicate: ObjectPredicate(format: "title == 'a scheduled item'"))).first)
        XCTAssertEqual(try scheduled.object(forKey: "focus")?.value(forKey: "identifier"), .string("FocusTickler"))
        XCTAssertEqual(try scheduled.value(forKey: "todayOffset"), .double(0))
    }

    func testOnlyCoreDatasDoctypeIsAcceptedAndNoEntityIsExpanded() throws {
        let model = try makeModel()
        let body = "<database>\n<databaseInfo><version>134481920</version><UUID>U</UUID><nextObjectID>0</nextObjectID><metadata></metadata></databaseInfo>\n<object type=\"TAG\" id=\"z1\"><attribute name=\"label\" type=\"string\">&xxe;</attribute></object>\n</database>\n"
        let hostile = [
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n" + body,
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"http://example.com/evil.dtd\">\n" + body,
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\" [<!ENTITY a \"aaaa\">]>\n" + body,
            "<?xml version=\"1.0\"?>\n<!ENTITY lol \"lol\">\n" + body,
            "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"http://example.com/x.xsl\"?>\n" + body,
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + body,
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n" + body,
        ]
        for (n, text) in hostile.enumerated() {
            let path = dir + "/hostile\(n).xml"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let coordinator = try PersistentStoreCoordinator(model: model)
            let error = expectError { _ = try coordinator.addPersistentStore(type: "XML", configuration: nil, path: path, options: [StoreOptionKey.ignoreVersioning: .boolean(true)]) }
            XCTAssertEqual(error?.code, ErrorCode.storeInvalidType, "case \(n)")
            XCTAssertTrue(error?.message.contains("line ") == true, "case \(n): \(error?.message ?? "")")
        }
        // The last case has Core Data's DOCTYPE: it is the undeclared entity that is refused.
        let path = dir + "/hostile6.xml"
        XCTAssertTrue(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: "XML", at: path) }?.message.contains("'&xxe;'") == true)
    }

    func testMalformedFilesGiveAnErrorNamingTheLine() throws {
        let model = try makeModel()
        let good = "<?xml version=\"1.0\"?>\n<database>\n<databaseInfo><version>134481920</version><UUID>U</UUID><nextObjectID>2</nextObjectID><metadata></metadata></databaseInfo>\n"
        let cases: [(String, String)] = [
            (good + "<object type=\"TAG\" id=\"z1\">\n<attribute name=\"label\" type=\"string\">x</attribute>\n", "line 4"),
            (good + "<object type=\"TAG\" id=\"q1\"></object></database>", "line 4"),
            (good + "<object type=\"NOPE\" id=\"z1\"></object></database>", "line 4"),
            (good + "<object type=\"BOOK\" id=\"z1\">\n<attribute name=\"pages\" type=\"int32\">many</attribute></object></database>", "line 5"),
            (good + "<object type=\"BOOK\" id=\"z1\">\n\n<relationship name=\"author\" type=\"0/1\" destination=\"AUTHOR\" idrefs=\"z9\"></relationship></object></database>", "line 6"),
            (good + "<object type=\"TAG\" id=\"z1\"></object><object type=\"TAG\" id=\"z1\"></object></database>", "line 4"),
            ("<?xml version=\"1.0\"?>\n<plist></plist>", "line 2"),
        ]
        for (n, (text, line)) in cases.enumerated() {
            let path = dir + "/bad\(n).xml"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let coordinator = try PersistentStoreCoordinator(model: model)
            let error = expectError { _ = try coordinator.addPersistentStore(type: "XML", configuration: nil, path: path, options: [StoreOptionKey.ignoreVersioning: .boolean(true)]) }
            XCTAssertTrue(error?.message.contains(line) == true, "case \(n): \(error?.message ?? "no error")")
        }
        // A file without version hashes opens only when versioning is ignored.
        let path = dir + "/nohashes.xml"
        try (good + "</database>").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(expectError { _ = try Stack(model: model, path: path, type: "XML") }?.code, ErrorCode.storeIncompatibleVersionHash)
    }

    func testTwoWritersOfOneXMLStoreGetAConflictNeverALostWrite() throws {
        let model = try makeModel()
        let path = dir + "/shared.xml"
        let first = try Stack(model: model, path: path, type: "XML")
        let a = try first.context.insertObject(entityName: "Tag")
        try a.setValue(.string("first"), forKey: "label")
        try first.context.save()
        let second = try Stack(model: model, path: path, type: "XML")
        let b = try second.context.insertObject(entityName: "Tag")
        try b.setValue(.string("second"), forKey: "label")
        try second.context.save()
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        let c = try first.context.insertObject(entityName: "Tag")
        try c.setValue(.string("third"), forKey: "label")
        XCTAssertEqual(expectError { try first.context.save() }?.code, ErrorCode.storeSaveConflicts)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), written, "nothing was written")
        let reader = try Stack(model: model, path: path, type: "XML")
        let labels = try reader.context.fetch(FetchRequest(entityName: "Tag")).map { try $0.value(forKey: "label") }
        XCTAssertEqual(Set(labels), [.string("first"), .string("second")])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".tmp-\(getpid())"), "no temporary file is left")
    }

    func testAStringXMLCannotHoldFailsTheSaveAndWritesNothing() throws {
        let stack = try Stack(model: try makeModel(), path: dir + "/control.xml", type: "XML")
        let tag = try stack.context.insertObject(entityName: "Tag")
        try tag.setValue(.string("bell \u{07}"), forKey: "label")
        let error = expectError { try stack.context.save() }
        XCTAssertEqual(error?.code, ErrorCode.storeSave)
        XCTAssertTrue(error?.message.contains("Tag.label") == true, error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/control.xml"))
    }

    func testMigratingToXMLAndBackLosesNothing() throws {
        let model = try makeModel()
        let sqlite = try Stack(model: model, path: dir + "/from.sqlite")
        try fill(sqlite.context)
        let expected = try snapshot(Stack(model: model, path: dir + "/from.sqlite").context)
        let xml = try sqlite.coordinator.migratePersistentStore(sqlite.store, to: dir + "/to.xml", type: "XML")
        XCTAssertEqual(xml.type, "XML")
        XCTAssertEqual(try snapshot(Stack(model: model, path: dir + "/to.xml", type: "XML").context), expected)
        let back = try sqlite.coordinator.migratePersistentStore(xml, to: dir + "/back.sqlite", type: StoreType.sqlite)
        XCTAssertEqual(back.type, StoreType.sqlite)
        XCTAssertEqual(try snapshot(Stack(model: model, path: dir + "/back.sqlite").context), expected)
        let binary = try Stack(model: model, path: dir + "/b.binary", type: StoreType.binary)
        try fill(binary.context)
        _ = try binary.coordinator.migratePersistentStore(binary.store, to: dir + "/b.xml", type: "XML")
        XCTAssertEqual(try snapshot(Stack(model: model, path: dir + "/b.xml", type: "XML").context), expected)
    }

    func testSetMetadataKeepsTheObjectsAndTheTypeIsRegistered() throws {
        XCTAssertTrue(StoreTypes.names.contains("XML"))
        XCTAssertThrowsError(try StoreTypes.unregister("XML"))
        let model = try makeModel()
        let stack = try Stack(model: model, path: dir + "/meta.xml", type: "XML")
        try fill(stack.context)
        try stack.coordinator.removePersistentStore(stack.store)
        var meta = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: "XML", at: dir + "/meta.xml")
        meta["custom"] = .string("value")
        try PersistentStoreCoordinator.setMetadata(meta, forPersistentStoreOfType: "XML", at: dir + "/meta.xml")
        XCTAssertEqual(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: dir + "/meta.xml")["custom"], .string("value"))
        XCTAssertEqual(try Stack(model: model, path: dir + "/meta.xml", type: "XML").context.count(for: FetchRequest(entityName: "Chapter")), 12)
    }

    func testModelsWhoseNamesCollideWithoutCaseAreRefused() throws {
        let model = ManagedObjectModel()
        let e = try model.addEntity(named: "Item")
        try e.addAttribute(named: "name", type: .string)
        try e.addAttribute(named: "Name", type: .string)
        XCTAssertEqual(expectError { _ = try Stack(model: model, path: dir + "/c.xml", type: "XML") }?.code, ErrorCode.invalidArgument)
    }
}
