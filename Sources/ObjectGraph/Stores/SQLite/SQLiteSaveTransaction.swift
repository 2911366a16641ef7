import CSQLite
import FoundationEssentials

/// The writes of one save inside the SQLite store's open transaction. Each entity has
/// one INSERT, one UPDATE and one DELETE statement, prepared once and reused; a row's
/// destination-entity columns are filled in just before COMMIT, when every row of the
/// save exists.
struct SQLiteSaveTransaction: StoreSaveTransaction, KeyCounterWriting, KeyStatementRunning, VersionCheckingWrites {
    let store: SQLiteStore
    let db: SQLiteConnection
    /// The statements of the entity written last: a save writes the rows of one entity in
    /// runs, and finding its plan and statement again for every row (the statement by its
    /// SQL text, hashed whole) cost more than binding the row.
    private let recent = RecentWrites()

    private final class RecentWrites {
        typealias Write = (entity: ObjectIdentifier, plan: SQLiteStore.WritePlan, statement: SQLiteStatement)
        var insert: Write?
        var update: Write?
    }

    /// The write plan of `entity` and its statement (`sql` of the plan), ready to bind;
    /// `memo` remembers them for the next row.
    @inline(__always)
    private func statement(_ entity: EntityDescription, _ sql: Swift.KeyPath<SQLiteStore.WritePlan, String>,
                           _ memo: Swift.ReferenceWritableKeyPath<RecentWrites, RecentWrites.Write?>) throws(ObjectGraphError) -> (SQLiteStore.WritePlan, SQLiteStatement) {
        if let last = recent[keyPath: memo], last.entity == ObjectIdentifier(entity) {
            db.reuse(last.statement)
            return (last.plan, last.statement)
        }
        try checkStored(entity)
        let plan = store.writePlan(entity)
        let s = try db.prepare(plan[keyPath: sql])
        recent[keyPath: memo] = (ObjectIdentifier(entity), plan, s)
        return (plan, s)
    }

    var schema: SQLiteSchema { store.schema }

    func runKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError) {
        let s = try db.prepare(sql)
        for (i, key) in keys.enumerated() { s.bind(Int32(i + 1), key) }
        try s.run()
    }

    func selectKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError) -> [Int64] {
        let s = try db.prepare(sql)
        for (i, key) in keys.enumerated() { s.bind(Int32(i + 1), key) }
        var out: [Int64] = []
        try s.forEachRow { row in out.append(row.int64(0)) }
        return out
    }

    func raiseKeyCounter(for root: EntityDescription, to key: Int64) throws(ObjectGraphError) {
        let s = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?")
        s.bind(1, key)
        s.bind(2, Int64(store.schema.mapping(root.rootEntity).number))
        try s.run()
    }

    /// Writes touch only tables this store has; another hierarchy is a routing mistake.
    func checkStored(_ entity: EntityDescription) throws(ObjectGraphError) {
        guard store.schema.isStored(entity) else {
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleSchema,
                message: "the store '\(store.path)' (configuration \(store.configurationName ?? "default")) has no table for entity '\(entity.name)'")
        }
    }

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        try checkStored(entity)
        let rootNumber = Int64(store.schema.mapping(entity.rootEntity).number)
        let select = try db.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        select.bind(1, rootNumber)
        let current = try select.firstRow { $0.int64(0) } ?? 0
        let first = try PrimaryKeys.first(after: current, count: count, root: entity, store: store.path)
        let update = try db.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        update.bind(1, try PrimaryKeys.last(first: first, count: count, root: entity, store: store.path))
        update.bind(2, rootNumber)
        try update.run()
        return first
    }

    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) {
        let (plan, s) = try statement(row.entity, \.insertSQL, \.insert)
        s.bind(1, row.primaryKey)
        s.bind(2, Int64(plan.number))
        s.bind(3, row.version)
        for (i, slot) in plan.slots.enumerated() { s.bind(Int32(i + 4), storing: row.values[slot]) }
        try s.run()
        if plan.needsEntityFixup { store.touched.append((plan.tableIndex, row.primaryKey)) }
        if let derivation = plan.derivation { store.derived.append((derivation.sql, row.primaryKey)) }
    }

    /// Reads versions in chunks whose sizes are powers of two (padded with the first key),
    /// so only a handful of statements are ever prepared for this.
    func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]? {
        guard store.schema.isStored(entity), !primaryKeys.isEmpty else { return [:] }
        let table = store.schema.table(entity)
        var out: [Int64: Int64] = [:]
        out.reserveCapacity(primaryKeys.count)
        var start = 0
        while start < primaryKeys.count {
            let chunk = primaryKeys[start..<min(start + 512, primaryKeys.count)]
            var size = 1
            while size < chunk.count { size *= 2 }
            let marks = Array(repeating: "?", count: size).joined(separator: ", ")
            let s = try db.prepare("SELECT Z_PK, Z_OPT FROM \(table.sql) WHERE Z_PK IN (\(marks))")
            for i in 0..<size { s.bind(Int32(i + 1), i < chunk.count ? chunk[chunk.startIndex + i] : chunk[chunk.startIndex]) }
            try s.forEachRow { row in out[row.int64(0)] = row.int64(1) }
            start += chunk.count
        }
        return out
    }

    func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        try store.fetchRow(entity: entity.rootEntity, primaryKey: primaryKey)
    }

    /// One lookup through the unique index the schema made of the constraint.
    func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]? {
        try checkStored(entity)
        let schema = store.schema
        let table = schema.table(entity)
        // Built once per entity and constraint: a batch asks once per row.
        let key = ConstraintQueryKey(entity: ObjectIdentifier(entity), slots: slots)
        let sql: String
        if let known = store.constraintQueries[key] {
            sql = known
        } else {
            let mapping = schema.mapping(entity)
            var conditions: [String] = []
            for slot in slots {
                let c = mapping.columnBySlot[slot]
                guard c >= 0 else { return [] }  // not stored: nothing can hold it
                conditions.append("\(sqlIdentifier(table.columns[c].name)) = ?")
            }
            sql = "SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE \(conditions.joined(separator: " AND "))"
            store.constraintQueries[key] = sql
        }
        let s = try db.prepare(sql)
        for (i, value) in values.enumerated() { s.bind(Int32(i + 1), storing: value) }
        return try store.readRows(s, table: table)
    }

    struct ConstraintQueryKey: Hashable {
        let entity: ObjectIdentifier
        let slots: [Int]
    }

    func updateRow(_ row: StoreRowWrite, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool {
        let (plan, s) = try statement(row.entity, \.updateSQL, \.update)
        s.bind(1, row.version)
        for (i, slot) in plan.slots.enumerated() { s.bind(Int32(i + 2), storing: row.values[slot]) }
        s.bind(Int32(plan.slots.count + 2), row.primaryKey)
        if let expectingVersion { s.bind(Int32(plan.slots.count + 3), expectingVersion) }
        if try s.runCountingChanges() == 0 && expectingVersion != nil { return false }
        if plan.needsEntityFixup { store.touched.append((plan.tableIndex, row.primaryKey)) }
        if let derivation = plan.derivation { store.derived.append((derivation.sql, row.primaryKey)) }
        return true
    }

    func deleteRow(entity: EntityDescription, primaryKey: Int64, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool {
        try checkStored(entity)
        let table = store.schema.table(entity)
        let s = try db.prepare("DELETE FROM \(table.sql) WHERE Z_PK = ?1 AND (?2 IS NULL OR IFNULL(Z_OPT, 0) = ?2)")
        s.bind(1, primaryKey)
        if let expectingVersion { s.bind(2, expectingVersion) }
        if try s.runCountingChanges() == 0 && expectingVersion != nil { return false }
        // The row leaves every join table it is in.
        try leaveJoinTables([primaryKey], root: entity.rootEntity)
        return true
    }

    func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {
        try writeMembers(of: primaryKey, through: relationship, to: members)
    }
}
