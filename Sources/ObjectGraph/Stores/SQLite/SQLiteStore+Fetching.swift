import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


extension SQLiteStore {
    // MARK: Reading

    public func fetchRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchResult {
        let db = try open()
        guard schema.isStored(entity) else { return StoreFetchResult(rows: [], isExact: true) }
        let table = schema.table(entity)
        let select = selectStatement(request, entity: entity)
        let s = try db.prepare(select.sql)
        try s.bind(queryValues: select.query.bindings)
        var rows = select.identitiesOnly ? try readIdentities(s, table: table) : try readRows(s, table: table)
        if select.query.ordersByKeyAfterReading { RowSnapshot.sortByPrimaryKey(&rows) }
        // Identities only are read when SQL answers alone, so they are exact too.
        return StoreFetchResult(rows: rows, isExact: select.query.isExact, hasValues: !select.identitiesOnly)
    }

    /// The SELECT a fetch runs: identities only when SQL answers alone and the values are
    /// not wanted yet; the window in SQL when SQL answers alone.
    private func selectStatement(_ request: FetchRequest, entity: EntityDescription) -> (sql: String, query: SQLSelectQuery, identitiesOnly: Bool) {
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        let identitiesOnly = query.isExact && (!request.includesPropertyValues || request.fetchBatchSize > 0)
        let columns = identitiesOnly ? "t0.Z_PK, t0.Z_ENT, t0.Z_OPT" : schema.selectList(table, alias: "t0")
        var sql = "SELECT \(columns) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)"
        sql += query.orderClause
        sql += query.window(request, dialect: .sqlite)
        return (sql, query, identitiesOnly)
    }

    /// The statement a fetch runs, its bindings, whether its rows are then filtered or
    /// sorted in memory, and SQLite's plan for it (`EXPLAIN QUERY PLAN`).
    public func explainFetch(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> StoreFetchExplanation {
        let db = try open()
        guard schema.isStored(entity) else {
            return StoreFetchExplanation(sql: nil, bindings: [], filteredInMemory: false, queryPlan: ["no table: this store's configuration does not hold '\(entity.name)'"])
        }
        let select = selectStatement(request, entity: entity)
        let s = try db.prepare("EXPLAIN QUERY PLAN " + select.sql)
        try s.bind(queryValues: select.query.bindings)
        var plan: [String] = []
        try s.forEachRow { row in plan.append(row.text(3)) }
        return StoreFetchExplanation(sql: select.sql, bindings: select.query.bindings, filteredInMemory: !select.query.isExact, queryPlan: plan)
    }

    /// The entity a row's `Z_ENT` names; a number not of this table's hierarchy is a damaged store.
    func rowEntity(_ number: Int, in table: SQLiteSchema.Table) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = schema.entityByNumber[number], schema.mapping(entity).tableIndex == schema.mapping(table.root).tableIndex else {
            throw ObjectGraphError(code: ErrorCode.storeIncompatibleSchema, message: "row of \(table.name) has unknown entity number \(number)")
        }
        return entity
    }

    /// Rows of `SELECT Z_PK, Z_ENT, Z_OPT`: snapshots with no values.
    private func readIdentities(_ s: SQLiteStatement, table: SQLiteSchema.Table) throws(ObjectGraphError) -> [RowSnapshot] {
        defer { s.reset() }
        var rows: [RowSnapshot] = []
        // No number yet: the first row always looks its entity up, whatever its Z_ENT (a damaged file may hold any).
        var lastNumber: Int? = nil
        var entity: EntityDescription? = nil
        var writer = RowBlockWriter()
        while try s.step() {
            let number = Int(s.int64(1))
            if number != lastNumber {
                entity = try rowEntity(number, in: table)
                lastNumber = number
            }
            rows.append(writer.make(entity: entity!, primaryKey: s.int64(0), version: s.int64(2), values: []))
        }
        return rows
    }

    public func countRows(_ request: FetchRequest, entity: EntityDescription) throws(ObjectGraphError) -> Int? {
        let db = try open()
        guard schema.isStored(entity) else { return 0 }
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        guard query.predicateIsExact else { return nil }
        let s = try db.prepare("SELECT COUNT(*) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)")
        try s.bind(queryValues: query.bindings)
        let n = Int(try s.firstRow { $0.int64(0) } ?? 0)
        return InMemoryFetch.window(count: n, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// The SELECT of a fetch with every value column, its bindings, and whether SQL alone
    /// answers it (for tests).
    func explain(_ request: FetchRequest, entity: EntityDescription) -> (sql: String, bindings: [AttributeValue], isExact: Bool) {
        let table = schema.table(entity)
        let query = selectQuery(request, entity: entity)
        let sql = "SELECT \(schema.selectList(table, alias: "t0")) FROM \(table.sql) t0 \(query.joins)\(query.whereClause)\(query.orderClause)"
        return (sql, query.bindings, query.isExact)
    }

    func selectQuery(_ request: FetchRequest, entity: EntityDescription) -> SQLSelectQuery {
        SQLSelectQuery(request, entity: entity, schema: schema, storeIdentifier: identifier, dialect: .sqlite)
    }

    public func fetchRow(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        let db = try open()
        guard schema.isStored(entity) else { return nil }
        let table = schema.table(entity)
        let s = try db.prepare("SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE Z_PK = ?")
        s.bind(1, primaryKey)
        return try readRows(s, table: table).first
    }

    public func fetchRows(pointingAt primaryKey: Int64, through inverse: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        guard let (sql, table) = schema.pointingAtQuery(inverse) else { return [] }
        let s = try db.prepare(sql)
        s.bind(1, primaryKey)
        return try readRows(s, table: table)
    }

    public func fetchMembers(of primaryKey: Int64, through relationship: RelationshipDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        if let inverse = relationship.inverseRelationship { return try fetchRows(pointingAt: primaryKey, through: inverse) }
        let db = try open()
        guard let (sql, table) = schema.joinMembersQuery(relationship) else { return [] }
        let s = try db.prepare(sql)
        s.bind(1, primaryKey)
        return try readRows(s, table: table)
    }
}
