import FoundationEssentials

/// Dictionary results and object IDs for stores that keep rows in memory (and for the
/// SQLite store when SQL cannot express a request exactly): the rows are filtered,
/// sorted, projected, grouped and aggregated here, with the same rules as the SQL path.
extension PersistentStore {
    public func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        try MemoryAggregation.fetch(request, entity: entity, store: self)
    }

    public func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]? {
        let result = try fetchRows(MemoryAggregation.rowRequest(request, window: true), entity: entity)
        guard result.isExact else { return nil }
        return result.rows.map { ($0.entity, $0.primaryKey) }
    }
}

enum MemoryAggregation {
    /// The part of a request that selects rows: entity, predicate, order and (optionally) window.
    static func rowRequest(_ request: FetchRequest, window: Bool) -> FetchRequest {
        let r = FetchRequest(entityName: request.entityName, predicate: request.predicate, sortKeys: rowSortKeys(request))
        r.includesSubentities = request.includesSubentities
        if window {
            r.fetchLimit = request.fetchLimit
            r.fetchOffset = request.fetchOffset
        }
        return r
    }

    /// The sort keys rows can be ordered by. Rows have no fetched expressions: sorting by
    /// one happens on the results.
    static func rowSortKeys(_ request: FetchRequest) -> [SortKey] {
        var expressions: Set<String> = []
        for case .expression(let d) in request.propertiesToFetch ?? [] { expressions.insert(d.name) }
        return request.sortKeys.filter { !expressions.contains($0.key) }
    }

    static func fetch(_ request: FetchRequest, entity: EntityDescription, store: PersistentStore) throws(ObjectGraphError) -> [[StoreValue]] {
        let plan = try DictionaryPlan.make(request, entity)
        let source = RowSource(store: store)
        let result = try store.fetchRows(rowRequest(request, window: false), entity: entity)
        let readers = try matching(result, request, source)
        return try finish(plan, try evaluate(plan, readers), request: request, windowApplied: false)
    }

    /// The rows that satisfy the predicate, in the order of the sort keys (ties by primary key).
    static func matching(_ result: StoreFetchResult, _ request: FetchRequest, _ source: RowSource) throws(ObjectGraphError) -> [RowReader] {
        var readers = result.rows.map(source.reader)
        if result.isExact { return readers }
        if let p = request.predicate {
            var kept: [RowReader] = []
            for r in readers where try p.evaluate(with: .object(r)) { kept.append(r) }
            readers = kept
        }
        let keys = rowSortKeys(request)
        return try InMemoryFetch.sort(
            readers, by: keys,
            values: { (r) throws(ObjectGraphError) in
                var values: [AttributeValue] = []
                for k in keys { values.append(try InMemoryFetch.sortValue(k.key, of: r)) }
                return values
            },
            tie: { r, _ in .stored(primaryKey: r.row.primaryKey, store: "") })
    }

    // MARK: Rows to dictionaries

    /// One row of raw values per result (or per group), every column of the plan, in the
    /// plan's order.
    static func evaluate(_ plan: DictionaryPlan, _ readers: [RowReader]) throws(ObjectGraphError) -> [[StoreValue]] {
        var rows: [[StoreValue]] = []
        if !plan.isAggregating {
            for r in readers {
                var row: [StoreValue] = []
                for c in plan.columns { row.append(try value(c, of: r)) }
                rows.append(row)
            }
        } else {
            // Groups in the order their first row comes in.
            var groups: [[RowReader]] = []
            var index: [DistinctKey: Int] = [:]
            if plan.groupColumns.isEmpty { groups = [readers] }
            for r in readers where !plan.groupColumns.isEmpty {
                var key: [StoreValue] = []
                for g in plan.groupColumns { key.append(try value(plan.columns[g], of: r)) }
                let k = DistinctKey(key)
                if let i = index[k] { groups[i].append(r) } else {
                    index[k] = groups.count
                    groups.append([r])
                }
            }
            for g in groups {
                var row: [StoreValue] = []
                for c in plan.columns {
                    if c.isAggregate, case .expression(let e) = c.source {
                        row.append(try column(ExpressionValues.evaluate(e, row: g.first.map { .object($0) } ?? .null, group: g), c.name))
                    } else if let first = g.first {
                        row.append(try value(c, of: first))
                    } else {
                        row.append(.null)
                    }
                }
                rows.append(row)
            }
        }
        if plan.isDistinct { rows = distinct(rows, plan.visibleCount) }
        if plan.isDistinct || plan.isAggregating { rows = order(rows, plan) }
        return rows
    }

    /// A column's value for one row.
    static func value(_ c: DictionaryPlan.Column, of r: RowReader) throws(ObjectGraphError) -> StoreValue {
        switch c.source {
        case .attribute(let path, let a):
            if path == a.name, let slot = r.row.entity.slot(forKey: path), slot < r.row.count { return .value(r.row[slot]) }
            return try column(try PredicateEvaluator.read(path, from: .object(r)), c.name)
        case .toOne(let path, let rel):
            if path == rel.name, let d = rel.destinationEntity, d.subentities.isEmpty, let slot = r.row.entity.slot(forKey: path), slot < r.row.count {
                guard case .integer(let k) = r.row[slot] else { return .null }
                return .row(d, k)
            }
            return try column(try PredicateEvaluator.read(path, from: .object(r)), c.name)
        case .expression(let e):
            return try column(try ExpressionValues.evaluate(e, row: .object(r), group: nil), c.name)
        }
    }

    /// A predicate value as a column value: one value, or the identity of one row.
    static func column(_ v: PredicateValue, _ name: String) throws(ObjectGraphError) -> StoreValue {
        switch v {
        case .scalar(let s): return .value(s)
        case .object(let o):
            guard let id = o.storedIdentity else { return .null }
            return .row(id.entity, id.primaryKey)
        case .collection, .dictionary:
            throw .predicateEvaluation("'\(name)' gives a \(v.kindName), but a column of a dictionary result holds one value (use an aggregate such as sum:(…) or count:(…))")
        }
    }

    /// Rows without repeats, the first of each kept.
    static func distinct(_ rows: [[StoreValue]], _ count: Int) -> [[StoreValue]] {
        var seen = Set<DistinctKey>()
        return rows.filter { seen.insert(DistinctKey(Array($0.prefix(count)))).inserted }
    }

    /// Distinct rows and groups in the order of the sort keys, then of their values (as the
    /// SQL path orders them).
    static func order(_ rows: [[StoreValue]], _ plan: DictionaryPlan) -> [[StoreValue]] {
        let keys = plan.sortKeys + plan.tieColumns.map { _ in SortKey("") }
        let columns = plan.sortColumns + plan.tieColumns
        return rows.sorted { a, b in
            InMemoryFetch.compare(columns.map { a[$0].orderValue }, columns.map { b[$0].orderValue }, keys) < 0
        }
    }

    // MARK: After the rows: types, having, window

    /// Converts computed columns to their result types, keeps the groups the having
    /// predicate accepts, applies the window (unless SQL did) and drops hidden columns.
    static func finish(_ plan: DictionaryPlan, _ raw: [[StoreValue]], request: FetchRequest, windowApplied: Bool) throws(ObjectGraphError) -> [[StoreValue]] {
        var rows = raw.map { row in
            zip(row, plan.columns).map { v, c in
                if case .expression = c.source { return ResultTyping.convert(v, to: c.type) }
                return v
            }
        }
        if let having = plan.having {
            var kept: [[StoreValue]] = []
            for row in rows {
                var variables: [String: PredicateValue] = [:]
                for (v, c) in zip(row, plan.columns) { variables[c.name] = v.predicateValue }
                if try having.evaluate(with: .null, variables: variables) { kept.append(row) }
            }
            rows = kept
        }
        if !windowApplied { rows = InMemoryFetch.window(rows, offset: request.fetchOffset, limit: request.fetchLimit) }
        if plan.columns.count > plan.visibleCount { rows = rows.map { Array($0.prefix(plan.visibleCount)) } }
        return rows
    }
}

/// Values compared as SQLite's DISTINCT and GROUP BY compare them: strings by bytes,
/// numbers by value (1 and 1.0 are one value), dates and booleans as the numbers stored.
struct DistinctKey: Hashable {
    private enum Part: Hashable {
        case null, integer(Int64), double(Double), bytes([UInt8]), other(AttributeValue), row(ObjectIdentifier, Int64)
    }
    private let parts: [Part]

    init(_ values: [StoreValue]) {
        parts = values.map { v in
            switch v {
            case .row(let e, let k): return .row(ObjectIdentifier(e.rootEntity), k)
            case .value(let a):
                switch a {
                case .null: return .null
                case .integer(let i): return .integer(i)
                case .boolean(let b): return .integer(b ? 1 : 0)
                case .double(let d): return Self.number(d)
                case .date(let d): return Self.number(d.timeIntervalSinceReferenceDate)
                case .string(let s): return .bytes(Array(s.utf8))
                default: return .other(a)
                }
            }
        }
    }

    private static func number(_ d: Double) -> Part {
        if d.rounded() == d, Swift.abs(d) < 9.2e18 { return .integer(Int64(d)) }
        return .double(d)
    }
}

/// Evaluates the expressions of expression descriptions with SQL's rules, so that memory
/// and SQLite agree: arithmetic with nil, and division by zero, give nil (the predicate
/// evaluator raises instead); aggregates (`sum:(x)`) run over the rows of a group,
/// skipping nil values.
enum ExpressionValues {
    static let arithmetic: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:"]

    static func evaluate(_ e: ObjectExpression, row: PredicateValue, group: [RowReader]?) throws(ObjectGraphError) -> PredicateValue {
        if let group, DictionaryPlan.isAggregateNode(e), case .function(let selector, let args) = e {
            var values: [PredicateValue] = []
            for r in group {
                let v = try evaluate(args[0], row: .object(r), group: nil)
                if let elements = v.elements { values += elements.filter { !$0.isNull } } else if !v.isNull { values.append(v) }
            }
            return try aggregate(selector, values)
        }
        switch e {
        case .constant(let v): return v
        case .function(let selector, let args):
            var values: [PredicateValue] = []
            for a in args { values.append(try evaluate(a, row: row, group: group)) }
            if arithmetic.contains(selector) {
                if values.contains(where: \.isNull) { return .null }
                if selector == "divide:by:" || selector == "modulus:by:", case .scalar(let d) = values[1], ValueComparison.number(d) == 0 { return .null }
                return try PredicateFunctions.arithmetic(selector, values[0], values[1])
            }
            return try PredicateFunctions.call(selector, values)
        default:
            return try e.evaluate(with: row)
        }
    }

    /// An aggregate over non-nil values, as SQLite computes it: integers sum as integers
    /// (as a double once they overflow), any double makes the sum a double; an empty sum is 0
    /// and an empty average, minimum or maximum nil.
    static func aggregate(_ selector: String, _ values: [PredicateValue]) throws(ObjectGraphError) -> PredicateValue {
        switch selector {
        case "count:":
            return .scalar(.integer(Int64(values.count)))
        case "sum:", "average:":
            var integerSum: Int64 = 0, doubleSum = 0.0
            var approximate = false, overflow = false
            for v in values {
                guard case .scalar(let s) = v, let d = ValueComparison.number(s) else {
                    throw .predicateEvaluation("\(selector) adds numbers, got \(v.kindName.withArticle)")
                }
                doubleSum += d
                let whole: Int64?
                switch s {
                case .integer(let i): whole = i
                case .boolean(let b): whole = b ? 1 : 0
                default: whole = nil
                }
                if let whole {
                    if !approximate && !overflow {
                        let (r, o) = integerSum.addingReportingOverflow(whole)
                        if o { overflow = true } else { integerSum = r }
                    }
                } else {
                    approximate = true
                }
            }
            if selector == "average:" {
                return values.isEmpty ? .null : .scalar(.double(doubleSum / Double(values.count)))
            }
            return approximate || overflow ? .scalar(.double(doubleSum)) : .scalar(.integer(integerSum))
        default:
            return try PredicateFunctions.statistic(selector, values)
        }
    }
}
