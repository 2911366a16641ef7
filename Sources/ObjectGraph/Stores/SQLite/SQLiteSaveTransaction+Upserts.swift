/// Batch upserts as `INSERT … ON CONFLICT (constraint) DO UPDATE …`
/// (`UpsertingTransaction`): one statement per row, no lookup first. Whether a row was
/// inserted is told by the rowid SQLite last inserted (`RETURNING` would say it too, but
/// costs as much again as the write). Only where that is
/// exactly what the row-by-row path does: an entity alone in its table (a conflict can
/// only be with a row of the same entity), no derived attributes, no columns filled after
/// the rows (destination entities, orders), and a unique index on exactly the
/// constraint's columns (SQLite refuses the statement otherwise, and nil sends the batch
/// row by row).
extension SQLiteSaveTransaction: UpsertingTransaction {
    func upsertAll(_ rows: [[AttributeValue]], named: [Set<Int>], of entity: EntityDescription, firstKey: Int64,
                   constraint: [Int], rule: UpsertRule, keysOfUpdates: Bool) throws(ObjectGraphError) -> [(key: Int64?, updated: Bool)]?
    {
        try checkStored(entity)
        guard let shape = SQLUpsertShape(entity, constraint: constraint, plan: store.writePlan(entity), schema: store.schema) else { return nil }
        let plan = shape.plan, table = shape.table, targets = shape.targets
        // One statement per set of named slots (usually one for the whole batch).
        var statements: [Set<Int>: SQLiteStatement] = [:]
        var last: (key: Set<Int>, statement: SQLiteStatement)? = nil
        func statement(for row: Int) throws(ObjectGraphError) -> SQLiteStatement? {
            let key = rule == .overwriteNamed ? named[row] : []
            // Rows naming what the row before named (nearly always): no lookup.
            if let last, last.key == key { return last.statement }
            if let s = statements[key] {
                last = (key, s)
                return s
            }
            let sets = shape.assignments(rule, named: key)
            let s: SQLiteStatement
            do { s = try db.prepare(shape.head + sets) } catch { return nil }  // no unique index to meet
            statements[key] = s
            last = (key, s)
            return s
        }
        // The stored row an update met, by its constrained values, when asked for.
        let find = keysOfUpdates
            ? try db.prepare("SELECT Z_PK FROM \(table.sql) WHERE " + targets.map { "\($0) = ?" }.joined(separator: " AND ")) : nil
        var out: [(key: Int64?, updated: Bool)] = []
        out.reserveCapacity(rows.count)
        for (i, values) in rows.enumerated() {
            guard let s = try statement(for: i) else { return nil }
            db.reuse(s)
            let key = firstKey + Int64(i)
            s.bind(1, key)
            s.bind(2, Int64(plan.number))
            for (p, slot) in plan.slots.enumerated() { s.bind(Int32(p + 3), storing: values[slot]) }
            if try s.runReturningLastInsert() == key {
                out.append((key, false))
                continue
            }
            guard let find else {
                out.append((nil, true))
                continue
            }
            db.reuse(find)
            for (p, slot) in constraint.enumerated() { find.bind(Int32(p + 1), storing: values[slot]) }
            guard let stored = try find.firstRow({ $0.int64(0) }) else {
                throw ObjectGraphError(code: ErrorCode.storeSave, message: "an upsert into '\(entity.name)' updated a row it cannot find again")
            }
            out.append((stored, true))
        }
        return out
    }
}
