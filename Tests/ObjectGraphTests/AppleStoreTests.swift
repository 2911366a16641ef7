import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Stores written by Apple's Core Data (../shared/fixtures/apple-stores, each folder's
/// MANIFEST.md lists the facts checked here). Every test works on a copy: opening a WAL
/// store read-write checkpoints it. Skipped when the fixtures are absent.
final class AppleStoreTests: XCTestCase {
    static let root = AppleModelTests.root

    struct Fixture {
        let store: String
        let model: String
        let version: String?
    }

    static let sampleV1 = Fixture(store: "coredataplus/SampleModel/SampleModel_V1.sqlite", model: "coredataplus/SampleModel/SampleModel.xcdatamodeld", version: "SampleModel")
    static let sampleV2 = Fixture(store: "coredataplus/SampleModel/SampleModel_V2.sqlite", model: "coredataplus/SampleModel/SampleModel.xcdatamodeld", version: "SampleModel2")
    static let sample2V1 = Fixture(
        store: "coredataplus/SampleModel2-programmatic/SampleModel2_V1.sqlite",
        model: "coredataplus/SampleModel2-programmatic/model-from-Z_MODELCACHE/SampleModel2_V1.mom", version: nil)
    static let sample2V2 = Fixture(
        store: "coredataplus/SampleModel2-programmatic/SampleModel2_V2.sqlite",
        model: "coredataplus/SampleModel2-programmatic/model-from-Z_MODELCACHE/SampleModel2_V2.mom", version: nil)
    static let sample3 = Fixture(store: "coredataplus/SampleModel3/SampleModel3_V1.sqlite", model: "coredataplus/SampleModel3/SampleModel3.xcdatamodeld", version: "SampleModel3")
    static let wibosco1 = Fixture(
        store: "wibosco-migration/CoreDataMigration_Example_1.sqlite", model: "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example")
    static let wibosco2 = Fixture(
        store: "wibosco-migration/CoreDataMigration_Example_2.sqlite", model: "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 2")
    static let wibosco3 = Fixture(
        store: "wibosco-migration/CoreDataMigration_Example_3.sqlite", model: "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 3")
    static let wiboscoWAL = Fixture(
        store: "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", model: "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 4")
    static let book = Fixture(store: "bookmigration/Model1.sqlite", model: "bookmigration/Model.xcdatamodeld", version: "Model1")
    static let mwk1 = Fixture(store: "mwkcoredata/MWKCoreDataTests.sqlite", model: "mwkcoredata/MWKCoreDataTests.xcdatamodeld", version: "MWKCoreDataTests")
    static let mwk2 = Fixture(store: "mwkcoredata/MWKCoreDataTests2.sqlite", model: "mwkcoredata/MWKCoreDataTests.xcdatamodeld", version: "MWKCoreDataTests2")
    static let all = [sampleV1, sampleV2, sample2V1, sample2V2, sample3, wibosco1, wibosco2, wibosco3, wiboscoWAL, book, mwk1, mwk2]

    /// Copies the store (and its -wal/-shm) into a fresh directory; returns the copy's path.
    func copy(_ fixture: Fixture) throws -> String { try Self.copy(fixture) }

    /// A copy of a fixture store and its side files (opening a WAL store changes it);
    /// skips the test when the fixtures are absent.
    static func copy(_ fixture: Fixture) throws -> String {
        guard FileManager.default.fileExists(atPath: root) else { throw XCTSkip("no Apple fixtures at \(root)") }
        let source = "\(root)/\(fixture.store)"
        let copy = try temporaryDirectory() + "/" + URL(fileURLWithPath: source).lastPathComponent
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: copy + suffix)
        }
        return copy
    }

    func model(_ fixture: Fixture, version: String? = nil) throws -> ManagedObjectModel {
        guard FileManager.default.fileExists(atPath: Self.root) else { throw XCTSkip("no Apple fixtures at \(Self.root)") }
        return try ManagedObjectModel(contentsOf: "\(Self.root)/\(fixture.model)", version: version ?? fixture.version)
    }

    func open(_ fixture: Fixture) throws -> Stack {
        try Stack(model: try model(fixture), path: try copy(fixture))
    }

    func fetch(_ stack: Stack, _ entity: String, _ format: String? = nil, sort: [SortKey] = [], subentities: Bool = true) throws -> [ManagedObject] {
        let request = FetchRequest(entityName: entity, predicate: try format.map { try ObjectPredicate(format: $0) }, sortKeys: sort)
        request.includesSubentities = subentities
        return try stack.context.fetch(request)
    }

    func string(_ o: ManagedObject?, _ key: String) throws -> String? {
        guard case .string(let s)? = try o?.value(forKey: key) else { return nil }
        return s
    }

    func seconds(_ o: ManagedObject?, _ key: String) throws -> Double? {
        guard case .date(let d)? = try o?.value(forKey: key) else { return nil }
        return d.timeIntervalSinceReferenceDate
    }

    // MARK: Reading every fixture

    func testSampleModelStoresReadBackWithInheritanceAndRenamedEntity() throws {
        for (fixture, leaf) in [(Self.sampleV1, "ExpensiveSportCar"), (Self.sampleV2, "LuxuryCar")] {
            let stack = try open(fixture)
            XCTAssertEqual(try fetch(stack, "Car").count, 125)
            XCTAssertEqual(try fetch(stack, "SportCar").count, 10)
            XCTAssertEqual(try fetch(stack, leaf).count, 5)
            XCTAssertEqual(try fetch(stack, "Car", subentities: false).count, 115)
            XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Car")), 125)
            let people = try fetch(stack, "Person", sort: [SortKey("lastName"), SortKey("firstName")])
            XCTAssertEqual(people.count, 20)
            XCTAssertEqual(try string(people.first, "firstName"), "Mark")
            XCTAssertEqual(try string(people.first, "lastName"), "Alves")
            XCTAssertEqual(try seconds(people.first, "updatedAt") ?? 0, 639503569.638781, accuracy: 1e-5)
            let owners = try people.map { ($0, try $0.objects(forKey: "cars").count) }.max { $0.1 < $1.1 }
            XCTAssertEqual(owners?.1, 100)
            XCTAssertEqual(try string(owners?.0, "firstName"), "Theodora")
            XCTAssertEqual(try string(owners?.0, "lastName"), "Stone")
            let cheapest = try fetch(stack, leaf, sort: [SortKey("numberPlate")]).first
            XCTAssertEqual(try string(cheapest, "maker"), "BMW")
            XCTAssertEqual(try string(cheapest, "model"), "M6 Coupe")
            XCTAssertEqual(try string(cheapest, "numberPlate"), "300")
            XCTAssertEqual(cheapest?.entity.name, leaf)
            if fixture.store == Self.sampleV1.store {
                XCTAssertEqual(try people.filter { if case .uuid = try $0.value(forKey: "id") { return true } else { return false } }.count, 20)
                XCTAssertEqual(try fetch(stack, "Car").filter { try $0.value(forKey: "color") != .null }.count, 0)
            }
        }
    }

    func testSampleModel2StoresReadBackDecimalsUUIDsAndPolymorphicToOnes() throws {
        for (fixture, books, pages, feedbacks, published, uuid, andrea) in [
            (Self.sample2V1, 51, 4951, 444, 737057646.835648, "7F95A578650D49D2BFCFEA4ED1D5984C", 49),
            (Self.sample2V2, 2, 100, 3, 0, "AE289A08EC9E49D5A96BCBDFD53D451F", -1),
        ] {
            let stack = try open(fixture)
            XCTAssertEqual(try fetch(stack, "Book", subentities: false).count, books)
            XCTAssertEqual(try fetch(stack, "GraphicNovel").count, 1)
            XCTAssertEqual(try fetch(stack, "Author").count, andrea < 0 ? 1 : 2)
            XCTAssertEqual(try fetch(stack, "Writer").count, andrea < 0 ? 1 : 2)
            XCTAssertEqual(try fetch(stack, "Feedback").count, feedbacks)
            XCTAssertEqual(try fetch(stack, "Page").count, pages + 19)
            let first = try fetch(stack, "Book", sort: [SortKey("title")]).first
            XCTAssertEqual(try string(first, "title"), "title 1 - author 1")
            XCTAssertEqual(try first?.value(forKey: "price"), .decimal(Decimal(string: "10.11")!))
            if published > 0 { XCTAssertEqual(try seconds(first, "publishedAt") ?? 0, published, accuracy: 1e-5) }
            XCTAssertEqual(try first?.value(forKey: "uniqueID"), .uuid(UUID(uuidString: uuid.replacingOccurrences(
                of: "(.{8})(.{4})(.{4})(.{4})(.{12})", with: "$1-$2-$3-$4-$5", options: .regularExpression))!))
            // Page.book points at Book or GraphicNovel (ZPAGE.Z1_BOOK says which).
            let novel = try fetch(stack, "GraphicNovel").first
            XCTAssertEqual(try novel?.objects(forKey: "pages").count, 19)
            let plainPages = try fetch(stack, "Book", subentities: false).reduce(0) { $0 + (try $1.objects(forKey: "pages").count) }
            XCTAssertEqual(plainPages, pages)
            let counts = try fetch(stack, "Author").map { (try string($0, "alias") ?? "", try $0.objects(forKey: "books").count) }
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: counts)["Alessandro"], 3)
            if andrea > 0 { XCTAssertEqual(Dictionary(uniqueKeysWithValues: counts)["Andrea"], andrea) }
        }
    }

    func testSampleModel3AndVersionMismatchIsRefused() throws {
        let stack = try open(Self.sample3)
        let users = try fetch(stack, "User")
        XCTAssertEqual(users.count, 12)
        XCTAssertEqual(try Dictionary(grouping: users) { try string($0, "name") ?? "" }.mapValues(\.count), ["User_0": 4, "User_1": 4, "User_2": 4])
        let pets = try fetch(stack, "User", "name == 'User_1'", sort: [SortKey("petName")]).map { try string($0, "petName") ?? "" }
        XCTAssertEqual(pets, ["Dog_1_0", "Dog_1_1", "Dog_1_2", "Dog_1_3"])
    }

    func testAStoreOpenedWithAnotherModelVersionIsRefusedAndLeftUntouched() throws {
        for (fixture, other) in [
            (Self.sample3, "SampleModel3_v3"), (Self.wibosco2, "CoreDataMigration_Example"), (Self.wibosco1, "CoreDataMigration_Example 4"),
            (Self.mwk1, "MWKCoreDataTests2"), (Self.book, "Model3"), (Self.sampleV1, "SampleModel2"),
        ] {
            let path = try copy(fixture)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let e = expectError { _ = try Stack(model: try self.model(fixture, version: other), path: path) }
            XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash, fixture.store)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, fixture.store)
            XCTAssertNoThrow(try Stack(model: try model(fixture), path: path), fixture.store)
        }
    }

    func testWiboscoStoresReadBackIncludingOneToOnesAndWALOnlyRows() throws {
        let v1 = try open(Self.wibosco1)
        let posts = try fetch(v1, "Post", sort: [SortKey("date")])
        XCTAssertEqual(posts.count, 1001)
        XCTAssertEqual(try string(posts.first, "postID"), "D77C3BF0-09D0-43FF-AE8E-4415E8E7D6AB")
        XCTAssertEqual(try seconds(posts.first, "date") ?? 0, 526914238.203173, accuracy: 1e-5)
        XCTAssertEqual(try string(posts.first, "color"), "28DF9C")
        XCTAssertEqual(posts.first?.objectID.primaryKey, 5)
        let last = try fetch(v1, "Post", sort: [SortKey("date", ascending: false)]).first
        XCTAssertEqual(try string(last, "postID"), "6818181F-879D-400D-9B5F-2B1914B527C8")
        XCTAssertEqual(try string(last, "color"), "728B8B")

        let v2 = try open(Self.wibosco2)
        let posts2 = try fetch(v2, "Post", sort: [SortKey("date")])
        XCTAssertEqual(posts2.count, 5979)
        XCTAssertEqual(try string(posts2.first, "postID"), "8483B28C-5514-41E7-A7A7-8813544A6AD6")
        XCTAssertEqual(try string(posts2.first, "hexColor"), "2E71B5")
        XCTAssertEqual(try string(try fetch(v2, "Post", sort: [SortKey("date", ascending: false)]).first, "hexColor"), "DC5541")

        for (fixture, count, postID, hex, colorID) in [
            (Self.wibosco3, 7995, "8483B28C-5514-41E7-A7A7-8813544A6AD6", "2E71B5", "DDAB78C2-86FA-412B-A4BA-D474EF6FB476"),
            (Self.wiboscoWAL, 84, "22F82B9B-304B-4A1E-B870-A86C1AA9BA7F", "BFEA01", "FB950DD4-0CA3-4B3A-8956-DEDC8D75EF02"),
        ] {
            let stack = try open(fixture)
            let posts = try fetch(stack, "Post", sort: [SortKey("date")])
            XCTAssertEqual(posts.count, count, fixture.store)
            XCTAssertEqual(try fetch(stack, "Color").count, count)
            XCTAssertEqual(try string(posts.first, "postID"), postID)
            let color = try posts.first?.object(forKey: "color")
            XCTAssertEqual(try string(color, "hex"), hex)
            XCTAssertEqual(try string(color, "colorID"), colorID)
            // One-to-one stored on both sides, consistent everywhere.
            for p in posts.prefix(200) { XCTAssertTrue(try p.object(forKey: "color")?.object(forKey: "post") === p) }
            if fixture.store == Self.wiboscoWAL.store {
                XCTAssertEqual(try posts.filter { try $0.value(forKey: "hide") == .boolean(false) }.count, 84)
            }
        }
    }

    func testMWKAndBookMigrationStoresReadBack() throws {
        let m1 = try open(Self.mwk1)
        XCTAssertEqual(try fetch(m1, "Employee", sort: [SortKey("name")]).map { try string($0, "name") ?? "" }, ["Adam Smith", "Bob Johnson", "Carla Jones"])
        let m2 = try open(Self.mwk2)
        XCTAssertEqual(try fetch(m2, "Dept").count, 3)
        let employees = try fetch(m2, "Employee", sort: [SortKey("name")])
        XCTAssertEqual(try employees.map { try string(try $0.object(forKey: "dept"), "name") ?? "" }, ["Marketing", "Shipping", "Engineering"])
        for d in try fetch(m2, "Dept") { XCTAssertEqual(try d.objects(forKey: "employees").count, 1) }

        let b = try open(Self.book)
        let books = try fetch(b, "Book", sort: [SortKey("title")])
        XCTAssertEqual(try books.map { try string($0, "title") ?? "" }, ["Cosmos", "Extinction", "Metamorphosis", "The Trial"])
        XCTAssertEqual(try books.map { try string($0, "authorName") ?? "" }, ["Witold Gombrowicz", "Thomas Bernhard", "Franz Kafka", "Franz Kafka"])
        XCTAssertEqual(try fetch(b, "User").count, 3)
        XCTAssertEqual(try Set(books.map { try $0.object(forKey: "user")?.objectID.primaryKey }), [3])
        // The 152-byte keyed archive of an NSString, read by the default transformer.
        XCTAssertEqual(sqliteRows(b.store.path, "SELECT length(ZFILEURL) FROM ZBOOK WHERE ZTITLE = 'The Trial'"), [["152"]])
        XCTAssertEqual(try books.last?.value(forKey: "fileURL"), .transformable("The Trial.file"))
    }

    // MARK: Writing into Apple's files

    /// Tables, columns and indexes of a file (the history tables and triggers included).
    func layout(_ path: String) -> [[String]] {
        sqliteRows(path, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
    }

    func testEveryFixtureCanBeChangedSavedAndReopenedInApplesLayout() throws {
        for fixture in Self.all {
            let path = try copy(fixture)
            let model = try model(fixture)
            var before: [[String]] = []
            var changedPK: Int64 = 0
            var counts: [String: Int] = [:]
            do {
                let stack = try Stack(model: model, path: path)
                before = layout(path)
                for e in model.entities where !e.isAbstract && e.superentity == nil { counts[e.name] = try fetch(stack, e.name).count }
                // Change one object of the first concrete root entity that has rows and a string attribute.
                for e in model.entitiesSortedByName where e.superentity == nil {
                    guard let o = try fetch(stack, e.name).first,
                        let a = e.properties.compactMap({ $0 as? AttributeDescription }).first(where: { $0.attributeType == .string && !$0.isTransient })
                    else { continue }
                    // The value satisfies the fixtures' own validation predicates (a title must
                    // contain "title" and be 3 to 50 characters long).
                    try o.setValue(.string("title changed by ObjectGraph"), forKey: a.name)
                    changedPK = o.objectID.primaryKey
                    try stack.context.save()
                    XCTAssertEqual(sqliteRows(path, "SELECT Z_OPT > 1, \("Z" + a.name.uppercased()) FROM \("Z" + e.name.uppercased()) WHERE Z_PK = \(changedPK)"),
                        [["1", "title changed by ObjectGraph"]], fixture.store)
                    break
                }
            }
            let stack = try Stack(model: model, path: path)
            for (name, n) in counts { XCTAssertEqual(try fetch(stack, name).count, n, "\(fixture.store) \(name)") }
            XCTAssertEqual(layout(path), before, fixture.store)
            XCTAssertGreaterThan(changedPK, 0, fixture.store)
        }
    }

    func testInsertingIntoAppleStoresAllocatesKeysAndFillsDestinationEntityColumns() throws {
        // A Page of the GraphicNovel: ZPAGE.Z1_BOOK must say 2 (GraphicNovel), and Apple's
        // derived-attribute triggers (pagesCount) must run.
        let path = try copy(Self.sample2V2)
        let model = try model(Self.sample2V2)
        // A page's content goes through the app's transformer: one must be registered under its name.
        try ValueTransformers.register(
            name: "ContentTransformer",
            forward: { (v) throws(ObjectGraphError) in
                guard case .data(let d) = v else { throw .invalidArgument("bytes only") }
                return d
            },
            reverse: { (d) throws(ObjectGraphError) in .data(d) })
        defer { try? ValueTransformers.unregister(name: "ContentTransformer") }
        do {
            let stack = try Stack(model: model, path: path)
            let novel = try XCTUnwrap(try fetch(stack, "GraphicNovel").first)
            let page = try stack.context.insertObject(entityName: "Page")
            try page.setValue(.integer(999), forKey: "number")
            try page.setValue(.boolean(false), forKey: "isBookmarked")
            try page.setValue(.data(Data([1, 2, 3])), forKey: "content")
            try page.setObject(novel, forKey: "book")
            try stack.context.save()
            XCTAssertEqual(page.objectID.primaryKey, 120)
        }
        let novelPK = sqliteRows(path, "SELECT Z_PK FROM ZBOOK WHERE Z_ENT = 2")[0][0]
        XCTAssertEqual(sqliteRows(path, "SELECT ZBOOK, Z1_BOOK, Z_OPT FROM ZPAGE WHERE ZNUMBER = 999"), [[novelPK, "2", "1"]])
        XCTAssertEqual(sqliteRows(path, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'"), [["120"]])
        XCTAssertEqual(sqliteRows(path, "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_ENT = 2"), [["20"]])
        let stack = try Stack(model: model, path: path)
        XCTAssertEqual(try fetch(stack, "GraphicNovel").first?.objects(forKey: "pages").count, 20)

        // A new Person with cars in SampleModel V1 (UUID and date required).
        let path1 = try copy(Self.sampleV1)
        let model1 = try self.model(Self.sampleV1)
        do {
            let s = try Stack(model: model1, path: path1)
            let p = try s.context.insertObject(entityName: "Person")
            try p.setValue(.string("Ada"), forKey: "firstName")
            try p.setValue(.string("Lovelace"), forKey: "lastName")
            try p.setValue(.uuid(UUID()), forKey: "id")
            try p.setValue(.date(Date(timeIntervalSinceReferenceDate: 1000)), forKey: "updatedAt")
            let car = try s.context.insertObject(entityName: "SportCar")
            try car.setValue(.string("AE-1"), forKey: "numberPlate")
            try car.setObject(p, forKey: "owner")
            try s.context.save()
        }
        XCTAssertEqual(sqliteRows(path1, "SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { $0[0] }, ["126", "0", "0", "21"])
        XCTAssertEqual(sqliteRows(path1, "SELECT Z_ENT, ZOWNER FROM ZCAR WHERE ZNUMBERPLATE = 'AE-1'"), [["2", "21"]])
        let s1 = try Stack(model: model1, path: path1)
        XCTAssertEqual(try fetch(s1, "Person", "firstName == 'Ada'").first?.objects(forKey: "cars").count, 1)
    }
}

/// Files that are not (or no longer) valid stores: each gives a clear error with Core
/// Data's code, and the file is left as it was.
final class BadStoreFileTests: XCTestCase {
    func copyFixture(_ fixture: AppleStoreTests.Fixture) throws -> String {
        guard FileManager.default.fileExists(atPath: AppleStoreTests.root) else { throw XCTSkip("no Apple fixtures") }
        let path = try temporaryDirectory() + "/store.sqlite"
        try FileManager.default.copyItem(atPath: "\(AppleStoreTests.root)/\(fixture.store)", toPath: path)
        return path
    }

    func model(_ fixture: AppleStoreTests.Fixture) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: "\(AppleStoreTests.root)/\(fixture.model)", version: fixture.version)
    }

    func testATruncatedStoreIsRefusedAndLeftAsItWas() throws {
        let fixture = AppleStoreTests.wibosco2
        let path = try copyFixture(fixture)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for size in [10, 100, 4096, bytes.count / 2] {
            try bytes.prefix(size).write(to: URL(fileURLWithPath: path))
            let e = expectError {
                let stack = try Stack(model: try self.model(fixture), path: path)
                _ = try stack.context.fetch(FetchRequest(entityName: "Post"))
            }
            XCTAssertEqual(e?.code, ErrorCode.storeInvalidType, "truncated to \(size): \(e?.message ?? "no error")")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes.prefix(size), "truncated to \(size)")
        }
    }

    func testACorruptedStoreIsRefusedAndLeftAsItWas() throws {
        let fixture = AppleStoreTests.wibosco2
        let path = try copyFixture(fixture)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in 8192..<(8192 + 4096) { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let e = expectError {
            let stack = try Stack(model: try self.model(fixture), path: path)
            _ = try stack.context.fetch(FetchRequest(entityName: "Post"))
        }
        XCTAssertEqual(e?.code, ErrorCode.storeInvalidType, e?.message ?? "no error")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
    }

    func testAStoreOfAnotherModelIsRefusedWithTheVersionHashCode() throws {
        let path = try copyFixture(AppleStoreTests.mwk2)
        let e = expectError { _ = try Stack(model: try self.model(AppleStoreTests.sample3), path: path) }
        XCTAssertEqual(e?.code, ErrorCode.storeIncompatibleVersionHash)
    }

    func testAStoreInAReadOnlyDirectoryGivesAnOpenErrorAndNothingIsLost() throws {
        guard getuid() != 0 else { throw XCTSkip("directory permissions do not bind root") }
        let dir = try temporaryDirectory() + "/ro"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir) }
        let e = expectError { _ = try Stack(model: try makeLibraryModel(), path: dir + "/new.sqlite") }
        XCTAssertEqual(e?.code, ErrorCode.storeOpen)
    }
}
