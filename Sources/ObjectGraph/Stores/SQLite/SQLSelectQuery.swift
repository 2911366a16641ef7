/// The parts of a SELECT for a fetch request over Core Data's tables (table alias `t0`):
/// joins, WHERE (entity and predicate), ORDER BY, bindings, and whether SQL expresses the
/// predicate and the order exactly. Written once for every store that queries in SQL.
struct SQLSelectQuery {
    var joins = ""
    var whereClause = ""
    var orderClause = ""
    var bindings: [AttributeValue] = []
    var predicateIsExact = true
    var orderIsExact = true
    var isExact: Bool { predicateIsExact && orderIsExact }
    /// No ORDER BY: the rows are put in primary-key order once read.
    var ordersByKeyAfterReading = false

    init(_ request: FetchRequest, entity: EntityDescription, schema: SQLiteSchema, storeIdentifier: String, dialect: SQLDialect) {
        var translator = SQLPredicateTranslator(schema: schema, storeIdentifier: storeIdentifier, dialect: dialect)
        let scope = translator.makeScope(entity)
        var conditions: [String] = []
        if let condition = schema.entityCondition(entity, includesSubentities: request.includesSubentities) { conditions.append(condition) }
        if let predicate = request.predicate {
            let (sql, exact) = translator.whereCondition(predicate, scope)
            if let sql { conditions.append("(\(sql))") }
            predicateIsExact = exact
        }
        var terms: [String] = []
        for key in request.sortKeys {
            guard let term = translator.orderTerm(key, scope) else { orderIsExact = false; break }
            terms.append(term)
        }
        if terms.isEmpty && orderIsExact && request.fetchLimit == 0 && request.fetchOffset == 0 {
            // Unsorted and unwindowed: results still come in primary-key order, but sorted
            // after reading. SQLite's ORDER BY on rows found through an index copies each
            // whole row into its sorter (about a quarter of a 10,000-row indexed fetch), and a
            // table scan or an index following the keys needs no sorting at all.
            ordersByKeyAfterReading = true
        } else if orderIsExact {
            terms.append("t0.Z_PK ASC")
            orderClause = " ORDER BY " + terms.joined(separator: ", ")
        }
        joins = scope.joins.joined(separator: " ")
        if !conditions.isEmpty { whereClause = " WHERE " + conditions.joined(separator: " AND ") }
        bindings = translator.bindings
    }

    /// The LIMIT and OFFSET of `request`'s window, when SQL answers alone ("" otherwise).
    func window(_ request: FetchRequest, dialect: SQLDialect) -> String {
        guard isExact, request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        let limit = request.fetchLimit > 0 ? String(request.fetchLimit) : (dialect == .sqlite ? "-1" : "ALL")
        return " LIMIT \(limit) OFFSET \(request.fetchOffset)"
    }
}
