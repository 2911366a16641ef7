/// Batch updates and deletes as single statements (`SetWritingTransaction`): the fetch
/// request's WHERE clause, as a fetch would run it, chooses the rows of one UPDATE or
/// DELETE. Rows are read back (RETURNING) only when the caller needs them, or to clear the
/// join tables of deleted rows.
extension SQLiteSaveTransaction: SetWritingTransaction {
    func updateAll(matching request: FetchRequest, of entity: EntityDescription, setting changes: [(slot: Int, value: AttributeValue)],
                   returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult?
    {
        try checkStored(entity)
        guard let target = target(request, entity) else { return nil }
        let update = target.update(changes, of: entity, schema: store.schema, returning: returningRows)
        let s = try db.prepare(update.sql)
        for (i, v) in update.values.enumerated() { s.bind(Int32(i + 1), storing: v) }
        let table = target.table
        return try run(s, table, returningRows)
    }

    func deleteAll(matching request: FetchRequest, of entity: EntityDescription, returningRows: Bool) throws(ObjectGraphError) -> SetWriteResult? {
        try checkStored(entity)
        guard let target = target(request, entity) else { return nil }
        let (table, matched, bindings) = (target.table, (prefix: target.prefix, condition: target.condition), target.bindings)
        let joins = store.schema.joinColumns(holding: entity.rootEntity)
        let s = try db.prepare(matched.prefix + "DELETE FROM \(table.sql) AS t0" + matched.condition
            + (returningRows || !joins.isEmpty ? " RETURNING Z_PK, Z_ENT, Z_OPT" : ""))
        for (i, v) in bindings.enumerated() { s.bind(Int32(i + 1), storing: v) }
        let result = try run(s, table, returningRows || !joins.isEmpty)
        // The deleted rows leave every join table they are in, as a row-by-row delete does.
        try leaveJoinTables(result.rows.map(\.primaryKey), root: entity.rootEntity)
        return result
    }

    private func target(_ request: FetchRequest, _ entity: EntityDescription) -> SQLSetWriteTarget? {
        SQLSetWriteTarget(request, entity: entity, schema: store.schema, storeIdentifier: store.identifier, dialect: .sqlite,
                          derives: { store.writePlan($0).derivation != nil })
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
