import CSQLite
import FoundationEssentials

/// Runs an `SQLiteInPlacePlan` on a store file, as Core Data migrates SQLite stores
/// lightweight: in one transaction, the old tables are renamed aside, the new model's
/// tables created, every row copied with `INSERT … SELECT`, the old tables dropped, the
/// indexes built, and `Z_PRIMARYKEY`, `Z_METADATA` and `Z_MODELCACHE` rewritten. The UUID
/// and custom metadata stay. Any failure rolls the whole transaction back: the file is
/// as it was.
enum SQLiteInPlaceMigration {
    /// Tables Core Data keeps beside the model's, never touched here.
    static let bookkeeping: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    static func run(
        _ plan: SQLiteInPlacePlan, path: String, destinationModel: ManagedObjectModel, versionHashes: [String: PropertyListValue],
        progress: ((Double) -> Void)? = nil
    ) throws(ObjectGraphError) {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        try db.execute("BEGIN IMMEDIATE")
        do throws(ObjectGraphError) {
            try migrate(plan, db: db, path: path, destinationModel: destinationModel, versionHashes: versionHashes, progress: progress)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            if (134110...134190).contains(error.code) { throw error }
            throw ObjectGraphError(
                code: ErrorCode.migration, message: "cannot migrate the store '\(path)' in place: \(error.message); the store is unchanged",
                userInfo: [(ErrorUserInfoKey.filePath, path)], details: [error])
        }
    }

    private static func migrate(
        _ plan: SQLiteInPlacePlan, db: SQLiteConnection, path: String, destinationModel: ManagedObjectModel, versionHashes: [String: PropertyListValue],
        progress: ((Double) -> Void)?
    ) throws(ObjectGraphError) {
        let existing = Set(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
        // The old join tables as the file names them (SQLiteSchema+ExistingJoins).
        var source = plan.source
        var columns: [String: Set<String>] = [:]
        for name in existing where name.hasPrefix("Z_") && !bookkeeping.contains(name) {
            columns[name] = Set(try db.strings("SELECT name FROM pragma_table_info(?)", binding: [name]))
        }
        let renames = source.adoptJoinTables(from: columns)
        let oldTables = (source.tables.map(\.name) + source.joinTables.map(\.name)).filter { existing.contains($0) && !bookkeeping.contains($0) }
        var aside: [String: String] = [:]
        // Set the old tables aside; their indexes go first, so the new ones can take their names.
        for (i, name) in Set(oldTables).sorted().enumerated() {
            let indexes = try db.strings("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", binding: [name])
            for index in indexes { try db.execute("DROP INDEX \(sqlIdentifier(index))") }
            let temporary = "Z_MIGRATING_\(i)"
            try db.execute("ALTER TABLE \(sqlIdentifier(name)) RENAME TO \(sqlIdentifier(temporary))")
            aside[name] = temporary
        }
        let statements = plan.destination.createStatements.filter { statement in
            !bookkeeping.contains { statement.hasPrefix("CREATE TABLE \($0) ") }
        }
        for statement in statements where statement.hasPrefix("CREATE TABLE") { try db.execute(statement) }

        let total = Double(max(plan.rows.count + plan.joins.count, 1))
        var done = 0.0
        for copy in plan.rows {
            let sTable = plan.source.table(copy.sourceEntity), dTable = plan.destination.table(copy.destinationEntity)
            guard let old = aside[sTable.name] else { continue }
            let sql = "INSERT INTO \(dTable.sql) (\(copy.columns.joined(separator: ", "))) SELECT \(copy.expressions.joined(separator: ", ")) FROM \(sqlIdentifier(old)) WHERE Z_ENT = \(plan.source.number(copy.sourceEntity))"
            let s = try db.prepare(sql)
            for (i, v) in copy.bindings.enumerated() { s.bind(Int32(i + 1), storing: v) }
            try s.run()
            let entityNumber = plan.destination.number(copy.destinationEntity)
            for (property, column) in copy.required {
                let missing = try db.strings("SELECT COUNT(*) FROM \(dTable.sql) WHERE Z_ENT = \(entityNumber) AND \(column) IS NULL")
                if let n = missing.first, n != "0" {
                    throw ObjectGraphError(
                        code: ErrorCode.migration,
                        message: "\(n) \(copy.destinationEntity.name) object\(n == "1" ? "" : "s") would have no value for the required property '\(property)'",
                        userInfo: [(ErrorUserInfoKey.entity, copy.destinationEntity.name), (ErrorUserInfoKey.property, property)])
                }
            }
            done += 1
            progress?(done / total)
        }
        for join in plan.joins {
            let rename = renames[join.sourceTable]
            guard let old = aside[rename?.table ?? join.sourceTable] else { continue }
            // The plan names the old columns as predicted; the file's names where they differ.
            var renamedColumns: [String: String] = [:]
            for (predicted, actual) in rename?.columns ?? [:] { renamedColumns[sqlIdentifier(predicted)] = sqlIdentifier(actual) }
            let select = join.select.map { renamedColumns[$0] ?? $0 }
            try db.execute(
                "INSERT INTO \(sqlIdentifier(join.destination.name)) (\(join.columns.joined(separator: ", "))) SELECT \(select.joined(separator: ", ")) FROM \(sqlIdentifier(old))")
            done += 1
            progress?(done / total)
        }
        let counters = try oldCounters(db, plan)
        for temporary in aside.values.sorted() { try db.execute("DROP TABLE \(sqlIdentifier(temporary))") }
        for statement in statements where !statement.hasPrefix("CREATE TABLE") { try db.execute(statement) }
        let historyCounters = try SQLiteHistory.counters(db)
        try writeKeys(db, plan, counters)
        try SQLiteHistory.restore(historyCounters, db)
        try SQLiteHistory.migrate(db, from: plan.source, to: plan.destination, numbers: plan.numbers)
        try writeMetadata(db, path: path, destinationModel: destinationModel, versionHashes: versionHashes)
        // The store keeps the model that now wrote it, as Core Data does.
        try SQLiteStore.writeModelCache(destinationModel, db: db)
    }

    /// The old key counters (`Z_MAX`) by old entity number.
    private static func oldCounters(_ db: SQLiteConnection, _ plan: SQLiteInPlacePlan) throws(ObjectGraphError) -> [Int: Int64] {
        let s = try db.prepare("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
        var out: [Int: Int64] = [:]
        try s.forEachRow { row in out[Int(row.int64(0))] = row.int64(1) }
        return out
    }

    /// `Z_PRIMARYKEY` rewritten for the new model (`SQLiteInPlacePlan.keyCounters`).
    private static func writeKeys(_ db: SQLiteConnection, _ plan: SQLiteInPlacePlan, _ old: [Int: Int64]) throws(ObjectGraphError) {
        try db.execute("DELETE FROM Z_PRIMARYKEY")
        let counters = try plan.keyCounters(old: old) { table throws(ObjectGraphError) in
            try db.strings("SELECT IFNULL(MAX(Z_PK), 0) FROM \(table.sql)").first.flatMap { Int64($0) } ?? 0
        }
        let insert = try db.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        for row in counters {
            insert.bind(1, row.number)
            insert.bind(2, text: row.name)
            insert.bind(3, row.superNumber)
            insert.bind(4, row.max)
            try insert.run()
        }
    }

    /// The metadata of the migrated store: the new model's version hashes and identifiers;
    /// the UUID and every other key kept.
    private static func writeMetadata(
        _ db: SQLiteConnection, path: String, destinationModel: ManagedObjectModel, versionHashes: [String: PropertyListValue]
    ) throws(ObjectGraphError) {
        var plist = try SQLiteStore.metadata(db, path: path).plist
        plist[StoreMetadataKey.modelVersionHashes] = .dictionary(versionHashes)
        plist[StoreMetadataKey.modelVersionIdentifiers] = .array(destinationModel.versionIdentifiers.map { .string($0) })
        let update = try db.prepare("UPDATE Z_METADATA SET Z_PLIST = ?")
        update.bind(1, bytes: BinaryPropertyList.encode(.dictionary(plist)))
        try update.run()
    }
}
