/// Fills a store with the main workload's items in one SQL statement (preparation, not
/// timed): item `i` (0-based) has `a_k = i*10 + k`, as Workload.value.
enum ItemFill {
    /// The SELECT producing `rows` items: the row number `value` (1…rows), then a0…a9.
    private static func source(rows: Int) -> String {
        let values = (0..<Workload.attributeCount).map { "(value - 1) * 10 + \($0)" }.joined(separator: ", ")
        return """
            WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < \(rows))
            SELECT value, \(values) FROM n
            """
    }

    /// The `item` table of raw SQLite and GRDB (Workload.createTableSQL), filled.
    static func fillTable(path: String, rows: Int) throws {
        let db = try SQLiteDB(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute(Workload.createTableSQL)
        try db.execute("BEGIN")
        try db.execute("INSERT INTO item (id, \(Workload.attributeNames.joined(separator: ", "))) \(source(rows: rows))")
        try db.execute("COMMIT")
    }

    /// The `ZITEM` table of a store ObjectGraph has just created, filled in its layout:
    /// primary key, the attributes, entity number and optimistic-locking version.
    static func fillStore(path: String, rows: Int) throws {
        let db = try SQLiteDB(path: path)
        let entity = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }.joined(separator: ", ")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO ZITEM (Z_PK, \(columns), Z_ENT, Z_OPT) SELECT *, \(entity), 1 FROM (\(source(rows: rows)))")
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_NAME = 'Item'")
        try db.execute("COMMIT")
    }
}
