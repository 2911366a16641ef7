/// Core Data's table layout (`SQLiteSchema`: the same tables, columns and names) in
/// PostgreSQL's types, chosen so every value round-trips exactly and a store moves to and
/// from SQLite with nothing lost (docs/postgres.md):
///
/// | Core Data | PostgreSQL |
/// |---|---|
/// | integers, Boolean, to-one keys, `Z_PK`, `Z_ENT`, `Z_OPT` | `bigint` |
/// | Double, Float, Date (seconds since 2001, as in SQLite) | `double precision` |
/// | Decimal | `numeric` |
/// | String, URI | `text` |
/// | Binary data, Transformable, UUID (16 bytes) | `bytea` |
///
/// Names are Apple's upper-case ones, always quoted.
enum PostgreSQLSchema {
    static func type(of column: SQLiteSchema.Column) -> String {
        guard column.isValue, let attribute = column.property as? AttributeDescription else { return "bigint" }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .boolean: return "bigint"
        case .double, .float, .date: return "double precision"
        case .decimal: return "numeric"
        case .string, .uri: return "text"
        case .binaryData, .transformable, .uuid, .undefined, .objectID: return "bytea"
        }
    }

    /// The OID of `type(of:)`, for a NULL parameter bound to the column: a NULL whose type
    /// the statement does not say (`CASE WHEN $1 IS NULL …`) is an error otherwise.
    static func typeOID(of column: SQLiteSchema.Column) -> UInt32 {
        switch type(of: column) {
        case "double precision": PostgreSQLParameter.float8
        case "numeric": PostgreSQLParameter.numeric
        case "text": PostgreSQLParameter.textType
        case "bytea": PostgreSQLParameter.bytea
        default: PostgreSQLParameter.int8
        }
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacing("\"", with: "\"\"") + "\"" }

    /// The CREATE TABLE of one entity hierarchy's table.
    static func createTable(_ table: SQLiteSchema.Table) -> String {
        let columns = ["\"Z_PK\" bigint PRIMARY KEY", "\"Z_ENT\" bigint NOT NULL", "\"Z_OPT\" bigint"]
            + table.columns.map { "\(quoted($0.name)) \(type(of: $0))" }
        return "CREATE TABLE \(quoted(table.name)) (\(columns.joined(separator: ", ")))"
    }

    static func createJoinTable(_ join: SQLiteSchema.JoinTable) -> String {
        var columns = ["\(quoted(join.sourceColumn)) bigint NOT NULL", "\(quoted(join.destinationColumn)) bigint NOT NULL"]
        if let o = join.destinationOrderColumn { columns.append("\(quoted(o)) bigint") }
        if let o = join.sourceOrderColumn { columns.append("\(quoted(o)) bigint") }
        columns.append("PRIMARY KEY (\(quoted(join.sourceColumn)), \(quoted(join.destinationColumn)))")
        return "CREATE TABLE \(quoted(join.name)) (\(columns.joined(separator: ", ")))"
    }

    /// The statements that create an empty store: its tables, the indexes Core Data makes
    /// (foreign keys, `Z_ENT`, fetch indexes, a unique index per uniqueness constraint, which
    /// upserts name), `Z_PRIMARYKEY` and `Z_METADATA`.
    static func createStatements(_ schema: SQLiteSchema) -> [String] {
        var out: [String] = []
        let tables = schema.tables.filter { schema.isStored($0.root) }
        let joins = schema.joinTables.filter { schema.isStored($0) }
        out += tables.map(createTable)
        out += joins.map(createJoinTable)
        for table in tables {
            for fk in table.foreignKeyColumns {
                out.append("CREATE INDEX \(quoted(table.name + "_" + fk + "_INDEX")) ON \(quoted(table.name)) (\(quoted(fk)))")
            }
            if table.entities.count > 1 {
                out.append("CREATE INDEX \(quoted(table.name + "_Z_ENT_INDEX")) ON \(quoted(table.name)) (\"Z_ENT\")")
            }
            out += indexStatements(schema, table)
        }
        for join in joins {
            out.append(
                "CREATE INDEX \(quoted(join.name + "_" + join.destinationColumn + "_INDEX")) ON \(quoted(join.name)) (\(quoted(join.destinationColumn)), \(quoted(join.sourceColumn)))")
        }
        out.append("CREATE TABLE \"Z_PRIMARYKEY\" (\"Z_ENT\" bigint PRIMARY KEY, \"Z_NAME\" text, \"Z_SUPER\" bigint, \"Z_MAX\" bigint)")
        out.append("CREATE TABLE \"Z_METADATA\" (\"Z_VERSION\" bigint PRIMARY KEY, \"Z_UUID\" text, \"Z_PLIST\" bytea)")
        out.append("CREATE TABLE \"Z_MODELCACHE\" (\"Z_CONTENT\" bytea)")
        return out
    }

    /// Fetch indexes over plain columns (partial and spatial ones are left to SQLite) and
    /// one unique index per uniqueness constraint.
    private static func indexStatements(_ schema: SQLiteSchema, _ table: SQLiteSchema.Table) -> [String] {
        var out: [String] = []
        var made = Set<String>()
        func column(_ entity: EntityDescription, _ name: String) -> String? {
            guard let slot = entity.slot(forKey: name) else { return nil }
            let c = schema.mapping(entity).columnBySlot[slot]
            return c >= 0 ? table.columns[c].name : nil
        }
        for entity in table.entities {
            for index in entity.fetchIndexes where !index.elements.isEmpty && index.partialPredicate == nil {
                if index.elements.contains(where: { $0.collation == .rtree }) { continue }
                if index.elements.count == 1, entity.property(named: index.elements[0].property) is RelationshipDescription { continue }
                let parts = index.elements.compactMap { e in column(entity, e.property).map { "\(quoted($0)) \(e.ascending ? "ASC" : "DESC")" } }
                guard parts.count == index.elements.count else { continue }
                let name = "Z_" + entity.name + "_" + index.name
                guard made.insert(name).inserted else { continue }
                out.append("CREATE INDEX \(quoted(name)) ON \(quoted(table.name)) (\(parts.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints {
                let parts = constraint.compactMap { column(entity, $0).map(quoted) }
                if parts.count == constraint.count, !parts.isEmpty {
                    let name = "Z_" + entity.name + "_UNIQUE_" + constraint.joined(separator: "_")
                    out.append("CREATE UNIQUE INDEX \(quoted(name)) ON \(quoted(table.name)) (\(parts.joined(separator: ", ")))")
                }
            }
        }
        return out
    }
}
