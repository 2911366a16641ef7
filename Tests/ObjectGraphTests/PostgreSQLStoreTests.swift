import Foundation
@testable import ObjectGraph
import XCTest

/// The PostgreSQL store (`Stores/PostgreSQL/`) against the test server: values and
/// relationships round-trip, fetches agree with in-memory evaluation, coordinators on one
/// database share one graph, and what goes wrong is reported without losing anything.
final class PostgreSQLStoreTests: XCTestCase {
    var url: String!

    override func setUpWithError() throws {
        url = try PostgreSQLTestServer.freshDatabase()
    }

    override func tearDown() {
        if let url { PostgreSQLTestServer.drop(url) }
    }

    func stack(_ model: ManagedObjectModel, options: [String: PropertyListValue] = [:]) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let c = try PersistentStoreCoordinator(model: model)
        _ = try c.addPersistentStore(type: PostgreSQLStore.typeName, configuration: nil, path: url, options: options)
        return (c, ManagedObjectContext(coordinator: c))
    }

    /// A save of many new rows sends them in COPY's text format
    /// (`PostgreSQLInsertBuffer.copyRows` or more): every type, nil, and text holding
    /// what that format escapes reads back as it was saved.
    func testManyNewRowsOfEveryTypeRoundTripThroughCopy() throws {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        let types: [(String, AttributeType)] = [
            ("n", .integer32), ("i64", .integer64), ("flag", .boolean), ("d", .double), ("s", .string), ("when", .date),
            ("dec", .decimal), ("blob", .binaryData), ("id", .uuid), ("link", .uri),
        ]
        for (name, type) in types { try item.addAttribute(named: name, type: type) }
        let texts = ["tab\there", "line\nbreak", "cr\rhere", "back\\slash", "\\N", "\\.", "", "naïve 🙂", "'quoted' \"text\""]
        let doubles = [0.1 + 0.2, -0.0, .infinity, -.infinity, 1e300, 5e-324, -1.5]
        let integers = [Int64.min, Int64.max, 0, -1, 42]
        func values(_ i: Int) -> [String: AttributeValue] {
            if i % 11 == 10 { return ["n": .integer(Int64(i))] }  // everything else nil
            return [
                "n": .integer(Int64(i)), "i64": .integer(integers[i % integers.count]), "flag": .boolean(i % 2 == 0),
                "d": .double(doubles[i % doubles.count]), "s": .string(texts[i % texts.count] + "\(i)"),
                "when": .date(Date(timeIntervalSinceReferenceDate: Double(i) * 1000.125)), "dec": .decimal(Decimal(string: "-\(i).0\(i)")!),
                "blob": .data(Data([0, 9, 10, 13, 92, UInt8(i % 256)])), "id": .uuid(UUID()), "link": .uri("https://example.com/\(i)?a=b"),
            ]
        }
        let count = PostgreSQLInsertBuffer.copyRows * 2 + 7
        var saved: [[String: AttributeValue]] = []
        do {
            let (_, context) = try stack(model)
            for i in 0..<count {
                let v = values(i)
                saved.append(v)
                let o = try context.insertObject(entityName: "Item")
                for (k, value) in v { try o.setValue(value, forKey: k) }
            }
            try context.save()
        }
        let (_, context) = try stack(model)
        let read = try context.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("n")]))
        XCTAssertEqual(read.count, count)
        for (o, v) in zip(read, saved) {
            for (name, _) in types { XCTAssertEqual(try o.value(forKey: name), v[name] ?? .null, "\(name) of row \(v["n"]!)") }
        }
    }

    func testEveryValueTypeAndRelationshipRoundTrips() throws {
        let model = ManagedObjectModel()
        let item = try model.addEntity(named: "Item")
        let types: [(String, AttributeType)] = [
            ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("flag", .boolean), ("d", .double), ("f", .float),
            ("s", .string), ("when", .date), ("dec", .decimal), ("blob", .binaryData), ("id", .uuid), ("link", .uri),
        ]
        for (name, type) in types { try item.addAttribute(named: name, type: type) }
        let tag = try model.addEntity(named: "Tag")
        try tag.addAttribute(named: "name", type: .string)
        let tags = try item.addRelationship(named: "tags", destination: tag, toMany: true)
        let items = try tag.addRelationship(named: "items", destination: item, toMany: true)
        try tags.setInverse(items)
        let parent = try item.addRelationship(named: "parent", destination: item)
        let children = try item.addRelationship(named: "children", destination: item, toMany: true)
        try children.setOrdered(true)
        try parent.setInverse(children)

        let uuid = UUID()
        let values: [String: AttributeValue] = [
            "i16": .integer(-32768), "i32": .integer(2_147_483_647), "i64": .integer(Int64.min), "flag": .boolean(true),
            "d": .double(0.1 + 0.2), "f": .double(-1.5), "s": .string("naïve 'quoted' \"text\" \\ 🙂"),
            "when": .date(Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)), "dec": .decimal(Decimal(string: "12345678901234567890.123456789")!),
            "blob": .data(Data([0, 1, 2, 255, 0])), "id": .uuid(uuid), "link": .uri("https://example.com/a?b=c"),
        ]
        do {
            let (_, context) = try stack(model)
            let root = try context.insertObject(entityName: "Item")
            for (k, v) in values { try root.setValue(v, forKey: k) }
            let kids = try (0..<3).map { _ in try context.insertObject(entityName: "Item") }
            for (n, kid) in kids.enumerated() {
                try kid.setValue(.integer(Int64(n)), forKey: "i32")
                try kid.setObject(root, forKey: "parent")
            }
            try root.setObjects([kids[2], kids[0], kids[1]], forKey: "children")
            for name in ["a", "b"] {
                let t = try context.insertObject(entityName: "Tag")
                try t.setValue(.string(name), forKey: "name")
                try root.addObject(t, forKey: "tags")
            }
            try context.save()
        }
        let (_, context) = try stack(model)
        let request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "parent == nil"))
        let root = try XCTUnwrap(context.fetch(request).first)
        for (k, v) in values { XCTAssertEqual(try root.value(forKey: k), v, k) }
        XCTAssertEqual(try root.objects(forKey: "children").map { try $0.value(forKey: "i32") }, [.integer(2), .integer(0), .integer(1)])
        XCTAssertEqual(Set(try root.objects(forKey: "tags").compactMap { $0.string("name") }), ["a", "b"])
        // Apple's names, quoted, in PostgreSQL's types.
        let columns = try PostgreSQLTestServer.rows(
            url, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'ZITEM' AND column_name IN ('ZS', 'ZWHEN', 'ZDEC', 'ZI16') ORDER BY 1")
        XCTAssertEqual(columns, [["ZDEC", "numeric"], ["ZI16", "bigint"], ["ZS", "text"], ["ZWHEN", "double precision"]])
    }

    func testFetchesAgreeWithInMemoryEvaluation() throws {
        let model = try makeDifferentialModel()
        var rng = SeededGenerator(seed: 20261128)
        do {
            let (_, context) = try stack(model)
            try fillDifferentialStore(context, &rng)
            try context.save()
        }
        let (c, context) = try stack(model)
        let store = try XCTUnwrap(c.persistentStores.first as? PostgreSQLStore)
        let everyone = try context.fetch(FetchRequest(entityName: "Person"))
        XCTAssertFalse(everyone.isEmpty)
        var generator = PredicateGenerator(rng: rng)
        var exact = 0
        let count = Int(ProcessInfo.processInfo.environment["OG_DIFFERENTIAL_COUNT"] ?? "") ?? 1500
        for i in 0..<count {
            let predicate = generator.predicate(depth: 0)
            let request = FetchRequest(entityName: "Person", predicate: predicate)
            guard let expected = try? Set(everyone.filter { try predicate.evaluate(with: .object($0)) }.map(\.objectID.primaryKey)) else {
                XCTAssertThrowsError(try context.fetch(request), "#\(i) \(predicate.predicateFormat): memory fails but the store answered")
                continue
            }
            if store.selectQuery(request, entity: model.entitiesByName["Person"]!).isExact { exact += 1 }
            let fetched: Set<Int64>
            do { fetched = Set(try context.fetch(request).map(\.objectID.primaryKey)) } catch {
                XCTFail("#\(i) \(predicate.predicateFormat): the store failed: \(error)")
                break
            }
            XCTAssertEqual(fetched, expected, "#\(i) \(predicate.predicateFormat)")
            if fetched != expected { break }
        }
        XCTAssertGreaterThan(exact, count / 3, "many generated predicates run on the server")
        // Sorting on the server agrees with sorting in memory, strings by code point.
        for keys in [["name"], ["age", "name"], ["score"], ["born", "nickname"], ["team.name", "name"]] {
            let sorts = keys.map { SortKey($0, ascending: $0 != "age") }
            let request = FetchRequest(entityName: "Person", sortKeys: sorts)
            let server = try context.fetch(request).map(\.objectID.primaryKey)
            request.predicate = try ObjectPredicate(format: "TRUEPREDICATE OR name ==[cd] 'x'")  // evaluated in memory, sorted there
            let memory = try context.fetch(request).map(\.objectID.primaryKey)
            XCTAssertEqual(server, memory, "\(keys)")
        }
    }

    func testDerivedAttributesAreComputedOnTheServer() throws {
        func model(_ derivations: [(String, String, AttributeType)]) throws -> ManagedObjectModel {
            let model = ManagedObjectModel()
            let author = try model.addEntity(named: "Author")
            try author.addAttribute(named: "name", type: .string)
            let book = try model.addEntity(named: "Book")
            try book.addAttribute(named: "pages", type: .integer64)
            let books = try author.addRelationship(named: "books", destination: book, toMany: true)
            try books.setInverse(try book.addRelationship(named: "author", destination: author))
            for (qualified, expression, type) in derivations {
                let parts = qualified.split(separator: ".").map(String.init)
                try XCTUnwrap(model.entity(named: parts[0])).addAttribute(named: parts[1], type: type).setDerivationExpression(expression)
            }
            return model
        }
        let derived = try model([
            ("Author.bookCount", "books.@count", .integer64), ("Author.totalPages", "books.pages.@sum", .integer64),
            ("Author.loudName", "uppercase:(name)", .string), ("Book.authorName", "author.name", .string), ("Book.touched", "now()", .date),
        ])
        let (_, context) = try stack(derived)
        let ann = try context.insertObject(entityName: "Author")
        try ann.setValue(.string("Ann Lee"), forKey: "name")
        for pages in [100, 250] {
            let b = try context.insertObject(entityName: "Book")
            try b.setValue(.integer(Int64(pages)), forKey: "pages")
            try b.setObject(ann, forKey: "author")
        }
        try context.save()
        try context.refresh(ann, mergeChanges: false)
        XCTAssertEqual(try ann.value(forKey: "bookCount"), .integer(2))
        XCTAssertEqual(try ann.value(forKey: "totalPages"), .integer(350))
        XCTAssertEqual(try ann.value(forKey: "loudName"), .string("ANN LEE"))
        let book = try XCTUnwrap(try context.fetch(FetchRequest(entityName: "Book")).first)
        try context.refresh(book, mergeChanges: false)
        XCTAssertEqual(try book.value(forKey: "authorName"), .string("Ann Lee"))
        guard case .date(let touched) = try book.value(forKey: "touched") else { return XCTFail("now() gives a date") }
        XCTAssertLessThan(abs(touched.timeIntervalSinceNow), 60)
        // Through a to-one, diacritics cannot be removed without an extension: refused, naming the attribute.
        let canonical = try model([("Book.authorKey", "canonical:(author.name)", .string)])
        let e = expectError { _ = try self.stack(canonical, options: [StoreOptionKey.postgreSQLSchema: .string("other")]) }
        XCTAssertTrue(e?.message.contains("Book.authorKey") ?? false, e?.message ?? "")
    }

    /// String derivations of an entity's own attribute are mapped by the engine as the row
    /// is written, so they hold what the SQLite store computes: "ß" upper-cases to "SS",
    /// `canonical:` drops diacritics, whatever the database's collation.
    func testStringDerivationsHoldWhatTheSQLiteStoreComputes() throws {
        let model = ManagedObjectModel()
        let person = try model.addEntity(named: "Person")
        try person.addAttribute(named: "n", type: .integer64)
        try person.addAttribute(named: "name", type: .string)
        try person.addAttribute(named: "loud", type: .string).setDerivationExpression("uppercase:(name)")
        try person.addAttribute(named: "quiet", type: .string).setDerivationExpression("lowercase:(name)")
        try person.addAttribute(named: "search", type: .string).setDerivationExpression("canonical:(name)")
        let names: [String?] = ["Straße", "\u{dc}n\u{ef}c\u{f6}d\u{e9} \u{c9}T\u{c9}", "\u{1c5}emal", "\u{39f}\u{394}\u{39f}\u{3a3}", "plain", nil, "\u{130}stanbul"]
        var stored: [[[AttributeValue]]] = []
        for type in [PostgreSQLStore.typeName, "SQLite"] {
            let c = try PersistentStoreCoordinator(model: model)
            let path = type == "SQLite" ? try temporaryDirectory() + "/same.sqlite" : url!
            _ = try c.addPersistentStore(type: type, configuration: nil, path: path, options: [:])
            let context = ManagedObjectContext(coordinator: c)
            var first: ManagedObject?
            for (i, name) in names.enumerated() {
                let p = try context.insertObject(entityName: "Person")
                try p.setValue(.integer(Int64(i)), forKey: "n")
                try p.setValue(name.map { .string($0) } ?? .null, forKey: "name")
                if i == 0 { first = p }
            }
            try context.save()
            // A change recomputes them.
            try first?.setValue(.string("Gr\u{f6}\u{df}e"), forKey: "name")
            try context.save()
            let reader = ManagedObjectContext(coordinator: c)
            stored.append(try reader.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("n")])).map { p in
                try ["loud", "quiet", "search"].map { try p.value(forKey: $0) }
            })
        }
        XCTAssertEqual(stored[0], stored[1])
        XCTAssertEqual(stored[0].first, [.string("GR\u{d6}SSE"), .string("gr\u{f6}\u{df}e"), .string("grosse")])
        XCTAssertEqual(stored[0][5], [.null, .null, .null])
    }

    /// Prefetching and batch faulting read many rows per statement (`PostgreSQLStore+BulkReads.swift`).
    func testPrefetchingAndBatchesReadWhatSingleReadsRead() throws {
        ManagedObjectClasses.register(BookObject.self)
        let model = try makeLendingModel()
        do {
            let (_, context) = try stack(model)
            try insertSampleAuthors(context)
            let tag = try context.insertObject(entityName: "Tag")
            try tag.setValue(.string("classic"), forKey: "name")
            for b in try context.fetch(FetchRequest(entityName: "Book")) { try b.addObject(tag, forKey: "tags") }
            try context.save()
        }
        let (_, context) = try stack(model)
        let request = FetchRequest(entityName: "Author", sortKeys: [SortKey("name")])
        request.relationshipKeyPathsForPrefetching = ["books", "books.tags"]
        request.fetchBatchSize = 2
        let authors = try context.fetch(request)
        XCTAssertEqual(authors.compactMap { $0.string("name") }, ["Banks", "Butler", "Le Guin"])
        XCTAssertEqual(try authors.map { try $0.objects(forKey: "books").count }, [0, 3, 2])
        XCTAssertEqual(try authors[1].objects(forKey: "books").flatMap { try $0.objects(forKey: "tags") }.compactMap { $0.string("name") },
                       ["classic", "classic", "classic"])
    }

    /// `OBJECTGRAPH_SQL_DEBUG` shows what the server runs: values in place from level 2,
    /// time and rows at 3, the password never.
    func testSQLDebugLogsTheStatementsTheServerRuns() throws {
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var lines: [String] = []
        }
        let log = Log()
        SQLDebug.setHandler { m in log.lock.lock(); log.lines.append(m.text); log.lock.unlock() }
        defer { SQLDebug.level = 0; SQLDebug.setHandler(nil) }
        let model = try makeDifferentialModel()
        let (_, context) = try stack(model)
        SQLDebug.level = 3
        let p = try context.insertObject(entityName: "Person")
        try p.setValue(.string("O'Brien"), forKey: "name")
        try context.save()
        _ = try context.fetch(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age > 30")))
        let text = log.lines.joined(separator: "\n")
        XCTAssertTrue(text.contains("'O''Brien'"), text)
        XCTAssertTrue(text.contains("\"ZAGE\" > 30"), text)
        XCTAssertTrue(text.contains("sql execution time"), text)
        XCTAssertTrue(text.contains("total save execution time"), text)
        XCTAssertFalse(text.contains(url.passwordPart), text)
    }

    /// Decimals read back exactly from PostgreSQL's binary `numeric` (base-10,000 groups).
    func testDecimalsRoundTripThroughTheBinaryNumericFormat() throws {
        let model = ManagedObjectModel()
        let price = try model.addEntity(named: "Price")
        try price.addAttribute(named: "amount", type: .decimal)
        try price.addAttribute(named: "n", type: .integer32)
        let texts = ["0", "-0.5", "0.0001234", "12345.6", "100000000", "0.00000000000000000001", "-98765432109876543210.0123456789", "10000.0001"]
        do {
            let (_, context) = try stack(model)
            for (i, text) in texts.enumerated() {
                let o = try context.insertObject(entityName: "Price")
                try o.setValue(.decimal(Decimal(string: text)!), forKey: "amount")
                try o.setValue(.integer(Int64(i)), forKey: "n")
            }
            try context.save()
        }
        let (_, context) = try stack(model)
        let read = try context.fetch(FetchRequest(entityName: "Price", sortKeys: [SortKey("n")])).map { try $0.value(forKey: "amount") }
        XCTAssertEqual(read, texts.map { .decimal(Decimal(string: $0)!) })
        XCTAssertEqual(PostgreSQLRows.numericText(binary: [0, 2, 0, 0, 0x40, 0, 0, 2, 0, 12, 0x08, 0xFC]), "-12.23")
    }

    /// String operators without options run on the server (they compare Unicode scalars,
    /// as the evaluator does). With `[c]` or `[d]` against a constant the server decides
    /// the rows whose text is ASCII and keeps the rest for memory; `MATCHES` is narrowed
    /// by its pattern's literal prefix and decided in memory. Either way the objects are
    /// the ones in-memory evaluation selects.
    func testStringOperatorsSelectWhatMemorySelects() throws {
        let model = try makeDifferentialModel()
        let names: [String?] = [
            "Ann", "anne", "An_n", "100%", "a*b", "a\\b", "Straße", "STRASSE", "e\u{301}te", "\u{e9}te", "", nil, "x?y",
            "\u{212A}elvin", "KELVIN", "kelvin", "b", "B", "ETE", "\u{c9}TE",
        ]
        do {
            let (_, context) = try stack(model)
            for name in names {
                let p = try context.insertObject(entityName: "Person")
                if let name { try p.setValue(.string(name), forKey: "name") }
            }
            try context.save()
        }
        let (c, context) = try stack(model)
        let store = try XCTUnwrap(c.persistentStores.first as? PostgreSQLStore)
        let person = try XCTUnwrap(model.entitiesByName["Person"])
        let everyone = try context.fetch(FetchRequest(entityName: "Person"))
        let exact = [
            "name BEGINSWITH 'An'", "name ENDSWITH 'te'", "name CONTAINS '%'", "name CONTAINS '_'", "name LIKE 'A*'", "name LIKE 'An_n'",
            "name LIKE '100%'", "name LIKE 'a\\\\*b'", "name LIKE 'a\\\\\\\\b'", "name LIKE '?nn'", "name LIKE '*'", "name LIKE ''", "name BEGINSWITH ''",
            "NOT name BEGINSWITH 'A'", "name ENDSWITH '\u{e9}te'", "'nn' IN name", "name ENDSWITH 'x'",
        ]
        // Narrowed on the server, decided in memory.
        let narrowed = [
            "name BEGINSWITH[c] 'str'", "name LIKE[cd] 'strasse'", "name ==[c] 'kelvin'", "name !=[c] 'ann'", "name <[c] 'b'", "name >=[c] 'B'",
            "name CONTAINS[d] 'e'", "name ENDSWITH[cd] 'ETE'", "name IN[c] {'ANN', 'x?y'}", "'NN' IN[c] name",
            "name BEGINSWITH[c] 'a' OR name == 'x?y'", "name ==[c] '\u{c9}te'", "name BEGINSWITH 'A' AND name ENDSWITH[c] 'N'",
            // MATCHES by the pattern's literal prefix.
            "name MATCHES 'A.*'", "name MATCHES 'Ann?e?'", "name MATCHES 'x\\\\?y'", "name MATCHES 'St.*e'",
        ]
        // Not narrowed: a wider condition under NOT or ALL would select fewer rows; a
        // pattern with no literal prefix (an alternation, a character canonically
        // equivalent to another, a class first) says nothing of the text's start.
        let inMemory = [
            "NOT name BEGINSWITH[c] 'a'", "name ==[c] name", "name MATCHES 'A.*|b'", "name MATCHES 'Kel.*'", "name MATCHES '[A-Z].*'",
            "name MATCHES[c] 'a.*'", "name MATCHES '\u{e9}te'",
        ]
        for format in exact + narrowed + inMemory {
            let predicate = try ObjectPredicate(format: format)
            let request = FetchRequest(entityName: "Person", predicate: predicate)
            let expected = Set(try everyone.filter { try predicate.evaluate(with: .object($0)) }.map(\.objectID.primaryKey))
            XCTAssertEqual(Set(try context.fetch(request).map(\.objectID.primaryKey)), expected, format)
            let query = store.selectQuery(request, entity: person)
            XCTAssertEqual(query.isExact, exact.contains(format), format)
            let fromServer = try store.fetchRows(request, entity: person).rows.count
            if narrowed.contains(format) {
                XCTAssertTrue(query.whereClause.contains(format.contains("MATCHES") ? "starts_with" : "octet_length"), format)
                XCTAssertLessThan(fromServer, names.count, format)
                XCTAssertGreaterThanOrEqual(fromServer, expected.count, format)
            } else if inMemory.contains(format) {
                XCTAssertEqual(fromServer, names.count, format)
            }
        }
    }

    /// Totals (count, integer sums, min and max), the same per group, and distinct rows run
    /// on the server, giving what the engine computes over the rows; anything else is
    /// computed by the engine.
    func testFoldedDictionariesRunOnTheServerAndAgreeWithTheEngine() throws {
        let model = try FetchResultTypeTests.makeModel()
        do {
            let (_, context) = try stack(model)
            for p in FetchResultTypeTests.people {
                let e = try context.insertObject(entityName: p.manager ? "Manager" : "Employee")
                try e.setValue(.string(p.name), forKey: "name")
                try e.setValue(p.team.map { .string($0) } ?? .null, forKey: "team")
                try e.setValue(p.salary.map { .integer($0) } ?? .null, forKey: "salary")
                try e.setValue(p.bonus.map { .double($0) } ?? .null, forKey: "bonus")
                try e.setValue(.date(Date(timeIntervalSinceReferenceDate: p.day * 86400)), forKey: "hired")
                try e.setValue(.boolean(p.active), forKey: "active")
            }
            // Names that differ only in case or form group apart, as bytes differ.
            for name in ["Ada", "ADA", "e\u{301}", "\u{e9}"] {
                let e = try context.insertObject(entityName: "Employee")
                try e.setValue(.string(name), forKey: "name")
                try e.setValue(.string(name), forKey: "team")
                try e.setValue(.integer(1), forKey: "salary")
            }
            try context.save()
        }
        let (c, context) = try stack(model)
        let store = try XCTUnwrap(c.persistentStores.first as? PostgreSQLStore)
        let entity = try XCTUnwrap(model.entitiesByName["Employee"])
        func grouped(_ properties: [String], by groups: [String], sort: [SortKey] = [], having: String? = nil, distinct: Bool = false,
                     limit: Int = 0, offset: Int = 0, _ predicate: String? = nil) throws -> FetchRequest {
            let r = FetchRequest(entityName: "Employee", predicate: try predicate.map { try ObjectPredicate(format: $0) }, sortKeys: sort)
            r.resultType = .dictionary
            r.propertiesToFetch = properties.map { p in
                guard let colon = p.firstIndex(of: "=") else { return .property(p) }
                return .expression(ExpressionDescription(name: String(p[..<colon]), expressionFormat: String(p[p.index(after: colon)...]), resultType: .undefined))
            }
            r.propertiesToGroupBy = groups.isEmpty ? nil : groups.map { .property($0) }
            r.havingPredicate = try having.map { try ObjectPredicate(format: $0) }
            r.returnsDistinctResults = distinct
            r.fetchLimit = limit
            r.fetchOffset = offset
            return r
        }
        func totals(_ predicate: String?, _ columns: [(String, String)]) throws -> FetchRequest {
            let r = FetchRequest(entityName: "Employee", predicate: try predicate.map { try ObjectPredicate(format: $0) })
            r.resultType = .dictionary
            r.propertiesToFetch = columns.map { .expression(ExpressionDescription(name: $0.0, expressionFormat: $0.1, resultType: .undefined)) }
            return r
        }
        let cases: [(FetchRequest, onServer: Bool)] = [
            (try totals(nil, [("n", "count:(name)"), ("all", "count:(SELF)"), ("payroll", "sum:(salary)"), ("low", "min:(salary)"), ("high", "max:(name)")]), true),
            (try totals("salary > 1000000", [("n", "count:(name)"), ("payroll", "sum:(salary)"), ("first", "min:(hired)")]), true),
            (try totals("team != nil", [("last", "max:(team)"), ("least", "min:(bonus)")]), true),
            (try totals(nil, [("mean", "average:(salary)")]), false),
            (try totals(nil, [("bonuses", "sum:(bonus)")]), false),
            (try totals("name BEGINSWITH[c] 'a'", [("n", "count:(name)")]), false),
            (try totals("salary < 0", [("n", "count:(name)"), ("payroll", "sum:(salary)"), ("high", "max:(name)")]), true),
            (try grouped(["team", "n=count:(SELF)", "payroll=sum:(salary)", "last=max:(name)", "first=min:(hired)"], by: ["team"], sort: [SortKey("team")]), true),
            (try grouped(["team", "payroll=sum:(salary)"], by: ["team"], sort: [SortKey("payroll", ascending: false)], having: "$payroll > 100", limit: 2), true),
            (try grouped(["active", "n=count:(name)"], by: ["active", "team"], sort: [SortKey("active", ascending: false)], offset: 1), true),
            (try grouped(["team", "n=count:(SELF)"], by: ["team"], "salary >= 65 AND team != 'ui'"), true),
            // Distinct groups with a hidden group-by item keep the first group's: the engine decides.
            (try grouped(["n=count:(SELF)"], by: ["active"], distinct: true), false),
            (try grouped(["active", "n=count:(SELF)"], by: ["active"], distinct: true), true),
            (try grouped(["team"], by: [], distinct: true), true),
            (try grouped(["team", "active"], by: [], sort: [SortKey("team", ascending: false)], distinct: true, limit: 3), true),
            (try grouped(["hired", "bonus"], by: [], distinct: true, "bonus != nil"), true),
            (try grouped(["team", "mean=average:(salary)"], by: ["team"]), false),
            (try grouped(["team", "n=count:(SELF)"], by: ["team"], "name BEGINSWITH[c] 'a'"), false),
            (try grouped(["team"], by: [], distinct: true, "name MATCHES 'A.*'"), false),
        ]
        for (request, onServer) in cases {
            let plan = try DictionaryPlan.make(request, entity)
            XCTAssertEqual(store.dictionaryQuery(plan, request, entity) != nil, onServer, "\(request.propertiesToFetch ?? [])")
            let server = try store.fetchDictionaries(request, entity: entity)
            let memory = try MemoryAggregation.fetch(request, entity: entity, store: store)
            XCTAssertEqual(server, memory, "\(request.propertiesToFetch ?? [])")
            if plan.groupColumns.isEmpty && !plan.isDistinct { XCTAssertEqual(server.count, 1) } else { XCTAssertGreaterThan(server.count, 0) }
        }
        XCTAssertFalse(try context.fetchDictionaries(cases[0].0).isEmpty)
    }
}
