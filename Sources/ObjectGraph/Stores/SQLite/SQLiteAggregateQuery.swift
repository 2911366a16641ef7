import CSQLite
import FoundationEssentials

/// Dictionary results and object IDs in SQL. Columns, aggregates, DISTINCT and GROUP BY
/// become one SELECT when every part of the request translates exactly; otherwise the
/// store hands the request to the in-memory path, which gives the same results.
extension SQLiteStore {
    public func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        let plan = try DictionaryPlan.make(request, entity)
        guard let query = aggregateQuery(plan, request, entity) else {
            return try MemoryAggregation.fetch(request, entity: entity, store: self)
        }
        let db = try open()
        let s = try db.prepare(query.sql)
        try s.bind(queryValues: query.bindings)
        var rows: [[StoreValue]] = []
        try s.forEachRow { s in
            var row: [StoreValue] = []
            row.reserveCapacity(query.readers.count)
            for (i, reader) in query.readers.enumerated() { row.append(read(s, Int32(i), reader)) }
            rows.append(row)
        }
        return try MemoryAggregation.finish(plan, rows, request: request, windowApplied: query.windowApplied)
    }

    /// Only Z_PK and Z_ENT, when the predicate and order translate exactly.
    public func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]? {
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: identifier)
        let scope = translator.makeScope(entity)
        var terms: [String] = []
        for key in request.sortKeys {
            guard let term = translator.orderTerm(key, scope) else { return nil }
            terms.append(term)
        }
        terms.append("t0.Z_PK ASC")
        guard let base = baseQuery(request, entity, &translator, scope) else { return nil }
        var sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(base.from)\(base.whereClause) ORDER BY \(terms.joined(separator: ", "))"
        sql += window(request)
        let db = try open()
        let s = try db.prepare(sql)
        try s.bind(queryValues: translator.bindings)
        var ids: [(entity: EntityDescription, primaryKey: Int64)] = []
        try s.forEachRow { s throws(ObjectGraphError) in
            let number = Int(s.int64(1))
            guard let concrete = schema.entityByNumber[number] else {
                throw ObjectGraphError(code: ErrorCode.storeIncompatibleSchema, message: "a row of \(schema.table(entity).name) has the unknown entity number \(number)")
            }
            ids.append((concrete, s.int64(0)))
        }
        return ids
    }

    /// The SQL a dictionary fetch runs, or nil when it runs in memory (for tests and diagnostics).
    func explainDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> String? {
        aggregateQuery(try DictionaryPlan.make(request, entity), request, entity)?.sql
    }

    // MARK: Building the SELECT

    /// How one result column is read back.
    enum ColumnReader {
        case typed(ColumnKind)
        /// SQLite's own type decides (computed values).
        case dynamic
        /// A foreign key; the concrete entity is fixed or read from another column.
        case identity(EntityDescription, entityColumn: Int32?)
    }

    struct AggregateQuery {
        var sql: String
        var bindings: [AttributeValue]
        var readers: [ColumnReader]
        var windowApplied: Bool
    }

    private struct Compiled {
        var sql: String
        var type: AttributeType
        /// A key path to an attribute: read with the attribute's column kind.
        var attribute: AttributeDescription?
        /// A key path to a to-one: the destination.
        var destination: EntityDescription?
    }

    private func aggregateQuery(_ plan: DictionaryPlan, _ request: FetchRequest, _ entity: EntityDescription) -> AggregateQuery? {
        if plan.isDistinct && plan.isAggregating && plan.columns.count > plan.visibleCount { return nil }
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: identifier)
        let scope = translator.makeScope(entity)
        var select: [String] = []
        var readers: [ColumnReader] = []
        var extra: [(sql: String, reader: Int)] = []
        for c in plan.columns {
            let compiled: Compiled?
            switch c.source {
            case .attribute(let path, let a):
                compiled = translator.keyPathColumn(path, scope).map { Compiled(sql: $0, type: a.attributeType, attribute: a) }
            case .toOne(let path, let r):
                compiled = translator.keyPathColumn(path, scope).map { Compiled(sql: $0, type: .objectID, destination: r.destinationEntity) }
            case .expression(let e):
                compiled = compile(e, entity, &translator, scope, aggregates: c.isAggregate)
            }
            guard let compiled else { return nil }
            select.append(compiled.sql)
            if let d = compiled.destination {
                if d.subentities.isEmpty {
                    readers.append(.identity(d, entityColumn: nil))
                } else {
                    extra.append(("(SELECT d.Z_ENT FROM \(schema.table(d).sql) d WHERE d.Z_PK = \(compiled.sql))", readers.count))
                    readers.append(.identity(d, entityColumn: nil))
                }
            } else if let a = compiled.attribute {
                readers.append(.typed(ColumnKind(a)))
            } else {
                readers.append(.dynamic)
            }
        }
        for (sql, reader) in extra {
            guard case .identity(let d, _) = readers[reader] else { continue }
            readers[reader] = .identity(d, entityColumn: Int32(select.count))
            select.append(sql)
        }
        // Sort terms only join; the WHERE binds after the columns, in the order of the text.
        var sortTerms: [String] = []
        for (n, key) in plan.sortKeys.enumerated() {
            // A fetched expression sorts by its result column's position.
            if n < plan.sortColumns.count, case .expression = plan.columns[plan.sortColumns[n]].source {
                sortTerms.append("\(plan.sortColumns[n] + 1) \(key.ascending ? "ASC" : "DESC")")
                continue
            }
            guard let term = translator.orderTerm(key, scope) else { return nil }
            sortTerms.append(term)
        }
        guard let base = baseQuery(request, entity, &translator, scope) else { return nil }
        var sql = "SELECT \(plan.isDistinct ? "DISTINCT " : "")\(select.joined(separator: ", ")) FROM \(base.from)\(base.whereClause)"
        let grouped = !plan.groupColumns.isEmpty
        if grouped { sql += " GROUP BY " + plan.groupColumns.map { String($0 + 1) }.joined(separator: ", ") }
        if !plan.isAggregating || grouped {
            let ties = plan.isDistinct || grouped ? plan.tieColumns.map { String($0 + 1) } : ["t0.Z_PK ASC"]
            sql += " ORDER BY " + (sortTerms + ties).joined(separator: ", ")
        }
        // A having predicate runs on the typed rows, so the window waits for it.
        let windowed = plan.having == nil
        if windowed { sql += window(request) }
        return AggregateQuery(sql: sql, bindings: translator.bindings, readers: readers, windowApplied: windowed)
    }

    /// The FROM (with the joins key paths needed) and WHERE of a request, or nil when its
    /// predicate does not translate exactly. Columns are translated before this, so their
    /// joins and bindings come first.
    private func baseQuery(_ request: FetchRequest, _ entity: EntityDescription, _ translator: inout SQLPredicateTranslator,
                           _ scope: SQLPredicateTranslator.Scope) -> (from: String, whereClause: String)? {
        let (whereClause, exact) = translator.whereClause(request, scope)
        guard exact else { return nil }
        // Joins are complete only once the predicate is translated: read them last.
        return ("\(schema.table(entity).sql) t0 \(scope.joins.joined(separator: " "))", whereClause)
    }

    private func window(_ request: FetchRequest) -> String {
        guard request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        return " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(request.fetchOffset)"
    }

    /// An expression in SQL, when SQL computes exactly what memory does: key paths through
    /// to-ones, numeric constants and strings, + - * / on integer and floating-point
    /// numbers, and the aggregates count, sum, average, min and max.
    private func compile(_ e: ObjectExpression, _ entity: EntityDescription, _ t: inout SQLPredicateTranslator,
                         _ scope: SQLPredicateTranslator.Scope, aggregates: Bool) -> Compiled? {
        let numbers: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float]
        switch e {
        case .keyPath(nil, let path):
            guard !path.contains("@"), let sql = t.keyPathColumn(path, scope) else { return nil }
            let type = DictionaryPlan.naturalType(e, entity)
            if type == .objectID { return Compiled(sql: sql, type: type, destination: Self.toOneDestination(path, entity)) }
            return Compiled(sql: sql, type: type, attribute: entity.attribute(atEndOf: path))
        case .constant(.scalar(let v)):
            switch v {
            case .integer, .double, .string, .null:
                guard let sql = t.bindConstant(v) else { return nil }
                return Compiled(sql: sql, type: DictionaryPlan.naturalType(e, entity))
            default: return nil
            }
        case .function(let selector, let args):
            if aggregates && DictionaryPlan.isAggregateNode(e) {
                if selector == "count:", case .evaluatedObject = args[0] { return Compiled(sql: "COUNT(*)", type: .integer64) }
                guard let inner = compile(args[0], entity, &t, scope, aggregates: false), inner.destination == nil || selector == "count:" else { return nil }
                let summable = numbers.union([.boolean])
                switch selector {
                case "count:": return Compiled(sql: "COUNT(\(inner.sql))", type: .integer64)
                case "sum:":
                    guard summable.contains(inner.type) else { return nil }
                    return Compiled(sql: "COALESCE(SUM(\(inner.sql)), 0)", type: DictionaryPlan.naturalType(e, entity))
                case "average:":
                    guard summable.contains(inner.type) else { return nil }
                    return Compiled(sql: "AVG(\(inner.sql))", type: .double)
                case "min:", "max:":
                    guard summable.union([.string, .date]).contains(inner.type) else { return nil }
                    return Compiled(sql: "\(selector == "min:" ? "MIN" : "MAX")(\(inner.sql))", type: DictionaryPlan.naturalType(e, entity))
                default: return nil
                }
            }
            let operators = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/"]
            guard let op = operators[selector], args.count == 2,
                let a = compile(args[0], entity, &t, scope, aggregates: aggregates),
                let b = compile(args[1], entity, &t, scope, aggregates: aggregates),
                numbers.contains(a.type), numbers.contains(b.type)
            else { return nil }
            return Compiled(sql: "(\(a.sql) \(op) \(b.sql))", type: DictionaryPlan.naturalType(e, entity))
        default:
            return nil
        }
    }

    private static func toOneDestination(_ path: String, _ entity: EntityDescription) -> EntityDescription? {
        var current = entity
        for key in KeyPath.components(path) {
            guard let d = (current.property(named: key) as? RelationshipDescription)?.destinationEntity else { return nil }
            current = d
        }
        return current
    }

    // MARK: Reading

    private func read(_ s: SQLiteStatement, _ column: Int32, _ reader: ColumnReader) -> StoreValue {
        switch reader {
        case .typed(let kind):
            return .value(Self.read(s, column, kind))
        case .dynamic:
            switch s.type(column) {
            case SQLITE_INTEGER: return .value(.integer(s.int64(column)))
            case SQLITE_FLOAT: return .value(.double(s.double(column)))
            case SQLITE_TEXT: return .value(Self.read(s, column, .string))
            case SQLITE_BLOB: return .value(Self.read(s, column, .data))
            default: return .null
            }
        case .identity(let destination, let entityColumn):
            guard !s.isNull(column) else { return .null }
            let key = s.int64(column)
            var concrete = destination
            if let entityColumn, !s.isNull(entityColumn), let e = schema.entityByNumber[Int(s.int64(entityColumn))] {
                concrete = e
            }
            return .row(concrete, key)
        }
    }
}
