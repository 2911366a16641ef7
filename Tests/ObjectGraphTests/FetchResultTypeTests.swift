import Foundation
@testable import ObjectGraph
import XCTest

/// Fetch result types (§1.8, §2.13 rules 8 and 9, §3.6): object IDs, dictionaries with
/// properties, key paths, expressions, distinct, group by and having, and counts.
final class FetchResultTypeTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Departments and employees; a Manager is a kind of Employee, and an employee's
    /// mentor may be either.
    static func makeModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let department = try model.addEntity(named: "Department")
        try department.addAttribute(named: "name", type: .string)
        try department.addAttribute(named: "floor", type: .integer16)
        let employee = try model.addEntity(named: "Employee")
        try employee.addAttribute(named: "name", type: .string)
        try employee.addAttribute(named: "team", type: .string)
        try employee.addAttribute(named: "salary", type: .integer64)
        try employee.addAttribute(named: "bonus", type: .double)
        try employee.addAttribute(named: "hired", type: .date)
        try employee.addAttribute(named: "active", type: .boolean)
        let manager = try model.addEntity(named: "Manager")
        try manager.setSuperentity(employee)
        try manager.addAttribute(named: "reports", type: .integer32)
        let staff = try department.addRelationship(named: "staff", destination: employee, toMany: true)
        let works = try employee.addRelationship(named: "department", destination: department)
        try staff.setInverse(works)
        _ = try employee.addRelationship(named: "mentor", destination: employee)
        return model
    }

    static let people: [(name: String, team: String?, salary: Int64?, bonus: Double?, day: Double, active: Bool, dept: Int?, manager: Bool)] = [
        ("Ada", "core", 100, 1.5, 10, true, 0, true),
        ("Brian", "core", 80, 0.25, 20, true, 0, false),
        ("Cleo", "ui", 90, nil, 30, false, 1, false),
        ("Dan", "ui", 90, 2.0, 40, true, 1, true),
        ("Eve", nil, 70, 0.5, 50, true, nil, false),
        ("Finn", "core", nil, 1.0, 60, false, 0, false),
        ("Gus", "ops", 60, 3.0, 70, true, 2, false),
        ("Hana", "ops", 65, 0.75, 80, true, 2, false),
    ]

    /// A store of `type` filled with `people`; returns the stack (nothing pending).
    func filled(_ type: String, _ name: String) throws -> Stack {
        let stack = try Stack(model: try Self.makeModel(), path: dir + "/" + name, type: type)
        let ctx = stack.context
        var departments: [ManagedObject] = []
        for (i, n) in ["Research", "Design", "Operations"].enumerated() {
            let d = try ctx.insertObject(entityName: "Department")
            try d.setValue(.string(n), forKey: "name")
            try d.setValue(.integer(Int64(i + 1)), forKey: "floor")
            departments.append(d)
        }
        var made: [ManagedObject] = []
        for p in Self.people {
            let e = try ctx.insertObject(entityName: p.manager ? "Manager" : "Employee")
            try e.setValue(.string(p.name), forKey: "name")
            try e.setValue(p.team.map { .string($0) } ?? .null, forKey: "team")
            try e.setValue(p.salary.map { .integer($0) } ?? .null, forKey: "salary")
            try e.setValue(p.bonus.map { .double($0) } ?? .null, forKey: "bonus")
            try e.setValue(.date(Date(timeIntervalSinceReferenceDate: p.day * 86400)), forKey: "hired")
            try e.setValue(.boolean(p.active), forKey: "active")
            if let d = p.dept { try e.setObject(departments[d], forKey: "department") }
            made.append(e)
        }
        // Mentors: Ada (a Manager) mentors Brian and Cleo; Brian mentors Eve.
        try made[1].setObject(made[0], forKey: "mentor")
        try made[2].setObject(made[0], forKey: "mentor")
        try made[4].setObject(made[1], forKey: "mentor")
        try ctx.save()
        return try Stack(model: stack.model, path: dir + "/" + name, type: type)
    }

    func request(_ entity: String = "Employee", _ predicate: String? = nil, sort: [SortKey] = [], properties: [FetchProperty]? = nil) throws -> FetchRequest {
        let r = FetchRequest(entityName: entity, predicate: try predicate.map { try ObjectPredicate(format: $0) }, sortKeys: sort)
        r.resultType = .dictionary
        r.propertiesToFetch = properties
        return r
    }

    func expression(_ name: String, _ format: String, _ type: AttributeType = .undefined) -> FetchProperty {
        .expression(ExpressionDescription(name: name, expressionFormat: format, resultType: type))
    }

    /// Rows as text, with object IDs shown as Entity/key so stores compare.
    func text(_ rows: [ResultDictionary]) -> [String] {
        rows.map { row in
            zip(row.keys, row.values).map { k, v in
                switch v {
                case .objectID(let id): "\(k)=\(id.entity.name)/\(id.primaryKey)"
                case .value(let a): "\(k)=\(a)"
                }
            }.joined(separator: " ")
        }
    }

    // MARK: §2.13 rule 8: result types

    func testRule2_13_8_objectIDsIncludePendingChangesAndRegisterNothing() throws {
        let stack = try filled(StoreType.sqlite, "ids.sqlite")
        let ctx = stack.context
        ctx.retainsRegisteredObjects = true
        let r = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "salary >= 80"), sortKeys: [SortKey("name")])
        r.resultType = .managedObjectID
        let ids = try ctx.fetchObjectIDs(r)
        XCTAssertEqual(ids.map(\.primaryKey), [1, 2, 3, 4])
        XCTAssertEqual(ids.map(\.entity.name), ["Manager", "Employee", "Employee", "Manager"])
        XCTAssertTrue(ids.allSatisfy { !$0.isTemporaryID })
        XCTAssertEqual(ctx.registeredObjects.count, 0, "object IDs register no objects")

        // Pending changes: a new match (temporary ID), a changed object leaving and one
        // joining on their in-memory values, a deleted one left out.
        let fresh = try ctx.insertObject(entityName: "Employee")
        try fresh.setValue("Zoe", forKey: "name")
        try fresh.setValue(.integer(95), forKey: "salary")
        let all = try ctx.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("name")]))
        try all[1].setValue(.integer(10), forKey: "salary")   // Brian leaves
        try all[7].setValue(.integer(85), forKey: "salary")   // Hana joins
        try ctx.delete(all[3])                                  // Dan goes
        let merged = try ctx.fetchObjectIDs(r)
        XCTAssertEqual(merged.count, 4)
        XCTAssertEqual(merged.map { ctx.objectRegistered(for: $0)?.value(forKeyIgnoringErrors: "name") }, ["Ada", "Cleo", "Hana", "Zoe"])
        XCTAssertTrue(merged.last!.isTemporaryID)
        XCTAssertEqual(try ctx.count(for: r), merged.count)
        // Without pending changes the store's answer only.
        r.includesPendingChanges = false
        XCTAssertEqual(try ctx.fetchObjectIDs(r).map(\.primaryKey), [1, 2, 3, 4])
    }

    func testRule2_13_8_objectIDsOfUnregisteredRowsStayUnregistered() throws {
        let stack = try filled(StoreType.sqlite, "unreg.sqlite")
        let ctx = stack.context
        ctx.retainsRegisteredObjects = true
        let pending = try ctx.insertObject(entityName: "Department")
        try pending.setValue("Pending", forKey: "name")
        // A predicate SQL cannot express goes through memory, still without registering rows.
        let r = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "FUNCTION(name, 'length') == 3"))
        let ids = try ctx.fetchObjectIDs(r)
        XCTAssertEqual(ids.map(\.primaryKey), [1, 4, 5, 7])
        XCTAssertEqual(ctx.registeredObjects.count, 1, "only the new department is registered")
    }

    func testRule2_13_8_dictionariesIgnorePendingChangesAndRegisterNothing() throws {
        let stack = try filled(StoreType.sqlite, "dict.sqlite")
        let ctx = stack.context
        ctx.retainsRegisteredObjects = true
        let r = try request(sort: [SortKey("name")], properties: [.property("name"), .property("salary")])
        let before = try ctx.fetchDictionaries(r)
        XCTAssertEqual(before.count, 8)
        XCTAssertEqual(before[0]["name"], .value("Ada"))
        XCTAssertEqual(before[0]["salary"], .value(100))
        XCTAssertEqual(ctx.registeredObjects.count, 0)
        let ada = try ctx.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ada'")))[0]
        try ada.setValue(.integer(1), forKey: "salary")
        let fresh = try ctx.insertObject(entityName: "Employee")
        try fresh.setValue("Aaron", forKey: "name")
        let after = try ctx.fetchDictionaries(r)
        XCTAssertEqual(after, before, "dictionary results show the saved state (includesPendingChanges = NO)")
        try ctx.save()
        let saved = try ctx.fetchDictionaries(r)
        XCTAssertEqual(saved.count, 9)
        XCTAssertEqual(saved[0]["name"], .value("Aaron"))
        XCTAssertEqual(saved[1]["salary"], .value(1))
    }

    // MARK: §2.13 rule 9: counts

    func testRule2_13_9_countEqualsFetchForEveryResultType() throws {
        let stack = try filled(StoreType.sqlite, "count.sqlite")
        let ctx = stack.context
        let pending = try ctx.insertObject(entityName: "Employee")
        try pending.setValue(.integer(500), forKey: "salary")
        for type in [FetchResultType.managedObject, .managedObjectID, .dictionary, .count] {
            let r = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "salary > 60"))
            r.resultType = type
            let n = try ctx.count(for: r)
            switch try ctx.execute(r) {
            case .objects(let o): XCTAssertEqual(o.count, n); XCTAssertEqual(n, 7)
            case .objectIDs(let i): XCTAssertEqual(i.count, n); XCTAssertEqual(n, 7)
            case .dictionaries(let d): XCTAssertEqual(d.count, n); XCTAssertEqual(n, 6, "dictionaries: the saved rows only")
            case .count(let c): XCTAssertEqual(c, n); XCTAssertEqual(c, 7)
            }
        }
        // Distinct and grouped dictionaries count their rows.
        let teams = try request(properties: [.property("team")])
        teams.returnsDistinctResults = true
        XCTAssertEqual(try ctx.count(for: teams), 4)
        XCTAssertEqual(try ctx.fetchDictionaries(teams).count, 4)
        let grouped = try request(properties: [.property("team"), expression("n", "count:(name)")])
        grouped.propertiesToGroupBy = [.property("team")]
        XCTAssertEqual(try ctx.count(for: grouped), 4)
    }

    // MARK: Entry points

    func testExecuteDispatchesAndFetchRefusesOtherResultTypes() throws {
        let stack = try filled(StoreType.sqlite, "exec.sqlite")
        let ctx = stack.context
        let r = FetchRequest(entityName: "Department", sortKeys: [SortKey("name")])
        guard case .objects(let objects) = try ctx.execute(r) else { return XCTFail("objects expected") }
        XCTAssertEqual(objects.count, 3)
        r.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try ctx.execute(r) else { return XCTFail("IDs expected") }
        XCTAssertEqual(ids, objects.map(\.objectID))
        r.resultType = .count
        guard case .count(let n) = try ctx.execute(r) else { return XCTFail("a count expected") }
        XCTAssertEqual(n, 3)
        r.resultType = .dictionary
        guard case .dictionaries(let rows) = try ctx.execute(r) else { return XCTFail("dictionaries expected") }
        XCTAssertEqual(text(rows), ["name=\"Design\" floor=2", "name=\"Operations\" floor=3", "name=\"Research\" floor=1"])
        for type in [FetchResultType.managedObjectID, .dictionary, .count] {
            r.resultType = type
            let e = expectError { _ = try ctx.fetch(r) }
            XCTAssertEqual(e?.code, ErrorCode.invalidArgument)
            XCTAssertTrue(e?.message.contains("execute") ?? false)
        }
    }

    // MARK: Dictionaries

    func testDictionariesReadEveryAttributeByDefault() throws {
        let ctx = try filled(StoreType.sqlite, "all.sqlite").context
        let r = try request("Manager", sort: [SortKey("name")])
        let rows = try ctx.fetchDictionaries(r)
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0].keys, ["name", "team", "salary", "bonus", "hired", "active", "reports"], "attributes only, in model order")
        XCTAssertEqual(rows[0]["hired"], .value(.date(Date(timeIntervalSinceReferenceDate: 10 * 86400))))
        XCTAssertEqual(rows[0]["active"], .value(true))
        XCTAssertEqual(rows[0]["reports"], .null)
        XCTAssertEqual(rows[0]["department"], nil, "relationships are not fetched unless asked")
    }

    func testDictionariesReadToOnesAsObjectIDsAndKeyPathsThroughThem() throws {
        let ctx = try filled(StoreType.sqlite, "toone.sqlite").context
        let r = try request("Employee", "mentor != nil", sort: [SortKey("name")],
                            properties: [.property("name"), .property("mentor"), .property("department"), .property("department.name"), .property("mentor.mentor")])
        let rows = try ctx.fetchDictionaries(r)
        XCTAssertEqual(text(rows), [
            "name=\"Brian\" mentor=Manager/1 department=Department/1 department.name=\"Research\" mentor.mentor=nil",
            "name=\"Cleo\" mentor=Manager/1 department=Department/2 department.name=\"Design\" mentor.mentor=nil",
            "name=\"Eve\" mentor=Employee/2 department=nil department.name=nil mentor.mentor=Manager/1",
        ])
        let id = try XCTUnwrap(rows[0]["mentor"]?.objectID)
        XCTAssertEqual(try ctx.existingObject(with: id).value(forKey: "name"), "Ada")
        XCTAssertEqual(id.uriRepresentation, "x-coredata://\(ctx.persistentStoreCoordinator.persistentStores[0].identifier)/Manager/p1")
    }

    func testExpressionsComputeTypedValues() throws {
        let ctx = try filled(StoreType.sqlite, "expr.sqlite").context
        let r = try request(properties: [
            expression("total", "sum:(salary)", .integer64), expression("mean", "average:(salary)", .double),
            expression("latest", "max:(hired)", .date), expression("first", "min:(name)", .string),
            expression("people", "count:(salary)", .integer64), expression("rows", "count:(SELF)"),
            expression("meanBonus", "average:(bonus)"), expression("roundedMean", "average:(salary)", .integer64),
        ])
        let rows = try ctx.fetchDictionaries(r)
        XCTAssertEqual(rows.count, 1, "aggregates without group-by give one dictionary")
        XCTAssertEqual(text(rows), ["total=555 mean=79.28571428571429 latest=\(Date(timeIntervalSinceReferenceDate: 80 * 86400).formatted(.iso8601)) first=\"Ada\" people=7 rows=8 meanBonus=1.2857142857142858 roundedMean=79"])
        // Per-row expressions: arithmetic, constants, nil in, nil out, division by zero nil.
        let perRow = try request(sort: [SortKey("name")], properties: [
            .property("name"), expression("doubled", "salary * 2"), expression("pay", "salary + bonus", .double),
            expression("one", "1"), expression("half", "salary / 0"), expression("ratio", "bonus / 2"),
        ])
        perRow.fetchLimit = 3
        XCTAssertEqual(text(try ctx.fetchDictionaries(perRow)), [
            "name=\"Ada\" doubled=200 pay=101.5 one=1 half=nil ratio=0.75",
            "name=\"Brian\" doubled=160 pay=80.25 one=1 half=nil ratio=0.125",
            "name=\"Cleo\" doubled=180 pay=nil one=1 half=nil ratio=nil",
        ])
        // An empty match: counts are 0, a sum 0, the rest nil.
        let none = try request("Employee", "salary > 1000", properties: [expression("n", "count:(name)"), expression("s", "sum:(salary)"), expression("m", "max:(salary)")])
        XCTAssertEqual(text(try ctx.fetchDictionaries(none)), ["n=0 s=0 m=nil"])
    }

    func testDistinctSortOffsetAndLimit() throws {
        let ctx = try filled(StoreType.sqlite, "distinct.sqlite").context
        let r = try request(sort: [SortKey("team", ascending: false)], properties: [.property("team")])
        r.returnsDistinctResults = true
        XCTAssertEqual(text(try ctx.fetchDictionaries(r)), ["team=\"ui\"", "team=\"ops\"", "team=\"core\"", "team=nil"])
        r.fetchOffset = 1
        r.fetchLimit = 2
        XCTAssertEqual(text(try ctx.fetchDictionaries(r)), ["team=\"ops\"", "team=\"core\""])
        // Several columns: rows repeat only when all their values do.
        let pairs = try request(properties: [.property("team"), .property("active")])
        pairs.returnsDistinctResults = true
        XCTAssertEqual(try ctx.fetchDictionaries(pairs).count, 6)
        // returnsDistinctResults is ignored without propertiesToFetch (§1.8).
        let everything = try request("Department")
        everything.returnsDistinctResults = true
        XCTAssertEqual(try ctx.fetchDictionaries(everything).count, 3)
        // Without distinct the sort, offset and limit apply to rows.
        let names = try request(sort: [SortKey("salary", ascending: false), SortKey("name")], properties: [.property("name")])
        names.fetchOffset = 2
        names.fetchLimit = 3
        XCTAssertEqual(text(try ctx.fetchDictionaries(names)), ["name=\"Dan\"", "name=\"Brian\"", "name=\"Eve\""])
    }

    func testGroupByAndHaving() throws {
        let ctx = try filled(StoreType.sqlite, "group.sqlite").context
        let r = try request("Employee", "team != nil", sort: [SortKey("team")], properties: [
            .property("team"), expression("total", "sum:(salary)", .integer64), expression("n", "count:(SELF)"),
            expression("best", "max:(bonus)", .double),
        ])
        r.propertiesToGroupBy = [.property("team")]
        XCTAssertEqual(text(try ctx.fetchDictionaries(r)), [
            "team=\"core\" total=180 n=3 best=1.5", "team=\"ops\" total=125 n=2 best=3.0", "team=\"ui\" total=180 n=2 best=2.0",
        ])
        r.havingPredicate = try ObjectPredicate(format: "total > 150 AND team != 'ui'")
        XCTAssertEqual(text(try ctx.fetchDictionaries(r)), ["team=\"core\" total=180 n=3 best=1.5"])
        // Grouping by a to-one, and by a key path through it; a grouped key that is not shown.
        let byDepartment = try request("Employee", sort: [SortKey("department.name")], properties: [.property("department.name"), expression("n", "count:(name)")])
        byDepartment.propertiesToGroupBy = [.property("department"), .property("department.name")]
        XCTAssertEqual(text(try ctx.fetchDictionaries(byDepartment)), ["department.name=nil n=1", "department.name=\"Design\" n=2", "department.name=\"Operations\" n=2", "department.name=\"Research\" n=3"])
        // An expression as a group, and an expression over grouped values and aggregates.
        let byActive = try request(properties: [.property("active"), expression("gap", "max:(salary) - min:(salary)")])
        byActive.propertiesToGroupBy = [.property("active")]
        XCTAssertEqual(text(try ctx.fetchDictionaries(byActive)), ["active=false gap=0", "active=true gap=40"])
        let byTier = try request(properties: [expression("tier", "salary / 50"), expression("n", "count:(name)")])
        byTier.propertiesToGroupBy = [expression("tier", "salary / 50")]
        byTier.havingPredicate = try ObjectPredicate(format: "tier != nil")
        XCTAssertEqual(text(try ctx.fetchDictionaries(byTier)), ["tier=1 n=6", "tier=2 n=1"])
    }

    func testInvalidRequestsAreClearErrors() throws {
        let ctx = try filled(StoreType.sqlite, "errors.sqlite").context
        func code(_ r: FetchRequest) -> (Int?, String) {
            let e = expectError { _ = try ctx.execute(r) }
            return (e?.code, e?.message ?? "")
        }
        var (c, m) = code(try request(properties: [.property("salery")]))
        XCTAssertEqual(c, ErrorCode.unknownKey)
        XCTAssertTrue(m.contains("salery"))
        (c, m) = code(try request(properties: [.property("department.nam")]))
        XCTAssertEqual(c, ErrorCode.unknownKey)
        XCTAssertTrue(m.contains("department.nam"))
        (c, m) = code(try request("Department", properties: [.property("staff")]))
        XCTAssertEqual(c, ErrorCode.invalidArgument)
        XCTAssertTrue(m.contains("to-many"))
        (c, _) = code(try request(properties: [expression("x", "sum:(salary")]))
        XCTAssertEqual(c, ErrorCode.predicateSyntax)
        (c, m) = code(try request(properties: [expression("x", "sum:(wage)")]))
        XCTAssertEqual(c, ErrorCode.unknownKey)
        // A column neither grouped nor aggregated.
        let ungrouped = try request(properties: [.property("name"), expression("n", "count:(name)")])
        (c, m) = code(ungrouped)
        XCTAssertEqual(c, ErrorCode.invalidArgument)
        XCTAssertTrue(m.contains("'name'"))
        ungrouped.propertiesToGroupBy = [.property("team")]
        XCTAssertEqual(code(ungrouped).0, ErrorCode.invalidArgument)
        // Group-by and having belong to dictionary results.
        let objects = FetchRequest(entityName: "Employee")
        objects.propertiesToGroupBy = [.property("team")]
        XCTAssertEqual(code(objects).0, ErrorCode.invalidArgument)
        objects.resultType = .managedObjectID
        XCTAssertEqual(code(objects).0, ErrorCode.invalidArgument)
        let having = try request(properties: [.property("team")])
        having.havingPredicate = try ObjectPredicate(format: "team != nil")
        XCTAssertEqual(code(having).0, ErrorCode.invalidArgument)
        let unknownInHaving = try request(properties: [.property("team"), expression("n", "count:(name)")])
        unknownInHaving.propertiesToGroupBy = [.property("team")]
        unknownInHaving.havingPredicate = try ObjectPredicate(format: "total > 1")
        (c, m) = code(unknownInHaving)
        XCTAssertEqual(c, ErrorCode.unknownKey)
        XCTAssertTrue(m.contains("total"))
        let unknownGroup = try request(properties: [.property("team")])
        unknownGroup.propertiesToGroupBy = [.property("squad")]
        XCTAssertEqual(code(unknownGroup).0, ErrorCode.unknownKey)
        let sortOutside = try request(sort: [SortKey("name")], properties: [.property("team")])
        sortOutside.returnsDistinctResults = true
        XCTAssertEqual(code(sortOutside).0, ErrorCode.invalidArgument)
        let nested = try request(properties: [expression("x", "sum:(max:(salary))")])
        XCTAssertEqual(code(nested).0, ErrorCode.invalidArgument)
        let collection = try request("Department", properties: [expression("x", "staff.name")])
        XCTAssertEqual(code(collection).0, ErrorCode.predicateEvaluation)
        // The same errors from count(for:), and no store was harmed.
        XCTAssertEqual(expectError { _ = try ctx.count(for: nested) }?.code, ErrorCode.invalidArgument)
        XCTAssertEqual(try ctx.count(for: FetchRequest(entityName: "Employee")), 8)
    }

    // MARK: SQL and memory

    func testSQLiteComputesDictionariesAndIDsInSQL() throws {
        let stack = try filled(StoreType.sqlite, "sql.sqlite")
        let store = stack.store as! SQLiteStore
        let entity = stack.model.entitiesByName["Employee"]!
        let grouped = try request("Employee", "salary > 60", sort: [SortKey("team")], properties: [.property("team"), expression("total", "sum:(salary) * 2")])
        grouped.propertiesToGroupBy = [.property("team")]
        let sql = try XCTUnwrap(try store.explainDictionaries(grouped, entity: entity))
        XCTAssertTrue(sql.contains("(COALESCE(SUM(t0.ZSALARY), 0) * ?)"), sql)
        XCTAssertTrue(sql.contains("GROUP BY 1"), sql)
        let distinct = try request(properties: [.property("mentor"), .property("department.name")])
        distinct.returnsDistinctResults = true
        let distinctSQL = try XCTUnwrap(try store.explainDictionaries(distinct, entity: entity))
        XCTAssertTrue(distinctSQL.hasPrefix("SELECT DISTINCT t0.ZMENTOR, "), distinctSQL)
        XCTAssertTrue(distinctSQL.contains("SELECT d.Z_ENT"), "the mentor may be a Manager: its entity is read")
        // What SQL cannot say exactly runs in memory.
        XCTAssertNil(try store.explainDictionaries(try request(properties: [expression("m", "median:(salary)")]), entity: entity))
        XCTAssertNil(try store.explainDictionaries(try request(properties: [expression("u", "uppercase:(name)")]), entity: entity))
        XCTAssertEqual(text(try stack.context.fetchDictionaries(try request(properties: [expression("m", "median:(salary)")]))), ["m=80.0"])
        // IDs: only keys, when the predicate and order are exact.
        let ids = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "team == 'ui'"))
        XCTAssertEqual(try store.fetchIdentities(ids, entity: entity)?.map(\.primaryKey), [3, 4])
        ids.predicate = try ObjectPredicate(format: "FUNCTION(name, 'length') == 3")
        XCTAssertNil(try store.fetchIdentities(ids, entity: entity))
    }

    /// The same requests on SQLite (SQL) and in memory (InMemory and Binary stores) give the same rows.
    func testDifferentialSQLiteAgainstMemoryStores() throws {
        let sqlite = try filled(StoreType.sqlite, "d.sqlite").context
        let memory = try filled(StoreType.binary, "d.binary").context
        var requests: [FetchRequest] = []
        requests.append(try request(sort: [SortKey("name")]))
        requests.append(try request("Employee", "salary > 70 OR bonus < 1", sort: [SortKey("bonus", ascending: false), SortKey("name")],
                                    properties: [.property("name"), .property("department"), .property("mentor"), .property("mentor.name"), .property("department.floor")]))
        requests.append(try request(properties: [expression("s", "sum:(salary)"), expression("a", "average:(bonus)"), expression("mx", "max:(hired)"),
                                                 expression("mn", "min:(team)"), expression("c", "count:(team)"), expression("t", "sum:(active)"), expression("b", "max:(active)")]))
        requests.append(try request(sort: [SortKey("name")], properties: [.property("name"), expression("x", "salary * 3 - 7"), expression("y", "bonus * salary"),
                                                                           expression("z", "salary / 7"), expression("w", "bonus / 0.5"), expression("k", "'const'")]))
        let d1 = try request(sort: [SortKey("team")], properties: [.property("team"), .property("department")])
        d1.returnsDistinctResults = true
        requests.append(d1)
        let d2 = try request(properties: [.property("active"), .property("department.name")])
        d2.returnsDistinctResults = true
        d2.fetchLimit = 3
        requests.append(d2)
        let g1 = try request("Employee", "hired > CAST(0, 'NSDate')", sort: [SortKey("team", ascending: false)],
                             properties: [.property("team"), expression("s", "sum:(salary)"), expression("a", "average:(salary)", .integer64), expression("h", "min:(hired)")])
        g1.propertiesToGroupBy = [.property("team")]
        requests.append(g1)
        let g2 = try request(properties: [.property("department"), .property("active"), expression("n", "count:(SELF)"), expression("spread", "max:(bonus) - min:(bonus)")])
        g2.propertiesToGroupBy = [.property("department"), .property("active")]
        g2.havingPredicate = try ObjectPredicate(format: "n >= 1 AND spread != nil")
        g2.fetchOffset = 1
        requests.append(g2)
        let g3 = try request(sort: [SortKey("department.name")], properties: [.property("department.name"), expression("n", "count:(mentor)")])
        g3.propertiesToGroupBy = [.property("department.name")]
        g3.fetchLimit = 2
        requests.append(g3)
        let g4 = try request("Manager", properties: [expression("n", "count:(name)"), expression("r", "sum:(reports)")])
        requests.append(g4)
        let g5 = try request(properties: [.property("mentor"), expression("n", "count:(SELF)")])
        g5.propertiesToGroupBy = [.property("mentor")]
        requests.append(g5)
        for (i, r) in requests.enumerated() {
            let a = text(try sqlite.fetchDictionaries(r)), b = text(try memory.fetchDictionaries(r))
            XCTAssertEqual(a, b, "request #\(i)")
            XCTAssertFalse(a.isEmpty, "request #\(i) should match something")
            XCTAssertEqual(try sqlite.count(for: r), try memory.count(for: r), "count #\(i)")
        }
        // Object IDs agree as well.
        let ids = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "department.floor >= 2"), sortKeys: [SortKey("salary")])
        ids.fetchLimit = 3
        XCTAssertEqual(try sqlite.fetchObjectIDs(ids).map(\.primaryKey), try memory.fetchObjectIDs(ids).map(\.primaryKey))
        XCTAssertEqual(try sqlite.fetchObjectIDs(ids).map(\.primaryKey), [7, 8, 3])
        let inMemory = try Stack(model: try Self.makeModel(), path: "", type: StoreType.inMemory)
        let e = try inMemory.context.insertObject(entityName: "Employee")
        try e.setValue(.integer(5), forKey: "salary")
        try inMemory.context.save()
        XCTAssertEqual(text(try inMemory.context.fetchDictionaries(try request(properties: [expression("s", "sum:(salary)")]))), ["s=5"])
    }
}

private extension ManagedObject {
    func value(forKeyIgnoringErrors key: String) -> String? {
        if case .string(let s)? = try? value(forKey: key) { return s }
        return nil
    }
}
