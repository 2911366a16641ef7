/// Batch updates and deletes as single statements (`SetWritingTransaction`): the fetch
/// request's WHERE clause, as a fetch would run it, chooses the rows of one UPDATE or
/// DELETE. Rows are read back (RETURNING) only when the caller needs them, or to clear the
/// join tables of deleted rows.
extension SQLiteSaveTransaction: SetWritingTransaction {
    func updateAll(matching request: FetchRequest, of entity: EntityDescription, setting changes: [(slot: Int, value: AttributeValue)],
                   returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult?
    {
        try checkStored(entity)
        guard let (table, matched, bindings) = target(request, entity) else { return nil }
        let mapping = store.schema.mapping(entity)
        var assignments: [String] = []
        var values: [AttributeValue] = []
        for (slot, value) in changes {
            let c = mapping.columnBySlot[slot]
            guard c >= 0 else { continue }
            assignments.append("\(sqlIdentifier(table.columns[c].name)) = ?")
            values.append(value)
        }
        // A version at the largest integer stays there rather than turning into a real.
        assignments.append("Z_OPT = CASE WHEN Z_OPT >= 9223372036854775807 THEN Z_OPT ELSE IFNULL(Z_OPT, 0) + 1 END")
        let sql = matched.prefix + "UPDATE \(table.sql) AS t0 SET \(assignments.joined(separator: ", "))" + matched.condition
            + (returningRows ? " RETURNING Z_PK, Z_ENT, Z_OPT" : "")
        let s = try db.prepare(sql)
        // The WITH clause, when there is one, comes first in the text, so its parameters do too.
        let (before, after) = matched.prefix.isEmpty ? (values, bindings) : (bindings, values)
        for (i, v) in (before + after).enumerated() { s.bind(Int32(i + 1), storing: v) }
        return try run(s, table, returningRows)
    }

    func deleteAll(matching request: FetchRequest, of entity: EntityDescription, returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult? {
        try checkStored(entity)
        guard let (table, matched, bindings) = target(request, entity) else { return nil }
        let joins = store.schema.joinColumns(holding: entity.rootEntity)
        let s = try db.prepare(matched.prefix + "DELETE FROM \(table.sql) AS t0" + matched.condition
            + (returningRows || !joins.isEmpty ? " RETURNING Z_PK, Z_ENT, Z_OPT" : ""))
        for (i, v) in bindings.enumerated() { s.bind(Int32(i + 1), storing: v) }
        let result = try run(s, table, returningRows || !joins.isEmpty)
        // The deleted rows leave every join table they are in, as a row-by-row delete does.
        try leaveJoinTables(result.rows.map(\.primaryKey), root: entity.rootEntity)
        return result
    }

    private func target(_ request: FetchRequest, _ entity: EntityDescription)
        -> (SQLiteSchema.Table, (prefix: String, condition: String), [AttributeValue])?
    {
        guard let t = SQLSetWriteTarget(request, entity: entity, schema: store.schema, storeIdentifier: store.identifier, dialect: .sqlite,
                                        derives: { store.writePlan($0).derivationSQL != nil })
        else { return nil }
        return (t.table, (t.prefix, t.condition), t.bindings)
    }

    /// Runs a set write; with `returning`, reads the rows its RETURNING clause gives.
    private func run(_ s: SQLiteStatement, _ table: SQLiteSchema.Table, _ returning: Bool) throws(ObjectGraphError) -> SetWriteResult {
        guard returning else { return SetWriteResult(count: try s.runCountingChanges(), rows: []) }
        defer { s.reset() }
        var rows: [(entity: EntityDescription, primaryKey: Int64, version: Int64)] = []
        var lastNumber: Int?
        var entity: EntityDescription?
        while try s.step() {
            let number = Int(s.int64(1))
            if number != lastNumber {
                entity = try store.rowEntity(number, in: table)
                lastNumber = number
            }
            rows.append((entity!, s.int64(0), s.int64(2)))
        }
        return SetWriteResult(count: rows.count, rows: rows)
    }
}
