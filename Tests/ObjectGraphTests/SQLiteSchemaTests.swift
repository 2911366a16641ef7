import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// The names and indexes a new SQLite store gets (SQLiteSchema.swift): column suffixes in a
/// hierarchy, join tables named as Core Data names them, join-column suffixes, and the
/// indexes Apple creates; checked on the fixtures in Tests/Fixtures/Models and against the
/// schemas of Apple's own stores. (The layout tests of the class are in SQLiteStoreTests.swift.)
extension SQLiteSchemaTests {
    static var fixtures: String { ModelFileTests.fixtures }

    /// The statements of a store created from `model`, by name (tables, indexes).
    func schema(_ model: ManagedObjectModel) throws -> [String: String] {
        let path = try temporaryDirectory() + "/store.sqlite"
        _ = try Stack(model: model, path: path)
        var out: [String: String] = [:]
        // The model cache is compared elsewhere (SQLiteModelCacheTests, CompiledModelWriterTests).
        for row in sqliteRows(path, "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name != 'Z_MODELCACHE'") {
            out[row[0]] = row[1]
        }
        return out
    }

    func testJoinTablesAreNamedByTheSideCoreDataChooses() throws {
        let s = try schema(try ManagedObjectModel(contentsOf: "\(Self.fixtures)/JoinTables.xcdatamodel"))
        // Two roots: the entity whose name sorts first names the table (Account before User).
        XCTAssertEqual(s["Z_1USERS"], "CREATE TABLE Z_1USERS ( Z_1ACCOUNTS INTEGER, Z_8USERS INTEGER, PRIMARY KEY (Z_1ACCOUNTS, Z_8USERS) )")
        // Subentities: by entity name, not number (Contact, entity 6, before Group, entity 4).
        XCTAssertEqual(s["Z_3PARENTGROUPS"],
                       "CREATE TABLE Z_3PARENTGROUPS ( Z_3CHILDGROUPS INTEGER, Z_4PARENTGROUPS INTEGER, PRIMARY KEY (Z_3CHILDGROUPS, Z_4PARENTGROUPS) )")
        // A join column name already taken gets a suffix, as in Apple's Z_22PARENTGROUPS.
        XCTAssertEqual(s["Z_6PARENTGROUPS"],
                       "CREATE TABLE Z_6PARENTGROUPS ( Z_6CONTACTS INTEGER, Z_4PARENTGROUPS1 INTEGER, PRIMARY KEY (Z_6CONTACTS, Z_4PARENTGROUPS1) )")
        XCTAssertEqual(s["Z_7USERS"], "CREATE TABLE Z_7USERS ( Z_7CONTAINERS INTEGER, Z_8USERS1 INTEGER, PRIMARY KEY (Z_7CONTAINERS, Z_8USERS1) )")
        // A reflexive pair on one entity: the name that sorts last names the table.
        XCTAssertEqual(s["Z_8BLOCKING"], "CREATE TABLE Z_8BLOCKING ( Z_8BLOCKEDBY INTEGER, Z_8BLOCKING INTEGER, PRIMARY KEY (Z_8BLOCKEDBY, Z_8BLOCKING) )")
        XCTAssertEqual(s["Z_8BLOCKING_Z_8BLOCKING_INDEX"], "CREATE INDEX Z_8BLOCKING_Z_8BLOCKING_INDEX ON Z_8BLOCKING (Z_8BLOCKING, Z_8BLOCKEDBY)")
        XCTAssertEqual(s["Z_6PARENTGROUPS_Z_4PARENTGROUPS1_INDEX"],
                       "CREATE INDEX Z_6PARENTGROUPS_Z_4PARENTGROUPS1_INDEX ON Z_6PARENTGROUPS (Z_4PARENTGROUPS1, Z_6CONTACTS)")
        XCTAssertNil(s["Z_8BLOCKEDBY"])
        XCTAssertNil(s["Z_4CONTACTS"])
        XCTAssertEqual(s.keys.filter { $0.hasPrefix("Z_") && !$0.hasSuffix("_INDEX") && $0.first(where: \.isNumber) != nil }.count, 5)
    }

    func testColumnsThatCollideInAHierarchyAreSuffixedInEntityOrder() throws {
        let s = try schema(try ManagedObjectModel(contentsOf: "\(Self.fixtures)/JoinTables.xcdatamodel"))
        XCTAssertEqual(s["ZRECORD"], "CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTAINER INTEGER, "
            + "ZCONTAINER1 INTEGER, ZCREATED TIMESTAMP, ZNAME VARCHAR, ZQUERY VARCHAR, ZFIRSTNAME VARCHAR, ZNAME1 VARCHAR )")
        XCTAssertEqual(s["ZRECORD_ZCONTAINER1_INDEX"], "CREATE INDEX ZRECORD_ZCONTAINER1_INDEX ON ZRECORD (ZCONTAINER1)")
    }

    func testJoinTablesWorkUnderTheirNames() throws {
        let path = try temporaryDirectory() + "/joins.sqlite"
        let stack = try Stack(model: try ManagedObjectModel(contentsOf: "\(Self.fixtures)/JoinTables.xcdatamodel"), path: path)
        let ctx = stack.context
        let ann = try ctx.insertObject(entityName: "User"), bob = try ctx.insertObject(entityName: "User")
        try ann.setValue(.string("ann"), forKey: "handle")
        try bob.setValue(.string("bob"), forKey: "handle")
        try ann.addObject(bob, forKey: "blocking")
        let group = try ctx.insertObject(entityName: "Group"), contact = try ctx.insertObject(entityName: "Contact")
        try contact.addObject(group, forKey: "parentGroups")
        try ctx.save()
        XCTAssertEqual(sqliteRows(path, "SELECT Z_8BLOCKEDBY, Z_8BLOCKING FROM Z_8BLOCKING"), [["\(ann.objectID.primaryKey)", "\(bob.objectID.primaryKey)"]])
        XCTAssertEqual(sqliteRows(path, "SELECT COUNT(*) FROM Z_6PARENTGROUPS WHERE Z_4PARENTGROUPS1 IS NOT NULL"), [["1"]])
        let again = try Stack(model: try ManagedObjectModel(contentsOf: "\(Self.fixtures)/JoinTables.xcdatamodel"), path: path)
        let users = try again.context.fetch(FetchRequest(entityName: "User", predicate: try ObjectPredicate(format: "handle == 'bob'")))
        XCTAssertEqual(try users.first?.objects(forKey: "blockedBy").count, 1)
    }

    /// Apple's stores: a store we create from the model that wrote each one has the same
    /// tables and indexes, statement for statement (Core Data's private history tables,
    /// its model cache and its derived-attribute triggers aside).
    func testNewStoresHaveTheTablesAndIndexesOfApplesStores() throws {
        let fixtures: [AppleStoreTests.Fixture] = [
            AppleStoreTests.sampleV1, AppleStoreTests.sampleV2, AppleStoreTests.sample2V1, AppleStoreTests.sample3, AppleStoreTests.wibosco1,
            AppleStoreTests.wibosco3, AppleStoreTests.wiboscoWAL, AppleStoreTests.book, AppleStoreTests.mwk1, AppleStoreTests.mwk2,
        ]
        for fixture in fixtures {
            let apple = try AppleStoreTests.copy(fixture)
            let model = try ManagedObjectModel(contentsOf: "\(AppleStoreTests.root)/\(fixture.model)", version: fixture.version)
            let ours = try schema(model)
            var theirs: [String: String] = [:]
            for row in sqliteRows(apple, "SELECT name, sql, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL")
            where !["Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"].contains(row[2]) {
                theirs[row[0]] = row[1]
            }
            XCTAssertEqual(Set(ours.keys), Set(theirs.keys), fixture.store)
            for (name, sql) in theirs { XCTAssertEqual(ours[name], sql, "\(fixture.store): \(name)") }
        }
    }

    /// The indexes Core Data makes of fetch indexes (Tests/Fixtures/Models/XcodeDefaults):
    /// none for an R-tree or a to-one alone, a WHERE for a partial index, one named after
    /// an attribute marked indexed, and one per index of a subentity.
    func testFetchIndexesBecomeTheIndexesAppleCreates() throws {
        let s = try schema(try ManagedObjectModel(contentsOf: "\(Self.fixtures)/XcodeDefaults.xcdatamodel"))
        let indexes = s.filter { $0.value.hasPrefix("CREATE INDEX") || $0.value.hasPrefix("CREATE UNIQUE INDEX") }
        XCTAssertEqual(indexes, [
            "ZNOTE_ZPLACE_INDEX": "CREATE INDEX ZNOTE_ZPLACE_INDEX ON ZNOTE (ZPLACE)",
            "ZPLACE_Z_ENT_INDEX": "CREATE INDEX ZPLACE_Z_ENT_INDEX ON ZPLACE (Z_ENT)",
            "Z_Note_words": "CREATE INDEX Z_Note_words ON ZNOTE (ZWORDS COLLATE BINARY ASC)",
            "Z_Note_byPlaceAndTitle": "CREATE INDEX Z_Note_byPlaceAndTitle ON ZNOTE (ZPLACE COLLATE BINARY ASC, ZTITLE COLLATE BINARY DESC)",
            "Z_Note_byStampAndTitle": "CREATE INDEX Z_Note_byStampAndTitle ON ZNOTE (ZSTAMP COLLATE BINARY DESC, ZTITLE COLLATE BINARY ASC)",
            "Z_Note_byTitledOnly": "CREATE INDEX Z_Note_byTitledOnly ON ZNOTE (ZTITLE COLLATE BINARY ASC) WHERE ZTITLE IS NOT NULL",
            "Z_Cafe_byRoast": "CREATE INDEX Z_Cafe_byRoast ON ZPLACE (ZROAST COLLATE BINARY ASC)",
        ])
        // The redeclared Cafe.label keeps Place's column.
        XCTAssertEqual(s["ZPLACE"], "CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLATITUDE FLOAT, ZLONGITUDE FLOAT, ZLABEL VARCHAR, ZROAST VARCHAR )")
    }

    /// New stores use incremental auto-vacuum and say so in their metadata, as Apple's do.
    func testNewStoresUseIncrementalAutoVacuum() throws {
        let path = try temporaryDirectory() + "/vacuum.sqlite"
        let stack = try Stack(model: try ManagedObjectModel(contentsOf: "\(Self.fixtures)/XcodeDefaults.xcdatamodel"), path: path)
        XCTAssertEqual(sqliteRows(path, "PRAGMA auto_vacuum"), [["2"]])
        XCTAssertEqual(stack.store.metadata[StoreMetadataKey.autoVacuumLevel]?.stringValue, "2")
    }
}
