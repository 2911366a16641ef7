import FoundationEssentials

/// Translates predicates into SQLite SQL over Core Data's tables, with bound parameters
/// only. A sub-tree is translated only when the SQL selects exactly the rows the in-memory
/// evaluator would; anything else returns nil, and the caller evaluates it in memory after
/// a wider fetch. Key paths through to-one relationships become LEFT JOINs, to-many
/// quantifiers and collection operators correlated subqueries, and the string operators
/// call `og_str`, which shares its code with the evaluator.
struct SQLPredicateTranslator {
    let schema: SQLiteSchema
    /// The UUID of the store queried: an object-ID argument of another store matches no row.
    let storeIdentifier: String?
    /// The SQL spoken: PostgreSQL has booleans rather than 0 and 1, `IS NOT DISTINCT FROM`
    /// rather than `IS`, and no `og_str` (string operators with options narrow the rows on
    /// the server and are decided in memory there), and compares text by the database's
    /// collation unless told `"C"`.
    let dialect: SQLDialect
    private(set) var bindings: [AttributeValue] = []
    private var aliasCount = 0
    /// Whether a comparison may translate to a superset of its rows (`foldedSuperset`):
    /// only while translating a top-level conjunct through AND, OR and ANY, where a wider
    /// condition still selects every row memory would (never under NOT, ALL or inside an
    /// operand such as a subquery's count).
    var supersetAllowed = false

    init(schema: SQLiteSchema, storeIdentifier: String? = nil, dialect: SQLDialect = .sqlite) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        self.dialect = dialect
    }

    private var yes: String { dialect.true }
    var no: String { dialect.false }

    /// One table in a FROM clause, with the joins key paths from it needed.
    final class Scope {
        let alias: String
        let entity: EntityDescription
        var joins: [String] = []
        var joined: [String: (alias: String, entity: EntityDescription)] = [:]
        init(alias: String, entity: EntityDescription) {
            self.alias = alias
            self.entity = entity
        }
    }

    /// Where names resolve: bare key paths in `current`, `$variables` in their scopes.
    struct Context {
        var current: Scope
        var variables: [String: Scope] = [:]
    }

    enum Kind: Equatable {
        case number, string, date, identity, other, null
        /// An entity: a row's `Z_ENT`, or an entity constant bound as its number.
        case entity
    }

    /// A translated operand: SQL text, or a constant still to bind.
    struct Operand {
        var sql: String
        var kind: Kind
        var constant: PredicateValue?
        /// For identities: the entity hierarchy whose primary keys the SQL yields.
        var entity: EntityDescription?
    }

    /// A key path that crosses a to-many relationship.
    private struct ToMany {
        let owner: Scope
        let relationship: RelationshipDescription
        let rest: [String]
    }

    private enum Resolved {
        case operand(Operand)
        case toMany(ToMany)
    }

    // MARK: Entry points

    mutating func makeScope(_ entity: EntityDescription) -> Scope {
        let s = Scope(alias: "t\(aliasCount)", entity: entity)
        aliasCount += 1
        return s
    }

    /// The WHERE clause of `request` on `scope` (" WHERE …", or "" when nothing is asked):
    /// the entity's rows (`entityCondition`) and the predicate, and whether SQL expresses
    /// the predicate exactly (when not, the clause selects a superset, as `whereCondition`).
    mutating func whereClause(_ request: FetchRequest, _ scope: Scope) -> (sql: String, exact: Bool) {
        var conditions: [String] = []
        if let condition = schema.entityCondition(scope.entity, includesSubentities: request.includesSubentities) { conditions.append(condition) }
        var exact = true
        if let predicate = request.predicate {
            let (sql, isExact) = whereCondition(predicate, scope)
            if let sql { conditions.append("(\(sql))") }
            exact = isExact
        }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), exact)
    }

    /// The WHERE condition for `p` on `scope`, and whether it is exact. An inexact condition
    /// keeps the conjuncts that translate up to the first that does not (a superset of the
    /// answer), or is nil. Only a leading run is kept: in memory AND stops at the first false
    /// conjunct, so the rows SQL removes are rows whose later conjuncts memory never
    /// evaluates, and an evaluation error still surfaces exactly where memory raises it.
    mutating func whereCondition(_ p: ObjectPredicate, _ scope: Scope) -> (sql: String?, exact: Bool) {
        let context = Context(current: scope)
        var kept: [String] = []
        for part in Self.conjuncts(p) {
            let b = bindings, j = scope.joins, jd = scope.joined
            guard let sql = predicate(part, context) else {
                bindings = b
                scope.joins = j
                scope.joined = jd
                // The first conjunct SQL cannot decide may still narrow the rows, as the
                // last condition kept: memory evaluates the whole predicate on what remains.
                if dialect == .postgreSQL {
                    supersetAllowed = true
                    let wider = predicate(part, context)
                    supersetAllowed = false
                    if let wider {
                        kept.append("(\(wider))")
                    } else {
                        bindings = b
                        scope.joins = j
                        scope.joined = jd
                    }
                }
                return (kept.isEmpty ? nil : kept.joined(separator: " AND "), false)
            }
            kept.append("(\(sql))")
        }
        return (kept.joined(separator: " AND "), true)
    }

    /// The conjuncts of a chain of ANDs, in evaluation order.
    private static func conjuncts(_ p: ObjectPredicate) -> [ObjectPredicate] {
        if case .and(let parts) = p { return parts.flatMap(conjuncts) }
        return [p]
    }

    /// An ORDER BY term for a sort key, or nil if the key path does not reach a stored
    /// attribute through to-one relationships.
    mutating func orderTerm(_ key: SortKey, _ scope: Scope) -> String? {
        let context = Context(current: scope)
        guard case .operand(let o)? = resolve(KeyPath.components(key.key), in: scope, context),
            o.kind != .identity, o.kind != .entity
        else { return nil }
        var term = o.sql
        if o.kind == .string, let collation = key.comparison.collation {
            // SQLite's collations are the evaluator's own functions; PostgreSQL has no such.
            guard dialect == .sqlite else { return nil }
            term += " COLLATE \(collation)"
        } else if o.kind == .string, dialect == .postgreSQL {
            term += " COLLATE \"C\""
        }
        // Nil sorts before every value, as in SQLite and in memory; PostgreSQL puts it last.
        if dialect == .postgreSQL { return term + (key.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST") }
        return term + (key.ascending ? " ASC" : " DESC")
    }

    /// The SQL of a key path through to-one relationships — an attribute's column or a
    /// to-one's foreign key — joining what it needs to `scope`; nil for any other path.
    /// Dictionary results build their columns from these.
    mutating func keyPathColumn(_ path: String, _ scope: Scope) -> String? {
        guard case .operand(let o)? = resolve(KeyPath.components(path), in: scope, Context(current: scope)) else { return nil }
        return o.sql
    }

    /// A placeholder bound to `v`; nil for a value SQL does not hold as it is.
    mutating func bindConstant(_ v: AttributeValue) -> String? {
        switch v {
        case .null: return "NULL"
        case .integer, .double, .string:
            bindings.append(v)
            return "?"
        default: return nil
        }
    }

    // MARK: Predicates

    private mutating func predicate(_ p: ObjectPredicate, _ context: Context) -> String? {
        switch p {
        case .truePredicate: return yes
        case .falsePredicate: return no
        case .not(let q):
            // NOT of a wider condition is a narrower one.
            let allowed = supersetAllowed
            supersetAllowed = false
            defer { supersetAllowed = allowed }
            guard let s = predicate(q, context) else { return nil }
            // NOT of SQL's unknown is unknown; in memory a comparison with nil is false.
            return "NOT \(dialect.falseIfNull("(\(s))"))"
        case .and(let parts), .or(let parts):
            var out: [String] = []
            for q in parts {
                guard let s = predicate(q, context) else { return nil }
                out.append("(\(s))")
            }
            if case .and = p { return out.joined(separator: " AND ") }
            return out.joined(separator: " OR ")
        case .comparison(let c):
            return comparison(c, context)
        }
    }

    private mutating func comparison(_ c: ObjectPredicate.Comparison, _ context: Context) -> String? {
        // Only the comparison itself may widen: its operands (subqueries, counts, sums) are
        // exact, since a wider count is not a count of more rows.
        let wider = supersetAllowed
        supersetAllowed = false
        defer { supersetAllowed = wider }
        guard let left = expression(c.left, context) else { return nil }
        switch c.quantifier {
        case .direct:
            if case .toMany(let path) = left {
                // `tomany CONTAINS x` is `ANY tomany == x`; anything else compares a collection.
                guard c.op == .contains, let right = operand(c.right, context) else { return nil }
                return quantified(path, .equal, right, c.options, all: false, wider: wider, context)
            }
            guard case .operand(let l) = left else { return nil }
            if c.op == .in, case .toMany(let path)? = expression(c.right, context) {
                return quantified(path, .equal, l, c.options, all: false, wider: wider, context)
            }
            guard let r = operand(c.right, context) else { return nil }
            supersetAllowed = wider
            return compare(l, c.op, r, c.options)
        case .any, .all:
            guard case .toMany(let path) = left, let r = operand(c.right, context) else { return nil }
            return quantified(path, c.op, r, c.options, all: c.quantifier == .all, wider: wider, context)
        }
    }

    /// `EXISTS` (ANY) or `NOT EXISTS … NOT` (ALL) over the members of a to-many.
    private mutating func quantified(
        _ path: ToMany, _ op: ComparisonOperator, _ right: Operand, _ options: StringCompareOptions, all: Bool, wider: Bool = false,
        _ context: Context
    ) -> String? {
        guard let (from, link, inner) = subqueryScope(path) else { return nil }
        guard case .operand(let member)? = memberValue(path.rest, inner, context) else { return nil }
        // ALL negates its condition: a wider one would select fewer owners.
        supersetAllowed = wider && !all
        defer { supersetAllowed = false }
        guard let condition = compare(member, op, right, options) else { return nil }
        let joins = inner.joins.joined(separator: " ")
        if all {
            return "NOT EXISTS (SELECT 1 FROM \(from) \(joins) WHERE \(link) AND NOT \(dialect.falseIfNull("(\(condition))")))"
        }
        return "EXISTS (SELECT 1 FROM \(from) \(joins) WHERE \(link) AND (\(condition)))"
    }

    /// The table, link condition and scope of a to-many's destination rows.
    private mutating func subqueryScope(_ path: ToMany) -> (from: String, link: String, scope: Scope)? {
        let r = path.relationship
        guard let destination = r.destinationEntity else { return nil }
        if case .join(let join, let ownerColumn, let memberColumn, _)? = schema.toMany[ObjectIdentifier(r)] {
            // Many-to-many (or inverse-less): the members are reached through the join table.
            let inner = makeScope(destination)
            let j = "j" + inner.alias.dropFirst()
            return (
                "\(schema.table(destination).sql) \(inner.alias) JOIN \(sqlIdentifier(join)) \(j) ON \(j).\(sqlIdentifier(memberColumn)) = \(inner.alias).Z_PK",
                "\(j).\(sqlIdentifier(ownerColumn)) = \(path.owner.alias).Z_PK", inner
            )
        }
        guard let inverse = r.inverseRelationship, !inverse.isToMany else { return nil }
        let mapping = schema.mapping(destination)
        guard inverse.slot >= 0, inverse.slot < mapping.columnBySlot.count else { return nil }
        let column = mapping.columnBySlot[inverse.slot]
        guard column >= 0 else { return nil }
        let table = schema.tables[mapping.tableIndex]
        let inner = makeScope(destination)
        return ("\(table.sql) \(inner.alias)", "\(inner.alias).\(table.columns[column].sql) = \(path.owner.alias).Z_PK", inner)
    }

    private mutating func memberValue(_ rest: [String], _ scope: Scope, _ context: Context) -> Resolved? {
        if rest.isEmpty { return .operand(Operand(sql: "\(scope.alias).Z_PK", kind: .identity, entity: scope.entity)) }
        var inner = context
        inner.current = scope
        return resolve(rest, in: scope, inner)
    }

    // MARK: Comparisons of two operands

    private mutating func compare(_ l: Operand, _ op: ComparisonOperator, _ r: Operand, _ options: StringCompareOptions) -> String? {
        let folding = options.subtracting(.normalized)
        switch op {
        case .equal, .notEqual:
            let negate = op == .notEqual
            if l.kind == .null || r.kind == .null {
                if l.kind == .null && r.kind == .null { return negate ? no : yes }
                let other = l.kind == .null ? r : l
                guard let sql = value(other) else { return nil }
                return "\(sql) IS \(negate ? "NOT " : "")NULL"
            }
            // Decimals, UUIDs, URIs and data are stored in forms SQL cannot compare exactly.
            if l.kind == .other || r.kind == .other { return nil }
            guard l.kind == r.kind else {
                // Values of different kinds are never equal in memory.
                return negate ? yes : no
            }
            if l.kind == .identity, let a = l.entity, let b = r.entity, a.rootEntity !== b.rootEntity {
                return negate ? yes : no
            }
            if l.kind == .string && !folding.isEmpty && dialect == .postgreSQL {
                return r.constant != nil ? foldedSuperset(op, text: l, pattern: r, folding) : foldedSuperset(op, text: r, pattern: l, folding)
            }
            guard let a = value(l), let b = value(r) else { return nil }
            if l.kind == .string && !folding.isEmpty {
                var equal = "og_str(0, \(folding.rawValue), \(a), \(b)) = 1"
                // Two columns that are both nil are equal; a constant here is never nil.
                if l.constant == nil && r.constant == nil { equal = "(\(equal) OR (\(a) IS NULL AND \(b) IS NULL))" }
                return negate ? "NOT (\(equal))" : equal
            }
            return dialect.same(a, b, negate: negate)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if l.kind == .null || r.kind == .null { return no }
            if l.kind == .string, r.kind == .string, !folding.isEmpty, dialect == .postgreSQL { return foldedSuperset(op, text: l, pattern: r, folding) }
            guard l.kind == r.kind, [.number, .string, .date].contains(l.kind), let a = value(l), let b = value(r) else { return nil }
            if l.kind == .string && dialect == .postgreSQL {
                // Code-point order, as SQLite's BINARY and the evaluator compare.
                return "\(a) COLLATE \"C\" \(op.rawValue) \(b)"
            }
            if l.kind == .string && !folding.isEmpty {
                return "og_str(6, \(folding.rawValue), \(a), \(b)) \(op.rawValue) 0"
            }
            return "\(a) \(op.rawValue) \(b)"
        case .between:
            guard case .collection(let bounds)? = r.constant, bounds.count == 2,
                let lo = constantOperand(bounds[0]), let hi = constantOperand(bounds[1]),
                let low = compare(l, .greaterThanOrEqual, lo, options), let high = compare(l, .lessThanOrEqual, hi, options)
            else { return nil }
            return "(\(low)) AND (\(high))"
        case .in:
            if l.kind == .string, r.kind == .string {
                if dialect == .postgreSQL { return folding.isEmpty ? plainStringOperation(.contains, r, l) : foldedSuperset(.contains, text: r, pattern: l, folding) }
                guard let a = value(l), let b = value(r) else { return nil }
                return "og_str(3, \(folding.rawValue), \(b), \(a)) = 1"
            }
            if case .scalar(.null)? = r.constant { return no }
            guard case .collection(let members)? = r.constant ?? nil else { return nil }
            if l.kind == .null { return members.contains { $0.isNull } ? yes : no }
            var alternatives: [String] = []
            for m in members {
                guard let o = constantOperand(m) else { return nil }
                if o.kind != .null && o.kind != l.kind { continue }
                guard let s = compare(l, .equal, o, options) else { return nil }
                alternatives.append("(\(s))")
            }
            return alternatives.isEmpty ? no : alternatives.joined(separator: " OR ")
        case .contains:
            if l.kind == .string, r.kind == .string {
                if dialect == .postgreSQL { return folding.isEmpty ? plainStringOperation(.contains, l, r) : foldedSuperset(.contains, text: l, pattern: r, folding) }
                guard let a = value(l), let b = value(r) else { return nil }
                return "og_str(3, \(folding.rawValue), \(a), \(b)) = 1"
            }
            if l.kind == .null { return no }
            return nil
        case .beginsWith, .endsWith, .like, .matches:
            if l.kind == .null || r.kind == .null { return no }
            if dialect == .postgreSQL {
                guard l.kind == .string, r.kind == .string else { return nil }
                if op == .matches { return folding.isEmpty ? literalPrefixSuperset(text: l, pattern: r) : nil }
                guard folding.isEmpty else { return foldedSuperset(op, text: l, pattern: r, folding) }
                return plainStringOperation(op == .beginsWith ? .beginsWith : op == .endsWith ? .endsWith : .like, l, r)
            }
            guard l.kind == .string, r.kind == .string, let a = value(l), let b = value(r) else { return nil }
            let code: SQLiteFunctions.StringOperation =
                op == .beginsWith ? .beginsWith : op == .endsWith ? .endsWith : op == .like ? .like : .matches
            return "og_str(\(code.rawValue), \(folding.rawValue), \(a), \(b)) = 1"
        }
    }

    /// The SQL of an operand, binding a constant.
    mutating func value(_ o: Operand) -> String? {
        guard let c = o.constant else { return o.sql }
        switch c {
        case .scalar(let v):
            switch v {
            case .null: return "NULL"
            case .integer, .double: bindings.append(v)
            case .boolean(let b): bindings.append(.integer(b ? 1 : 0))
            case .string: bindings.append(v)
            case .date(let d): bindings.append(.double(d.timeIntervalSinceReferenceDate))
            default: return nil
            }
            return "?"
        case .object(let entity as EntityDescription):
            // An entity this store does not number is no row's entity.
            bindings.append(.integer(schemaEntity(named: entity.name).map { Int64(schema.number($0)) } ?? -1))
            return "?"
        case .object(let object):
            // An unsaved object, or an ID of another store, is no stored row: 0 is never a Z_PK.
            bindings.append(.integer(storedRow(object)?.primaryKey ?? 0))
            return "?"
        default: return nil
        }
    }

    private func constantOperand(_ v: PredicateValue) -> Operand? {
        switch v {
        case .scalar(let s):
            let kind: Kind
            switch s {
            case .null: kind = .null
            case .integer, .double, .boolean: kind = .number
            case .string: kind = .string
            case .date: kind = .date
            default: kind = .other
            }
            return Operand(sql: "", kind: kind, constant: v)
        case .object(is EntityDescription):
            return Operand(sql: "", kind: .entity, constant: v)
        case .object(let o):
            // An unsaved object is no stored row: it binds a key no row has (see `value`).
            return Operand(sql: "", kind: .identity, constant: v, entity: storedRow(o)?.entity)
        case .collection:
            return Operand(sql: "", kind: .other, constant: v)
        case .dictionary:
            return nil
        }
    }

    /// The stored row an object or object-ID constant is in this store, if it is one.
    private func storedRow(_ o: any KeyValueReading) -> (entity: EntityDescription, primaryKey: Int64)? {
        let ref = o.objectReference
        // An object or ID of another store is no row of this one.
        if let mine = storeIdentifier, let theirs = ref?.storeIdentifier, mine != theirs { return nil }
        guard o is any ObjectIDConstant else { return o.storedIdentity }
        guard let ref, ref.temporaryURI == nil, ref.primaryKey > 0 else { return nil }
        guard let entity = schemaEntity(named: ref.entityName) else { return nil }
        return (entity, ref.primaryKey)
    }

    /// This store's entity of a name (constants may come from another copy of the model).
    private func schemaEntity(named name: String) -> EntityDescription? {
        schema.entityByNumber.values.first { $0.name == name }
    }

    // MARK: Expressions

    private mutating func operand(_ e: ObjectExpression, _ context: Context) -> Operand? {
        guard case .operand(let o)? = expression(e, context) else { return nil }
        return o
    }

    private mutating func expression(_ e: ObjectExpression, _ context: Context) -> Resolved? {
        if let constant = Self.constantValue(e) { return constantOperand(constant).map { .operand($0) } }
        switch e {
        case .evaluatedObject:
            let s = context.current
            return .operand(Operand(sql: "\(s.alias).Z_PK", kind: .identity, entity: s.entity))
        case .keyPath(let base, let path):
            let components = KeyPath.components(path)
            switch base {
            case nil:
                return resolve(components, in: context.current, context)
            case .variable(let v)?:
                guard let scope = context.variables[v] else { return nil }
                return resolve(components, in: scope, context)
            case .subquery(let collection, let variable, let p)?:
                guard components == ["@count"], case .toMany(let path)? = expression(collection, context) , path.rest.isEmpty,
                    let (from, link, inner) = subqueryScope(path)
                else { return nil }
                // Plain key paths inside SUBQUERY read the outer object; only the variable is the member.
                var innerContext = context
                innerContext.variables[variable] = inner
                guard let condition = predicate(p, innerContext) else { return nil }
                let sql = "(SELECT COUNT(*) FROM \(from) \(inner.joins.joined(separator: " ")) WHERE \(link) AND (\(condition)))"
                return .operand(Operand(sql: sql, kind: .number))
            default:
                return nil
            }
        case .variable(let v):
            guard let scope = context.variables[v] else { return nil }
            return .operand(Operand(sql: "\(scope.alias).Z_PK", kind: .identity, entity: scope.entity))
        default:
            return nil
        }
    }

    /// The value of an expression that reads nothing from the object, computed now.
    static func constantValue(_ e: ObjectExpression) -> PredicateValue? {
        guard e.isConstant else { return nil }
        return try? e.evaluate(with: .null)
    }

    /// Walks a key path from `scope`: to-one relationships become joins; the path ends at
    /// an attribute column, a to-one (its foreign key) or a to-many (with the rest of the path).
    private mutating func resolve(_ components: [String], in start: Scope, _ context: Context) -> Resolved? {
        let scope = start
        var alias = start.alias
        var entity = start.entity
        var i = 0
        while i < components.count {
            let key = components[i]
            let last = i == components.count - 1
            // A key only a subentity declares: its column is in the hierarchy's one table,
            // NULL in the rows of entities without it.
            if entity.slot(forKey: key) == nil, let sub = entity.subentity(declaring: key) { entity = sub }
            guard let slot = entity.slot(forKey: key) else {
                // `entity` is the row's own entity (unless a property takes the name).
                guard key == "entity", last else { return nil }
                return .operand(Operand(sql: "\(alias).Z_ENT", kind: .entity))
            }
            let mapping = schema.mapping(entity)
            let column = mapping.columnBySlot[slot]
            let table = schema.tables[mapping.tableIndex]
            switch entity.layout.kinds[slot] {
            case .attribute(let type):
                guard last, column >= 0 else { return nil }
                return .operand(Operand(sql: "\(alias).\(table.columns[column].sql)", kind: Self.kind(type)))
            case .toOne(let r):
                guard column >= 0, let destination = r.destinationEntity else { return nil }
                let fk = "\(alias).\(table.columns[column].sql)"
                if last { return .operand(Operand(sql: fk, kind: .identity, entity: destination)) }
                let joinKey = alias + "." + key
                if let j = scope.joined[joinKey] {
                    alias = j.alias
                } else {
                    let joinAlias = "t\(aliasCount)"
                    aliasCount += 1
                    scope.joins.append("LEFT JOIN \(schema.table(destination).sql) \(joinAlias) ON \(joinAlias).Z_PK = \(fk)")
                    scope.joined[joinKey] = (joinAlias, destination)
                    alias = joinAlias
                }
                entity = destination
            case .toMany(let r):
                let owner = alias == scope.alias ? scope : Scope(alias: alias, entity: entity)
                let rest = Array(components[(i + 1)...])
                let path = ToMany(owner: owner, relationship: r, rest: rest)
                if let op = rest.first, KeyPath.isCollectionOperator(op) { return aggregate(path, op, Array(rest.dropFirst()), context) }
                return .toMany(path)
            }
            i += 1
        }
        return nil
    }

    /// `tomany.@count`, `tomany.@sum.x`, `@avg`, `@min`, `@max` as scalar subqueries.
    private mutating func aggregate(_ path: ToMany, _ op: String, _ rest: [String], _ context: Context) -> Resolved? {
        guard let (from, link, inner) = subqueryScope(path) else { return nil }
        if op == "@count" {
            guard rest.isEmpty else { return nil }
            return .operand(Operand(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link))", kind: .number))
        }
        guard case .operand(let member)? = memberValue(rest, inner, context) else { return nil }
        let joins = inner.joins.joined(separator: " ")
        switch op {
        case "@sum":
            guard member.kind == .number else { return nil }
            return .operand(Operand(sql: "(SELECT COALESCE(SUM(\(member.sql)), 0) FROM \(from) \(joins) WHERE \(link))", kind: .number))
        case "@avg":
            guard member.kind == .number else { return nil }
            return .operand(Operand(sql: "(SELECT AVG(\(member.sql)) FROM \(from) \(joins) WHERE \(link))", kind: .number))
        case "@min", "@max":
            guard [.number, .string, .date].contains(member.kind) else { return nil }
            let f = op == "@min" ? "MIN" : "MAX"
            return .operand(Operand(sql: "(SELECT \(f)(\(member.sql)) FROM \(from) \(joins) WHERE \(link))", kind: member.kind))
        default:
            return nil
        }
    }

    private static func kind(_ type: AttributeType) -> Kind {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: .number
        case .string: .string
        case .date: .date
        default: .other
        }
    }
}
