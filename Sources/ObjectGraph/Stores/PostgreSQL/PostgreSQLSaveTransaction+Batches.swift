/// Batch requests on the server in one statement where the SQLite store does so too:
/// updates and deletes over the rows a fetch request's WHERE clause chooses
/// (`SetWritingTransaction`), and upserts as `INSERT … ON CONFLICT (constraint) DO UPDATE`
/// (`UpsertingTransaction`). The conditions for each are the SQLite store's; when one
/// does not hold, the caller goes row by row with the same outcome.
extension PostgreSQLSaveTransaction: SetWritingTransaction {
    func updateAll(matching request: FetchRequest, of entity: EntityDescription, setting changes: [(slot: Int, value: AttributeValue)],
                   returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult?
    {
        try checkStored(entity)
        guard let target = target(request, entity) else { return nil }
        let update = target.update(changes, of: entity, schema: store.schema, returning: true)
        var parameters = try PostgreSQLStore.parameters(update.values)
        // A nil assigned to a column takes the column's type.
        let types = store.nullTypes(entity)
        for (i, slot) in update.slots.enumerated() where parameters[i].isNull { if let slot { parameters[i].type = types[slot] } }
        return try rows(run(update.sql, parameters), target.table, returningRows)
    }

    func deleteAll(matching request: FetchRequest, of entity: EntityDescription, returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult? {
        try checkStored(entity)
        guard let target = target(request, entity) else { return nil }
        let (table, matched, bindings) = (target.table, (prefix: target.prefix, condition: target.condition), target.bindings)
        let result = try rows(
            run(matched.prefix + "DELETE FROM \(table.sql) AS t0" + matched.condition + " RETURNING Z_PK, Z_ENT, Z_OPT", PostgreSQLStore.parameters(bindings)),
            table, true)
        // The deleted rows leave every join table they are in, as a row-by-row delete does.
        try leaveJoinTables(result.rows.map(\.primaryKey), root: entity.rootEntity)
        return returningRows ? result : SetWriteResult(count: result.count, rows: [])
    }

    private func target(_ request: FetchRequest, _ entity: EntityDescription) -> SQLSetWriteTarget? {
        SQLSetWriteTarget(request, entity: entity, schema: store.schema, storeIdentifier: store.identifier, dialect: .postgreSQL,
                          derives: { store.writePlan($0).derivation != nil })
    }

    private func rows(_ result: PostgreSQLRows, _ table: SQLiteSchema.Table, _ returning: Bool) throws(ObjectGraphError) -> SetWriteResult {
        guard returning else { return SetWriteResult(count: Int(result.count), rows: []) }
        var rows: [(entity: EntityDescription, primaryKey: Int64, version: Int64)] = []
        for r in 0..<result.count {
            rows.append((try store.rowEntity(Int(result.int64(r, 1)), in: table), result.int64(r, 0), result.int64(r, 2)))
        }
        return SetWriteResult(count: rows.count, rows: rows)
    }
}

extension PostgreSQLSaveTransaction: UpsertingTransaction {
    /// Whether a row was inserted is told by the key RETURNING gives back: the new key when
    /// it was, the stored row's when it updated one (new keys are never a stored row's).
    func upsertAll(_ rows: [[AttributeValue]], named: [Set<Int>], of entity: EntityDescription, firstKey: Int64,
                   constraint: [Int], rule: UpsertRule, keysOfUpdates: Bool) throws(ObjectGraphError) -> [(key: Int64?, updated: Bool)]?
    {
        try checkStored(entity)
        guard let shape = SQLUpsertShape(entity, constraint: constraint, plan: store.writePlan(entity), schema: store.schema) else { return nil }
        let plan = shape.plan, table = shape.table
        // PostgreSQL needs a unique index on exactly these columns, as SQLite does: the
        // store made one per uniqueness constraint, named after it.
        guard let names = entity.uniquenessConstraints.first(where: { Set($0.compactMap(entity.slot(forKey:))) == Set(constraint) }),
            let index = PostgreSQLParameter.text("Z_" + entity.name + "_UNIQUE_" + names.joined(separator: "_")),
            let schemaName = PostgreSQLParameter.text(store.address.schema), let tableName = PostgreSQLParameter.text(table.name),
            try run("SELECT 1 FROM pg_indexes WHERE schemaname = ? AND tablename = ? AND indexname = ?", [schemaName, tableName, index]).count > 0
        else { return nil }
        var out: [(key: Int64?, updated: Bool)] = []
        out.reserveCapacity(rows.count)
        let types = store.nullTypes(entity)
        for (i, values) in rows.enumerated() {
            let sets = shape.assignments(rule, named: rule == .overwriteNamed ? named[i] : [])
            let newKey = firstKey + Int64(i)
            var parameters: [PostgreSQLParameter] = [.integer(newKey), .integer(Int64(plan.number))]
            for slot in plan.slots {
                if case .null = values[slot] { parameters.append(PostgreSQLParameter(text: nil, type: types[slot])); continue }
                guard let p = PostgreSQLParameter.storing(values[slot]) else { return nil }  // row by row names the bad value
                parameters.append(p)
            }
            let result = try run(shape.head + sets + " RETURNING Z_PK", parameters)
            let stored = result.count > 0 ? result.int64(0, 0) : newKey
            out.append(stored == newKey ? (newKey, false) : (keysOfUpdates ? stored : nil, true))
        }
        return out
    }
}
