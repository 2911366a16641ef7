import Foundation
@testable import ObjectGraph
import XCTest

/// Random predicates over random data: the SQLite store (SQL where it can, memory where it
/// cannot) must select exactly the objects that in-memory evaluation selects.
final class PredicateDifferentialTests: XCTestCase {
    static let predicateCount = Int(ProcessInfo.processInfo.environment["OG_DIFFERENTIAL_COUNT"] ?? "") ?? 10_000

    func testStoreAndMemoryAgree() throws {
        let model = try makeDifferentialModel()
        let path = try temporaryDirectory() + "/diff.sqlite"
        var rng = SeededGenerator(seed: 20261121)
        do {
            let stack = try Stack(model: model, path: path)
            try fillDifferentialStore(stack.context, &rng)
            try stack.context.save()
        }
        // A fresh stack so that every fetch goes to the store with nothing pending.
        let stack = try Stack(model: model, path: path)
        let context = stack.context
        let everyone = try context.fetch(FetchRequest(entityName: "Person"))
        let store = stack.store as! SQLiteStore
        var generator = PredicateGenerator(rng: rng)
        var exact = 0, evaluationErrors = 0
        for i in 0..<Self.predicateCount {
            let predicate = generator.predicate(depth: 0)
            let request = FetchRequest(entityName: "Person", predicate: predicate)
            var expected: Set<Int64> = []
            do {
                for o in everyone where try predicate.evaluate(with: .object(o)) { expected.insert(o.objectID.primaryKey) }
            } catch {
                // A type error in memory: the store must not silently answer either.
                evaluationErrors += 1
                XCTAssertThrowsError(try context.fetch(request), "#\(i) \(predicate.predicateFormat): memory fails (\(error)) but the store answered")
                continue
            }
            let plan = store.explain(request, entity: model.entitiesByName["Person"]!)
            if plan.isExact { exact += 1 }
            let fetched: Set<Int64>
            do {
                fetched = Set(try context.fetch(request).map(\.objectID.primaryKey))
            } catch {
                XCTFail("#\(i) \(predicate.predicateFormat): the store failed where memory did not: \(error)\nSQL: \(plan.sql)")
                continue
            }
            if fetched != expected {
                let reproducer = minimalReproducer(predicate, everyone, context)
                XCTFail("""
                    #\(i) store and memory disagree on \(predicate.predicateFormat)
                    minimal reproducer: \(reproducer)
                    SQL: \(plan.sql) bindings: \(plan.bindings)
                    only in store: \(fetched.subtracting(expected).sorted().prefix(5)) only in memory: \(expected.subtracting(fetched).sorted().prefix(5))
                    """)
                if fetched.symmetricDifference(expected).count > 0, i > 50 { break }
            }
        }
        print("differential: \(Self.predicateCount) predicates, \(exact) answered by SQL alone, \(evaluationErrors) type errors in both")
        XCTAssertGreaterThan(exact, Self.predicateCount / 2, "most generated predicates should translate to SQL")

        // With pending changes, fetches merge the store's answer with the context (§2.13).
        var live = everyone
        for (n, o) in everyone.enumerated() where n % 9 == 0 {
            try o.setValue(.string(differentialWords[n % differentialWords.count]), forKey: "name")
            try o.setValue(.integer(Int64(n % 40)), forKey: "age")
        }
        for o in everyone.enumerated().filter({ $0.offset % 13 == 5 }).map(\.element) {
            try context.delete(o)
            live.removeAll { $0 === o }
        }
        for n in 0..<10 {
            let o = try context.insertObject(entityName: "Person")
            try o.setValue(.string(differentialWords[(n * 7) % differentialWords.count]), forKey: "name")
            try o.setValue(.integer(Int64(n * 5)), forKey: "age")
            live.append(o)
        }
        for i in 0..<(Self.predicateCount / 10) {
            let predicate = generator.predicate(depth: 0)
            guard let expected = try? Set(live.filter { try predicate.evaluate(with: .object($0)) }.map(ObjectIdentifier.init)) else { continue }
            let fetched = try Set(context.fetch(FetchRequest(entityName: "Person", predicate: predicate)).map(ObjectIdentifier.init))
            XCTAssertEqual(fetched, expected, "pending #\(i): \(predicate.predicateFormat)")
            if fetched != expected { break }
        }
    }

    /// The smallest sub-predicate that still disagrees, with one object that shows it.
    private func minimalReproducer(_ p: ObjectPredicate, _ objects: [ManagedObject], _ context: ManagedObjectContext) -> String {
        func disagreeing(_ q: ObjectPredicate) -> ManagedObject? {
            guard let fetched = try? Set(context.fetch(FetchRequest(entityName: "Person", predicate: q)).map(\.objectID.primaryKey)) else { return nil }
            return objects.first { o in ((try? q.evaluate(with: .object(o))) ?? false) != fetched.contains(o.objectID.primaryKey) }
        }
        var current = p
        var shrinking = true
        while shrinking {
            shrinking = false
            let children: [ObjectPredicate]
            switch current {
            case .and(let parts), .or(let parts): children = parts
            case .not(let q): children = [q]
            default: children = []
            }
            for c in children where disagreeing(c) != nil {
                current = c
                shrinking = true
                break
            }
        }
        guard let o = disagreeing(current) else { return current.predicateFormat }
        let values = o.entity.properties.compactMap { p -> String? in
            guard p is AttributeDescription else { return nil }
            return "\(p.name)=\((try? o.value(forKey: p.name)).map { "\($0)" } ?? "?")"
        }
        return "\(current.predicateFormat) on Person \(o.objectID.primaryKey) {\(values.joined(separator: ", "))}"
    }
}

/// People in teams with pets: to-one, to-many, and every comparable attribute type.
func makeDifferentialModel() throws -> ManagedObjectModel {
    let model = ManagedObjectModel()
    let team = try model.addEntity(named: "Team")
    try team.addAttribute(named: "name", type: .string)
    try team.addAttribute(named: "rank", type: .integer32)
    let person = try model.addEntity(named: "Person")
    try person.addAttribute(named: "name", type: .string)
    try person.addAttribute(named: "nickname", type: .string)
    try person.addAttribute(named: "age", type: .integer16)
    try person.addAttribute(named: "score", type: .double)
    try person.addAttribute(named: "born", type: .date)
    try person.addAttribute(named: "active", type: .boolean)
    let pet = try model.addEntity(named: "Pet")
    try pet.addAttribute(named: "name", type: .string)
    try pet.addAttribute(named: "age", type: .integer32)
    let members = try team.addRelationship(named: "members", destination: person, toMany: true)
    let memberOf = try person.addRelationship(named: "team", destination: team)
    try members.setInverse(memberOf)
    let pets = try person.addRelationship(named: "pets", destination: pet, toMany: true, deleteRule: .cascade)
    let owner = try pet.addRelationship(named: "owner", destination: person)
    try pets.setInverse(owner)
    return model
}

let differentialWords: [String] = [
    "Zoë", "zoe", "ZOË", "Zoe", "Émile", "emile", "EMILE", "Straße", "STRASSE", "strasse", "Ærø", "ñandú", "Nandu",
    "Øst", "Ωmega", "ωmega", "日本", "日本語", "abc", "Abc", "aBc", "", "a*b", "x?y", "Ann", "ann-marie", "Åsa", "asa",
]

func fillDifferentialStore(_ context: ManagedObjectContext, _ rng: inout SeededGenerator) throws {
    var teams: [ManagedObject] = []
    for i in 0..<8 {
        let t = try context.insertObject(entityName: "Team")
        try t.setValue(i == 7 ? .null : .string(differentialWords.randomElement(using: &rng)!), forKey: "name")
        try t.setValue(.integer(Int64(i % 4)), forKey: "rank")
        teams.append(t)
    }
    for _ in 0..<150 {
        let p = try context.insertObject(entityName: "Person")
        func maybe(_ v: AttributeValue) -> AttributeValue { Int.random(in: 0..<6, using: &rng) == 0 ? .null : v }
        try p.setValue(maybe(.string(differentialWords.randomElement(using: &rng)!)), forKey: "name")
        try p.setValue(maybe(.string(differentialWords.randomElement(using: &rng)!)), forKey: "nickname")
        try p.setValue(maybe(.integer(Int64.random(in: -5...90, using: &rng))), forKey: "age")
        try p.setValue(maybe(.double(Double(Int.random(in: -100...100, using: &rng)) / 4)), forKey: "score")
        try p.setValue(maybe(.date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...20, using: &rng)) * 86400))), forKey: "born")
        try p.setValue(maybe(.boolean(Bool.random(using: &rng))), forKey: "active")
        if Int.random(in: 0..<5, using: &rng) > 0 { try p.setObject(teams.randomElement(using: &rng)!, forKey: "team") }
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let pet = try context.insertObject(entityName: "Pet")
            try pet.setValue(Int.random(in: 0..<6, using: &rng) == 0 ? .null : .string(differentialWords.randomElement(using: &rng)!), forKey: "name")
            try pet.setValue(Int.random(in: 0..<6, using: &rng) == 0 ? .null : .integer(Int64.random(in: 0...15, using: &rng)), forKey: "age")
            try pet.setObject(p, forKey: "owner")
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure reproduces from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random predicates over the differential model, built as format strings with arguments
/// so that the parser is exercised too.
struct PredicateGenerator {
    var rng: SeededGenerator

    private mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &rng)! }
    private mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &rng) == 0 }

    mutating func predicate(depth: Int) -> ObjectPredicate {
        if depth < 3 && chance(3) {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .and([predicate(depth: depth + 1), predicate(depth: depth + 1)])
            case 1: return .or([predicate(depth: depth + 1), predicate(depth: depth + 1)])
            default: return .not(predicate(depth: depth + 1))
            }
        }
        let (format, args) = comparison()
        do {
            return try ObjectPredicate(format: format, arguments: args)
        } catch {
            fatalError("generated an unparsable predicate \(format): \(error)")
        }
    }

    private mutating func stringOperator() -> String {
        pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "MATCHES"]) + pick(["", "", "[c]", "[d]", "[cd]"])
    }

    private mutating func stringArgument(_ op: String) -> PredicateValue {
        if chance(12) { return .null }
        if op.hasPrefix("LIKE") { return .scalar(.string(pick(["Z*", "*e", "?oe", "*ß*", "a\\*b", "x?y", "*", "É*", "日*", "*a*"]))) }
        if op.hasPrefix("MATCHES") { return .scalar(.string(pick(["Z.*", ".*e", "[a-z]+", "日.*", ".*(ss|ß).*", "A.c"]))) }
        if op.hasPrefix("IN") && chance(2) {
            return .collection((0..<Int.random(in: 0...3, using: &rng)).map { _ in chance(6) ? .null : .scalar(.string(pick(differentialWords))) })
        }
        if op.hasPrefix("BEGINS") || op.hasPrefix("ENDS") || op.hasPrefix("CONTAINS") || op.hasPrefix("IN") {
            return .scalar(.string(pick(["z", "Z", "ë", "e", "ss", "ß", "é", "E", "a", "日", "ω", "Ω", "mega", ""])))
        }
        return .scalar(.string(pick(differentialWords)))
    }

    private mutating func numberOperator() -> String { pick(["==", "!=", "<", "<=", ">", ">=", "=<", "=>", "<>", "BETWEEN", "IN"]) }

    private mutating func numberArgument(_ op: String, _ range: ClosedRange<Int>, double: Bool = false) -> PredicateValue {
        func one() -> PredicateValue {
            let i = Int.random(in: range, using: &rng)
            return double && chance(2) ? .scalar(.double(Double(i) + 0.25)) : .scalar(.integer(Int64(i)))
        }
        if op == "BETWEEN" {
            let a = one(), b = one()
            return .collection([a, b])
        }
        if op == "IN" { return .collection((0..<Int.random(in: 0...3, using: &rng)).map { _ in one() }) }
        return chance(12) ? .null : one()
    }

    mutating func comparison() -> (String, [PredicateValue]) {
        switch Int.random(in: 0..<17, using: &rng) {
        case 0, 1:
            let key = pick(["name", "nickname", "team.name", "name", "pets.name"])
            let op = stringOperator()
            if key == "pets.name" { return ("\(pick(["ANY", "ALL", "NONE", "SOME"])) \(key) \(op) %@", [stringArgument(op)]) }
            return ("%K \(op) %@", [.scalar(.string(key)), stringArgument(op)])
        case 2:
            let op = stringOperator()
            guard !op.hasPrefix("IN") else { return ("%@ IN name", [.scalar(.string(pick(["o", "ë", "E", "ß"])))]) }
            return ("name \(op) nickname", [])
        case 3, 4:
            let op = numberOperator()
            return ("\(pick(["age", "team.rank", "age", "score"])) \(op) %@", [numberArgument(op, -10...95, double: true)])
        case 5:
            let op = pick(["==", "!=", "<", ">", "BETWEEN"])
            if op == "BETWEEN" {
                return ("born BETWEEN %@", [.collection([.scalar(.date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...10, using: &rng)) * 86400))),
                    .scalar(.date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 5...20, using: &rng)) * 86400)))])])
            }
            return ("born \(op) %@", [chance(10) ? .null : .scalar(.date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...20, using: &rng)) * 86400)))])
        case 6:
            return ("active == %@", [pick([.scalar(.boolean(true)), .scalar(.boolean(false)), .null, .scalar(.integer(1))])])
        case 7:
            let op = numberOperator()
            return ("\(pick(["ANY", "ALL", "NONE"])) pets.age \(op) %@", [numberArgument(op, 0...15)])
        case 8:
            return ("pets.@count \(pick(["==", ">", "<=", "!="])) %d", [.scalar(.integer(Int64.random(in: 0...4, using: &rng)))])
        case 9:
            let agg = pick(["@sum", "@avg", "@min", "@max"])
            return ("pets.\(agg).age \(pick(["==", ">", "<", ">="])) %@", [chance(8) ? .null : .scalar(.integer(Int64.random(in: 0...30, using: &rng)))])
        case 10:
            return ("SUBQUERY(pets, $p, $p.age > %d AND $p.name \(stringOperator()) %@).@count \(pick([">", "==", "<"])) %d",
                [.scalar(.integer(Int64.random(in: 0...12, using: &rng))), stringArgument("=="), .scalar(.integer(Int64.random(in: 0...2, using: &rng)))])
        case 11:
            return ("team \(pick(["==", "!="])) nil", [])
        case 12:
            return ("\(pick(["name", "nickname", "age", "score", "born", "team.name"])) \(pick(["==", "!="])) nil", [])
        case 13:
            // Not expressible in SQL: evaluated in memory after a wider fetch.
            return (pick(["age + 1 > %d", "age * 2 <= %d", "uppercase(name) BEGINSWITH 'Z' AND age > %d", "FUNCTION(name, 'length') > %d"]),
                [.scalar(.integer(Int64.random(in: 0...12, using: &rng)))])
        case 14:
            return (pick(["TRUEPREDICATE", "FALSEPREDICATE"]), [])
        case 15:
            return ("pets.@max.name \(stringOperator()) %@", [stringArgument("==")])
        default:
            return ("name \(pick(["==", "!=", "<"])) %@", [pick([.scalar(.integer(3)), .scalar(.string("Zoë"))])])
        }
    }
}
