/// Dictionary fetches that fold rows run on the server: totals over every matching row
/// (`count:`, `sum:` of integers, `min:` and `max:` of numbers, dates and strings), the
/// same per group of `propertiesToGroupBy`, and distinct rows of attributes. One row per
/// group or distinct value comes back instead of every matching row. The server computes
/// these exactly as the engine does: integer sums exactly, strings by code point, groups
/// and distinct values by equal bytes and equal numbers (PostgreSQL's text equality is
/// byte equality). The engine then orders the folded rows, filters groups by the having
/// predicate and applies the window, as it does after its own grouping. Everything else —
/// averages, sums of doubles (whose rounding depends on the order of the rows), arithmetic,
/// grouping by decimals or to-ones — is computed by the engine over the fetched rows.
extension PostgreSQLStore {
    public func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        let plan = try DictionaryPlan.make(request, entity)
        guard schema.isStored(entity), let query = dictionaryQuery(plan, request, entity) else {
            return try MemoryAggregation.fetch(request, entity: entity, store: self)
        }
        let rows = try open().query(query.sql, Self.parameters(query.bindings))
        var folded: [[StoreValue]] = []
        folded.reserveCapacity(Int(rows.count))
        for r in 0..<rows.count {
            var row: [StoreValue] = []
            row.reserveCapacity(query.kinds.count)
            for (i, kind) in query.kinds.enumerated() {
                let column = Int32(i)
                row.append(rows.isNull(r, column) ? .null : .value(Self.value(rows, r, column, kind)))
            }
            folded.append(row)
        }
        // Totals over no rows are still one row (a count of 0), as in memory.
        if folded.isEmpty && plan.groupColumns.isEmpty && plan.isAggregating { folded = [query.kinds.map { _ in .null }] }
        // Distinct groups: the server groups, the engine drops repeated groups.
        if plan.isDistinct && plan.isAggregating { folded = MemoryAggregation.distinct(folded, plan.visibleCount) }
        if plan.groupColumns.count > 0 || plan.isDistinct { folded = MemoryAggregation.order(folded, plan) }
        return try MemoryAggregation.finish(plan, folded, request: request, windowApplied: false)
    }

    /// The SELECT of a request whose folding the server computes exactly, and how to read
    /// each column; nil when the request needs more than that.
    func dictionaryQuery(_ plan: DictionaryPlan, _ request: FetchRequest, _ entity: EntityDescription)
        -> (sql: String, bindings: [AttributeValue], kinds: [SQLiteStore.ColumnKind])?
    {
        // Only folded rows: plain rows are read as objects' rows are.
        guard plan.isAggregating || plan.isDistinct else { return nil }
        // Distinct rows with hidden columns keep the first row's hidden values: memory's rule.
        if plan.isDistinct && plan.columns.count > plan.visibleCount { return nil }
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: identifier, dialect: .postgreSQL)
        let scope = translator.makeScope(entity)
        var select: [String] = []
        var kinds: [SQLiteStore.ColumnKind] = []
        let integer: Set<AttributeType> = [.integer16, .integer32, .integer64]
        let groupable = integer.union([.double, .float, .date, .string, .boolean])
        for (index, column) in plan.columns.enumerated() {
            if !column.isAggregate {
                // A group-by item or a distinct column: an attribute whose equality SQL shares.
                guard plan.groupColumns.contains(index) || (plan.isDistinct && !plan.isAggregating),
                    case .attribute(let path, let attribute) = column.source, groupable.contains(attribute.attributeType),
                    let sql = translator.keyPathColumn(path, scope)
                else { return nil }
                select.append(sql)
                kinds.append(SQLiteStore.ColumnKind(attribute))
                continue
            }
            guard case .expression(.function(let selector, let args)) = column.source, args.count == 1 else { return nil }
            if selector == "count:", case .evaluatedObject = args[0] {
                select.append("COUNT(*)")
                kinds.append(.integer)
                continue
            }
            guard case .keyPath(nil, let path) = args[0], !path.contains("@"), let sql = translator.keyPathColumn(path, scope),
                let attribute = entity.attribute(atEndOf: path)
            else { return nil }
            let type = attribute.attributeType
            switch selector {
            case "count:":
                select.append("COUNT(\(sql))")
                kinds.append(.integer)
            case "sum:" where integer.contains(type):
                select.append("COALESCE(SUM(\(sql)), 0)")
                kinds.append(.integer)
            case "min:", "max:":
                guard integer.union([.double, .float, .date, .string]).contains(type) else { return nil }
                let function = selector == "min:" ? "MIN" : "MAX"
                select.append(type == .string ? "\(function)(\(sql) COLLATE \"C\")" : "\(function)(\(sql))")
                kinds.append(SQLiteStore.ColumnKind(attribute))
            default:
                return nil
            }
        }
        let (whereClause, exact) = translator.whereClause(request, scope)
        guard exact else { return nil }
        // Joins are complete only once the predicate is translated: read them last.
        let from = "\(schema.table(entity).sql) t0 \(scope.joins.joined(separator: " "))"
        var sql = "SELECT \(plan.isDistinct && !plan.isAggregating ? "DISTINCT " : "")\(select.joined(separator: ", ")) FROM \(from)\(whereClause)"
        if !plan.groupColumns.isEmpty { sql += " GROUP BY " + plan.groupColumns.map { String($0 + 1) }.joined(separator: ", ") }
        return (sql, translator.bindings, kinds)
    }
}
