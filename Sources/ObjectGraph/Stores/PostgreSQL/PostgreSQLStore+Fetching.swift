/// Fetching: the SQLite store's SELECTs (`SQLSelectQuery`, the predicate translator in
/// PostgreSQL's dialect) run on the server; what SQL cannot express exactly is finished in
/// memory by the context, as for SQLite.
extension PostgreSQLStore {
    /// A query's constants (integers, doubles, text and nulls) as parameters.
    static func parameters(_ values: [AttributeValue]) throws(ObjectGraphError) -> [PostgreSQLParameter] {
        var out: [PostgreSQLParameter] = []
        out.reserveCapacity(values.count)
        for v in values {
            guard let p = PostgreSQLParameter.storing(v) else {
                throw .invalidArgument("a PostgreSQL store cannot compare with text holding a NUL character")
            }
            out.append(p)
        }
        return out
    }

    func selectQuery(_ request: FetchRequest, entity: EntityDescription) -> SQLSelectQuery {
        SQLSelectQuery(request, entity: entity, schema: schema, storeIdentifier: identifier, dialect: .postgreSQL)
    }

    private func selectStatement(_ request: FetchRequest, entity: EntityDescription) -> (sql: String, query: SQLSelectQuery, identitiesOnly: Bool) {
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        let identitiesOnly = query.isExact && (!request.includesPropertyValues || request.fetchBatchSize > 0)
        let columns = identitiesOnly ? "t0.Z_PK, t0.Z_ENT, t0.Z_OPT" : schema.selectList(table, alias: "t0")
        let sql = "SELECT \(columns) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)\(query.orderClause)" + query.window(request, dialect: .postgreSQL)
        return (sql, query, identitiesOnly)
    }

    public func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        let db = try open()
        guard schema.isStored(entity) else { return StoreFetchResult(rows: [], isExact: true) }
        let table = schema.table(entity)
        let select = selectStatement(request, entity: entity)
        let result = try db.query(select.sql, Self.parameters(select.query.bindings), binary: true)
        var rows = select.identitiesOnly ? try readIdentities(result, table: table) : try readRows(result, table: table)
        if select.query.ordersByKeyAfterReading { RowSnapshot.sortByPrimaryKey(&rows) }
        return StoreFetchResult(rows: rows, isExact: select.query.isExact, hasValues: !select.identitiesOnly)
    }

    public func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        let db = try open()
        guard schema.isStored(entity) else { return 0 }
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        guard query.predicateIsExact else { return nil }
        let rows = try db.query("SELECT COUNT(*) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)", Self.parameters(query.bindings))
        let n = rows.count > 0 ? Int(rows.int64(0, 0)) : 0
        return InMemoryFetch.window(count: n, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    public func fetchIdentities(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> [(entity: EntityDescription, primaryKey: Int64)]? {
        let db = try open()
        guard schema.isStored(entity) else { return [] }
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        guard query.isExact else { return nil }
        let order = query.orderClause.isEmpty ? " ORDER BY t0.Z_PK" : query.orderClause
        let rows = try db.query(
            "SELECT t0.Z_PK, t0.Z_ENT FROM \(table.sql) t0 \(query.joins)\(query.whereClause)\(order)" + query.window(request, dialect: .postgreSQL),
            Self.parameters(query.bindings))
        var out: [(entity: EntityDescription, primaryKey: Int64)] = []
        out.reserveCapacity(Int(rows.count))
        for r in 0..<rows.count { out.append((try rowEntity(Int(rows.int64(r, 1)), in: table), rows.int64(r, 0))) }
        return out
    }

    public func explainFetch(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchExplanation {
        let db = try open()
        guard schema.isStored(entity) else {
            return StoreFetchExplanation(sql: nil, bindings: [], filteredInMemory: false, queryPlan: ["no table: this store's configuration does not hold '\(entity.name)'"])
        }
        let select = selectStatement(request, entity: entity)
        let rows = try db.query("EXPLAIN " + select.sql, Self.parameters(select.query.bindings))
        let plan = (0..<rows.count).map { rows.text($0, 0) }
        return StoreFetchExplanation(
            sql: PostgreSQLStatementText.adapt(select.sql), bindings: select.query.bindings, filteredInMemory: !select.query.isExact, queryPlan: plan)
    }

    public func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        let db = try open()
        guard schema.isStored(entity) else { return nil }
        let table = schema.table(entity)
        return try readRows(db.query("SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE Z_PK = ?", [.integer(primaryKey)], binary: true), table: table).first
    }

    public func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        guard schema.isStored(entity), !primaryKeys.isEmpty else { return [] }
        let table = schema.table(entity)
        var out: [RowSnapshot] = []
        out.reserveCapacity(primaryKeys.count)
        var start = 0
        while start < primaryKeys.count {
            let chunk = primaryKeys[start..<min(start + Self.keysPerStatement, primaryKeys.count)]
            out += try readRows(
                db.query("SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE Z_PK = ANY(?::bigint[])", [Self.keyArray(chunk)], binary: true), table: table)
            start += chunk.count
        }
        return out
    }

    public func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        guard let (sql, table) = schema.pointingAtQuery(inverse) else { return [] }
        return try readRows(db.query(sql, [.integer(primaryKey)], binary: true), table: table)
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        if let inverse = relationship.inverseRelationship { return try fetchRows(pointingAt: primaryKey, through: inverse) }
        let db = try open()
        guard let (sql, table) = schema.joinMembersQuery(relationship) else { return [] }
        return try readRows(db.query(sql, [.integer(primaryKey)], binary: true), table: table)
    }
}
