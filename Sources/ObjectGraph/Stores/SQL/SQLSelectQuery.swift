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
        (whereClause, predicateIsExact) = translator.whereClause(request, scope)
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
        bindings = translator.bindings
    }

    /// The LIMIT and OFFSET of `request`'s window, when SQL answers alone ("" otherwise).
    func window(_ request: FetchRequest, dialect: SQLDialect) -> String {
        guard isExact, request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        let limit = request.fetchLimit > 0 ? String(request.fetchLimit) : (dialect == .sqlite ? "-1" : "ALL")
        return " LIMIT \(limit) OFFSET \(request.fetchOffset)"
    }
}

/// What a batch update or delete writes in one statement: the table, the condition on it
/// (`t0`) choosing the rows the request matches, and its bindings.
struct SQLSetWriteTarget {
    let table: SQLiteSchema.Table
    /// A `WITH matched(pk) AS (…)` when the predicate needs joins, else empty.
    let prefix: String
    let condition: String
    let bindings: [AttributeValue]

    /// Nil when SQL alone cannot tell which rows match, or when a written row would need
    /// derived attributes computed (`derives(entity)`), which only the row-by-row path does.
    init?(_ request: FetchRequest, entity: EntityDescription, schema: SQLiteSchema, storeIdentifier: String, dialect: SQLDialect,
          derives: (EntityDescription) -> Bool) {
        let written = schema.entityByNumber.values.filter { request.includesSubentities ? $0.isKind(of: entity) : $0 === entity }
        guard !written.contains(where: derives) else { return nil }
        let query = SQLSelectQuery(request.withoutWindow(), entity: entity, schema: schema, storeIdentifier: storeIdentifier, dialect: dialect)
        guard query.predicateIsExact else { return nil }
        table = schema.table(entity)
        bindings = query.bindings
        if query.joins.isEmpty {
            (prefix, condition) = ("", query.whereClause)
        } else {
            prefix = "WITH matched(pk) AS (SELECT t0.Z_PK FROM \(table.sql) t0 \(query.joins)\(query.whereClause)) "
            condition = " WHERE t0.Z_PK IN (SELECT pk FROM matched)"
        }
    }

    /// The UPDATE of a batch update setting `changes` (slots of `entity`) and moving each
    /// row's version on (a version at the largest integer stays there), with RETURNING when
    /// asked; its values in the order of their placeholders, each with the slot it sets (nil
    /// for the WHERE's bindings).
    func update(_ changes: [(slot: Int, value: AttributeValue)], of entity: EntityDescription, schema: SQLiteSchema, returning: Bool)
        -> (sql: String, values: [AttributeValue], slots: [Int?])
    {
        let mapping = schema.mapping(entity)
        var assignments: [String] = []
        var values: [AttributeValue] = []
        var slots: [Int?] = []
        for (slot, value) in changes {
            let c = mapping.columnBySlot[slot]
            guard c >= 0 else { continue }
            assignments.append("\(table.columns[c].sql) = ?")
            values.append(value)
            slots.append(slot)
        }
        assignments.append("Z_OPT = CASE WHEN Z_OPT >= 9223372036854775807 THEN Z_OPT ELSE COALESCE(Z_OPT, 0) + 1 END")
        let sql = prefix + "UPDATE \(table.sql) AS t0 SET \(assignments.joined(separator: ", "))" + condition
            + (returning ? " RETURNING Z_PK, Z_ENT, Z_OPT" : "")
        // The WITH clause, when there is one, comes first in the text, so its parameters do too.
        let unassigned = [Int?](repeating: nil, count: bindings.count)
        return prefix.isEmpty ? (sql, values + bindings, slots + unassigned) : (sql, bindings + values, unassigned + slots)
    }
}
