import FoundationEssentials

/// Lightweight migration of a PostgreSQL store in place, in one transaction (PostgreSQL's
/// DDL is transactional): the SQLite store's plan (`SQLiteInPlacePlan`, PostgreSQL's
/// conversions) run as `SQLiteInPlaceMigration` runs it — old tables set aside, the new
/// model's created, rows copied with `INSERT … SELECT`, old tables dropped, indexes built,
/// `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE` and the history rewritten. It holds the
/// store's write lock throughout, so no save of any machine lands in the middle; any
/// failure rolls everything back. A chain of steps (model version 1 to 2 to 3) runs in the
/// same transaction, one step after the other.
enum PostgreSQLInPlaceMigration {
    struct Step {
        let plan: SQLiteInPlacePlan
        let destinationModel: ManagedObjectModel
        let versionHashes: [String: PropertyListValue]
    }

    static func run(_ steps: [Step], address: PostgreSQLAddress) throws(ObjectGraphError) {
        let db = try PostgreSQLConnection(address, lockTimeout: StoreOptions.defaultTimeout)
        defer { db.close() }
        try db.execute("BEGIN")
        do throws(ObjectGraphError) {
            try db.query("SELECT Z_VERSION FROM Z_METADATA FOR UPDATE")
            for step in steps { try migrate(step.plan, db, address, step.destinationModel, step.versionHashes) }
            try db.commit()
        } catch {
            if db.isConnected { try? db.execute("ROLLBACK") }
            if (134110...134190).contains(error.code) { throw error }
            throw ObjectGraphError(
                code: ErrorCode.migration, message: "cannot migrate the store '\(address.redacted)' in place: \(error.message); the store is unchanged",
                userInfo: [(ErrorUserInfoKey.filePath, address.redacted)], details: [error])
        }
    }

    private static func migrate(_ plan: SQLiteInPlacePlan, _ db: PostgreSQLConnection, _ address: PostgreSQLAddress,
                                _ destinationModel: ManagedObjectModel, _ versionHashes: [String: PropertyListValue]) throws(ObjectGraphError) {
        let existing = try PostgreSQLStore.tableNames(db, schema: address.schema)
        var source = plan.source
        let rows = try db.query("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?", [.text(address.schema)!])
        var columns: [String: Set<String>] = [:]
        for r in 0..<rows.count where rows.text(r, 0).hasPrefix("Z_") { columns[rows.text(r, 0), default: []].insert(rows.text(r, 1)) }
        let renames = source.adoptJoinTables(from: columns)
        let oldTables = (source.tables.map(\.name) + source.joinTables.map(\.name))
            .filter { existing.contains($0) && !SQLiteInPlaceMigration.bookkeeping.contains($0) }
        var aside: [String: String] = [:]
        // Old tables aside; their indexes go first, so the new ones can take their names
        // (a primary key's index goes with its constraint, renamed below).
        for (i, name) in Set(oldTables).sorted().enumerated() {
            let indexes = try db.query(
                "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND tablename = ? AND indexname NOT IN (SELECT conname FROM pg_constraint)",
                [.text(address.schema)!, .text(name)!])
            for r in 0..<indexes.count { try db.execute("DROP INDEX \(PostgreSQLSchema.quoted(indexes.text(r, 0)))") }
            let temporary = "Z_MIGRATING_\(i)"
            try db.execute("ALTER TABLE \(PostgreSQLSchema.quoted(name)) RENAME TO \(PostgreSQLSchema.quoted(temporary))")
            try db.execute("ALTER TABLE \(PostgreSQLSchema.quoted(temporary)) RENAME CONSTRAINT \(PostgreSQLSchema.quoted(name + "_pkey")) TO \(PostgreSQLSchema.quoted(temporary + "_pkey"))")
            aside[name] = temporary
        }
        let statements = PostgreSQLSchema.createStatements(plan.destination).filter { statement in
            !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains { statement.hasPrefix("CREATE TABLE \"\($0)\" ") }
        }
        for statement in statements where statement.hasPrefix("CREATE TABLE") { try db.execute(statement) }
        for copy in plan.rows {
            let sTable = plan.source.table(copy.sourceEntity), dTable = plan.destination.table(copy.destinationEntity)
            guard let old = aside[sTable.name] else { continue }
            try db.query(
                "INSERT INTO \(dTable.sql) (\(copy.columns.joined(separator: ", "))) SELECT \(copy.expressions.joined(separator: ", ")) FROM \(PostgreSQLSchema.quoted(old)) WHERE Z_ENT = \(plan.source.number(copy.sourceEntity))",
                PostgreSQLStore.parameters(copy.bindings))
            let entityNumber = plan.destination.number(copy.destinationEntity)
            for (property, column) in copy.required {
                let missing = try db.query("SELECT COUNT(*) FROM \(dTable.sql) WHERE Z_ENT = \(entityNumber) AND \(column) IS NULL")
                let n = missing.int64(0, 0)
                if n > 0 {
                    throw ObjectGraphError(
                        code: ErrorCode.migration,
                        message: "\(n) \(copy.destinationEntity.name) object\(n == 1 ? "" : "s") would have no value for the required property '\(property)'",
                        userInfo: [(ErrorUserInfoKey.entity, copy.destinationEntity.name), (ErrorUserInfoKey.property, property)])
                }
            }
        }
        for join in plan.joins {
            let rename = renames[join.sourceTable]
            guard let old = aside[rename?.table ?? join.sourceTable] else { continue }
            var renamedColumns: [String: String] = [:]
            for (predicted, actual) in rename?.columns ?? [:] { renamedColumns[sqlIdentifier(predicted)] = sqlIdentifier(actual) }
            let select = join.select.map { renamedColumns[$0] ?? $0 }
            try db.query("INSERT INTO \(sqlIdentifier(join.destination.name)) (\(join.columns.joined(separator: ", "))) SELECT \(select.joined(separator: ", ")) FROM \(PostgreSQLSchema.quoted(old))")
        }
        let counters = try db.query("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
        var old: [Int: Int64] = [:]
        for r in 0..<counters.count { old[Int(counters.int64(r, 0))] = counters.isNull(r, 1) ? 0 : counters.int64(r, 1) }
        for temporary in aside.values.sorted() { try db.execute("DROP TABLE \(PostgreSQLSchema.quoted(temporary))") }
        for statement in statements where !statement.hasPrefix("CREATE TABLE") { try db.execute(statement) }
        try writeKeys(db, plan, old)
        if try PostgreSQLHistory.hasTables(db, schema: address.schema) {
            try PostgreSQLHistory.migrate(db, from: plan.source, to: plan.destination, schemaName: address.schema, numbers: plan.numbers)
        }
        var (uuid, metadata) = try PostgreSQLStore.readMetadata(db, path: address.redacted)
        metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(versionHashes)
        metadata[StoreMetadataKey.modelVersionIdentifiers] = .array(destinationModel.versionIdentifiers.map { .string($0) })
        try PostgreSQLStore.writeMetadata(metadata, uuid: uuid, db)
        try db.execute("DELETE FROM \"Z_MODELCACHE\"")
        try db.query("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.bytes(Deflate.compress(CompiledModelWriter.write(destinationModel)))])
    }

    /// `Z_PRIMARYKEY` rewritten for the new model (`SQLiteInPlacePlan.keyCounters`); the
    /// history counters stay as they were.
    private static func writeKeys(_ db: PostgreSQLConnection, _ plan: SQLiteInPlacePlan, _ old: [Int: Int64]) throws(ObjectGraphError) {
        try db.execute("DELETE FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" < 16000")
        let counters = try plan.keyCounters(old: old) { table throws(ObjectGraphError) in
            try db.query("SELECT COALESCE(MAX(Z_PK), 0) FROM \(table.sql)").int64(0, 0)
        }
        for row in counters {
            try db.query(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(row.number), .text(row.name) ?? .null, .integer(row.superNumber), .integer(row.max)])
        }
    }
}

extension PostgreSQLHistory {
    /// Rewrites the history of a store migrated in place (entity numbers, the positions in
    /// update bitmaps and tombstone columns), then adds the schema migrator's marker.
    static func migrate(_ db: PostgreSQLConnection, from source: SQLiteSchema, to destination: SQLiteSchema, schemaName: String,
                        numbers: [Int: Int]) throws(ObjectGraphError) {
        let needed = destination.storedEntities.map { $0.historyTombstoneSlots.count }.max() ?? 0
        for i in 0..<needed { try db.execute("ALTER TABLE \"ACHANGE\" ADD COLUMN IF NOT EXISTS \"ZTOMBSTONE\(i)\" text") }
        var rewrites: [(key: Int64, entity: Int64, columns: [UInt8]?, tombstone: [AttributeValue])] = []
        try forEachChange(db, schema: source, schemaName: schemaName, fromTransaction: 0) { change throws(ObjectGraphError) in
            guard let r = HistoryChangeDecoder.rewrite(change, from: source, to: destination, numbers: numbers) else { return }
            rewrites.append((change.changeID, r.entity, r.columns, r.tombstone))
        }
        let sets = (0..<needed).map { ", ZTOMBSTONE\($0) = ?" }.joined()
        for r in rewrites {
            var parameters: [PostgreSQLParameter] = [.integer(r.entity), r.columns.map { .bytes($0) } ?? PostgreSQLParameter(text: nil, type: PostgreSQLParameter.bytea)]
            for i in 0..<needed {
                parameters.append((i < r.tombstone.count ? (PostgreSQLParameter.storing(r.tombstone[i]) ?? .null) : .null).asText)
            }
            parameters.append(.integer(r.key))
            try db.query("UPDATE ACHANGE SET ZENTITY = ?, ZCOLUMNS = ?\(sets) WHERE Z_PK = ?", parameters)
        }
        _ = try record(db, schema: destination, [], by: HistoryAuthorship(author: SQLiteHistory.migratorAuthor), at: Date())
    }
}
