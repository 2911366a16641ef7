/// Dictionary fetches that aggregate every matching row into one (`count:`, `sum:` of
/// integers, `min:` and `max:` of numbers, dates and strings, no grouping) run on the
/// server: one row comes back instead of every matching one. The server computes these
/// exactly as the engine does (integer sums exactly, strings by code point); everything
/// else — grouping, distinct, averages, sums of doubles (whose rounding depends on the
/// order of the rows), arithmetic — is computed by the engine over the fetched rows.
extension PostgreSQLStore {
    public func fetchDictionaries(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [[StoreValue]] {
        let plan = try DictionaryPlan.make(request, entity)
        guard schema.isStored(entity), let query = totalsQuery(plan, request, entity) else {
            return try MemoryAggregation.fetch(request, entity: entity, store: self)
        }
        let rows = try open().query(query.sql, Self.parameters(query.bindings))
        var row: [StoreValue] = []
        for (i, kind) in query.kinds.enumerated() {
            let column = Int32(i)
            row.append(rows.count == 0 || rows.isNull(0, column) ? .null : .value(Self.value(rows, 0, column, kind)))
        }
        return try MemoryAggregation.finish(plan, [row], request: request, windowApplied: false)
    }

    /// The SELECT of a totals-only request and how to read each column; nil when the
    /// request needs more than the server computes exactly.
    func totalsQuery(_ plan: DictionaryPlan, _ request: FetchRequest, _ entity: EntityDescription)
        -> (sql: String, bindings: [AttributeValue], kinds: [SQLiteStore.ColumnKind])?
    {
        guard plan.isAggregating, plan.groupColumns.isEmpty, !plan.isDistinct, plan.having == nil else { return nil }
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: identifier, dialect: .postgreSQL)
        let scope = translator.makeScope(entity)
        var select: [String] = []
        var kinds: [SQLiteStore.ColumnKind] = []
        for column in plan.columns {
            guard column.isAggregate, case .expression(.function(let selector, let args)) = column.source, args.count == 1 else { return nil }
            if selector == "count:", case .evaluatedObject = args[0] {
                select.append("COUNT(*)")
                kinds.append(.integer)
                continue
            }
            guard case .keyPath(nil, let path) = args[0], !path.contains("@"), let sql = translator.keyPathColumn(path, scope),
                let attribute = entity.attribute(atEndOf: path)
            else { return nil }
            let type = attribute.attributeType
            let integer: Set<AttributeType> = [.integer16, .integer32, .integer64]
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
        return ("SELECT \(select.joined(separator: ", ")) FROM \(from)\(whereClause)", translator.bindings, kinds)
    }

}
