/// The writes of one save inside the PostgreSQL store's open transaction, which already
/// holds the store's write lock (`PostgreSQLStore.save`). The statements are the SQLite
/// store's write plans, adapted and prepared once per connection.
struct PostgreSQLSaveTransaction: StoreSaveTransaction, KeyCounterWriting, KeyStatementRunning, VersionCheckingWrites {
    let store: PostgreSQLStore
    let db: PostgreSQLConnection

    /// Runs a statement of the save, after the rows waiting to be inserted: the server
    /// sees every statement in the save's order.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgreSQLParameter] = []) throws(ObjectGraphError) -> PostgreSQLRows {
        if !store.insertBuffer.isEmpty { try store.insertBuffer.flush(db) }
        return try db.query(sql, parameters)
    }

    /// Writes touch only tables this store has; another hierarchy is a routing mistake.
    func checkStored(_ entity: EntityDescription) throws(ObjectGraphError) {
        guard store.schema.isStored(entity) else {
            throw ObjectGraphError(
                code: ErrorCode.storeIncompatibleSchema,
                message: "the store '\(store.path)' (configuration \(store.configurationName ?? "default")) has no table for entity '\(entity.name)'")
        }
    }

    func raiseKeyCounter(for root: EntityDescription, to key: Int64) throws(ObjectGraphError) {
        try run(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), ?) WHERE Z_ENT = ?",
            [.integer(key), .integer(Int64(store.schema.mapping(root.rootEntity).number))])
    }

    /// Under the store's write lock, so no other machine's save hands out the same keys.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        try checkStored(entity)
        let rootNumber = Int64(store.schema.mapping(entity.rootEntity).number)
        let rows = try run("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(rootNumber)])
        let current = rows.count > 0 && !rows.isNull(0, 0) ? rows.int64(0, 0) : 0
        let first = try PrimaryKeys.first(after: current, count: count, root: entity, store: store.path)
        let last = try PrimaryKeys.last(first: first, count: count, root: entity, store: store.path)
        try run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last), .integer(rootNumber)])
        return first
    }

    /// Appends the row's values (`slots`) to `out` as parameters; text holding a NUL
    /// character (which PostgreSQL cannot store) is a validation error naming the object
    /// and key, before anything of the row is written.
    private func appendValues(_ row: StoreRowWrite, _ slots: [Int], to out: inout [PostgreSQLParameter]) throws(ObjectGraphError) {
        let nullTypes = store.nullTypes(row.entity)
        for slot in slots {
            if case .null = row.values[slot] {
                out.append(PostgreSQLParameter(text: nil, type: nullTypes[slot]))
                continue
            }
            guard var p = PostgreSQLParameter.storing(row.values[slot]) else {
                let key = row.entity.properties[slot].name
                throw ObjectGraphError(
                    code: ErrorCode.validation,
                    message: "'\(row.entity.name).\(key)' of the object with key \(row.primaryKey) holds text with a NUL character, which a PostgreSQL store cannot keep; nothing was saved",
                    userInfo: [(ErrorUserInfoKey.validationKey, key), (ErrorUserInfoKey.entity, row.entity.name)])
            }
            // A value of another kind than its column's (never made by a context) goes as
            // text of the column's type: the server parses it or refuses it, never misreads it.
            if p.type != nullTypes[slot] { p = p.retyped(nullTypes[slot]) }
            out.append(p)
        }
    }

    /// The parameters of `derivation` for `row`: its key, then each string derivation the
    /// engine computes from the row's own values (nil stays nil).
    private func derivationParameters(_ derivation: DerivationUpdate, _ row: StoreRowWrite) -> [PostgreSQLParameter] {
        var out: [PostgreSQLParameter] = [.integer(row.primaryKey)]
        for input in derivation.inputs {
            // The row's text was checked for NUL characters as its values were bound.
            guard case .string(let s) = row.values[input.slot], let p = PostgreSQLParameter.text(input.mode.apply(s)) else {
                out.append(PostgreSQLParameter(text: nil, type: PostgreSQLParameter.textType))
                continue
            }
            out.append(p)
        }
        return out
    }

    /// Rows whose plan allows it wait in the store's insert buffer (`PostgreSQLInsertBuffer`).
    func insert(_ row: StoreRowWrite) throws(ObjectGraphError) {
        try checkStored(row.entity)
        let plan = store.writePlan(row.entity)
        func fill(_ out: inout [PostgreSQLParameter]) throws(ObjectGraphError) {
            out.append(.integer(row.primaryKey))
            out.append(.integer(Int64(plan.number)))
            out.append(.integer(row.version))
            try appendValues(row, plan.slots, to: &out)
        }
        if plan.multiRowInsertHead != nil {
            // The row's parameter types: the key, entity and version, then its columns' (built once per entity).
            try store.insertBuffer.add(plan: plan, types: [PostgreSQLParameter.int8, PostgreSQLParameter.int8, PostgreSQLParameter.int8]
                + plan.slots.map { store.nullTypes(row.entity)[$0] }, copy: store.copyStatement(row.entity, plan), fill)
        } else {
            var parameters: [PostgreSQLParameter] = []
            try fill(&parameters)
            try run(plan.insertSQL, parameters)
        }
        if plan.needsEntityFixup { store.touched.append((plan.tableIndex, row.primaryKey)) }
        if let derivation = plan.derivation { store.derived.append((derivation.sql, derivationParameters(derivation, row))) }
    }

    func currentVersions(of entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [Int64: Int64]? {
        guard store.schema.isStored(entity), !primaryKeys.isEmpty else { return [:] }
        let table = store.schema.table(entity)
        var out: [Int64: Int64] = [:]
        var start = 0
        while start < primaryKeys.count {
            let chunk = primaryKeys[start..<min(start + PostgreSQLStore.keysPerStatement, primaryKeys.count)]
            let rows = try run("SELECT Z_PK, Z_OPT FROM \(table.sql) WHERE Z_PK = ANY(?::bigint[])", [PostgreSQLStore.keyArray(chunk)])
            for r in 0..<rows.count { out[rows.int64(r, 0)] = rows.int64(r, 1) }
            start += chunk.count
        }
        return out
    }

    func currentRow(of entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) -> RowSnapshot? {
        if !store.insertBuffer.isEmpty { try store.insertBuffer.flush(db) }
        return try store.fetchRow(entity: entity.rootEntity, primaryKey: primaryKey)
    }

    func rows(of entity: EntityDescription, slots: [Int], holding values: [AttributeValue]) throws(ObjectGraphError) -> [RowSnapshot]? {
        try checkStored(entity)
        let schema = store.schema
        let table = schema.table(entity)
        let mapping = schema.mapping(entity)
        var conditions: [String] = []
        for slot in slots {
            let c = mapping.columnBySlot[slot]
            guard c >= 0 else { return [] }
            conditions.append("\(table.columns[c].sql) = ?")
        }
        let sql = "SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE \(conditions.joined(separator: " AND "))"
        return try store.readRows(run(sql, PostgreSQLStore.parameters(values)), table: table)
    }

    func updateRow(_ row: StoreRowWrite, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool {
        try checkStored(row.entity)
        let plan = store.writePlan(row.entity)
        var parameters: [PostgreSQLParameter] = [.integer(row.version)]
        try appendValues(row, plan.slots, to: &parameters)
        parameters.append(.integer(row.primaryKey))
        parameters.append(expectingVersion.map { .integer($0) } ?? PostgreSQLParameter(text: nil, type: PostgreSQLParameter.int8))
        if try run(plan.updateSQL, parameters).changes == 0 && expectingVersion != nil { return false }
        if plan.needsEntityFixup { store.touched.append((plan.tableIndex, row.primaryKey)) }
        if let derivation = plan.derivation { store.derived.append((derivation.sql, derivationParameters(derivation, row))) }
        return true
    }

    func deleteRow(entity: EntityDescription, primaryKey: Int64, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool {
        try checkStored(entity)
        let table = store.schema.table(entity)
        let deleted: Int
        if let expectingVersion {
            deleted = try run("DELETE FROM \(table.sql) WHERE Z_PK = ? AND COALESCE(Z_OPT, 0) = ?", [.integer(primaryKey), .integer(expectingVersion)]).changes
            if deleted == 0 { return false }
        } else {
            try run("DELETE FROM \(table.sql) WHERE Z_PK = ?", [.integer(primaryKey)])
        }
        // The row leaves every join table it is in.
        try leaveJoinTables([primaryKey], root: entity.rootEntity)
        return true
    }

    func setMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {
        try writeMembers(of: primaryKey, through: relationship, to: members)
    }

    var schema: SQLiteSchema { store.schema }

    func runKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError) {
        try run(sql, keys.map { .integer($0) })
    }

    func selectKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError) -> [Int64] {
        let rows = try run(sql, keys.map { .integer($0) })
        return (0..<rows.count).map { rows.int64($0, 0) }
    }

    /// One statement per join column, the keys as one array.
    func leaveJoinTables(_ keys: [Int64], root: EntityDescription) throws(ObjectGraphError) {
        guard !keys.isEmpty else { return }
        for (table, column) in schema.joinColumns(holding: root) {
            try run("DELETE FROM \(sqlIdentifier(table)) WHERE \(sqlIdentifier(column)) = ANY(?::bigint[])", [PostgreSQLStore.keyArray(keys)])
        }
    }
}
