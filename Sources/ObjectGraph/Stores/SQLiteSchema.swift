import CSQLite
import FoundationEssentials

/// How a model maps onto tables in Core Data's SQLite layout (DESIGN §4,
/// docs/store-format.md): one table per inheritance hierarchy, entity numbers in
/// pre-order over the roots sorted by name, a column per stored attribute and to-one,
/// a destination-entity column (`Z<n>_<NAME>`) beside a to-one whose destination has
/// subentities, an order column (`Z_FOK_<NAME>`) beside the to-one inverse of an ordered
/// to-many, and a join table (`Z_<n><NAME>`) per many-to-many or inverse-less to-many.
struct SQLiteSchema {
    enum ColumnRole {
        /// An attribute's value or a to-one's destination primary key.
        case value
        /// The entity number (`Z_ENT`) of the row a to-one points at.
        case destinationEntity(RelationshipDescription)
        /// The position of this row in the ordered to-many inverse of a to-one.
        case order(RelationshipDescription)
    }

    struct Column {
        let name: String
        /// `name` as SQL spells it (`sqlIdentifier`).
        let sql: String
        let declaredType: String
        let property: PropertyDescription
        var role: ColumnRole = .value
        var isValue: Bool { if case .value = role { return true } else { return false } }

        init(name: String, declaredType: String, property: PropertyDescription, role: ColumnRole = .value) {
            self.name = name
            self.sql = sqlIdentifier(name)
            self.declaredType = declaredType
            self.property = property
            self.role = role
        }
    }

    struct Table {
        let root: EntityDescription
        let name: String
        /// `name` as SQL spells it (`sqlIdentifier`).
        var sql: String { sqlIdentifier(name) }
        var columns: [Column] = []
        /// Every column SELECTs read, as SQL spells them: Z_PK, Z_ENT, Z_OPT, then `columns`.
        var selectColumns: [String] = []
        /// Entities stored in this table, parents first.
        var entities: [EntityDescription] = []
        var foreignKeyColumns: [String] = []
        /// Extra CREATE INDEX statements (indexed attributes, fetch indexes, uniqueness).
        var indexStatements: [String] = []
    }

    /// A table holding the pairs of a many-to-many (or inverse-less to-many) relationship.
    struct JoinTable {
        let name: String
        /// The relationship the table is named after.
        let relationship: RelationshipDescription
        /// Holds primary keys of `relationship`'s source rows.
        let sourceColumn: String
        /// Holds primary keys of `relationship`'s destination rows.
        let destinationColumn: String
        /// Orders the members of `relationship` when it is ordered.
        let destinationOrderColumn: String?
        /// Orders the members of the inverse when the inverse is ordered.
        let sourceOrderColumn: String?
    }

    /// How one to-many relationship is stored.
    enum ToManyStorage {
        /// Through the destination's to-one inverse column; `orderColumn` when ordered.
        case inverseColumn(table: Int, column: String, orderColumn: String?)
        /// Through a join table; `ownerColumn` holds this side's keys, `memberColumn` the
        /// members' keys, `orderColumn` the members' order when this side is ordered.
        case join(table: String, ownerColumn: String, memberColumn: String, orderColumn: String?)
    }

    /// Per entity: its number (`Z_ENT`), table, and for each slot the column index (or -1).
    struct EntityMapping {
        let entity: EntityDescription
        let number: Int
        let tableIndex: Int
        let columnBySlot: [Int]
        /// Numbers of this entity and its descendants, for `Z_ENT IN (...)`.
        let descendantNumbers: [Int]
    }

    var tables: [Table] = []
    var joinTables: [JoinTable] = []
    var mappings: [ObjectIdentifier: EntityMapping] = [:]
    var entityByNumber: [Int: EntityDescription] = [:]
    var numberOf: [ObjectIdentifier: Int] = [:]
    var toMany: [ObjectIdentifier: ToManyStorage] = [:]
    /// The hierarchy roots whose tables this store has: those of its configuration's
    /// entities (a listed subentity brings its hierarchy's table). Numbers, columns and
    /// mappings still cover the whole model, so a store of one configuration numbers
    /// entities as a store of all of them does.
    var storedRoots = Set<ObjectIdentifier>()

    /// Whether the store has the table of `entity`'s hierarchy.
    func isStored(_ entity: EntityDescription) -> Bool { storedRoots.contains(ObjectIdentifier(entity.rootEntity)) }

    /// Whether a join table's two hierarchies are both stored (otherwise the relationship
    /// would cross stores and holds nothing here).
    func isStored(_ join: JoinTable) -> Bool {
        guard let a = join.relationship.entity, let b = join.relationship.destinationEntity else { return false }
        return isStored(a) && isStored(b)
    }

    init(model: ManagedObjectModel, entities: [EntityDescription]? = nil) throws(ObjectGraphError) {
        for e in entities ?? model.entities { storedRoots.insert(ObjectIdentifier(e.rootEntity)) }
        let roots = model.entitiesSortedByName.filter { $0.superentity == nil }
        var number = 0
        for root in roots {
            for entity in root.selfAndDescendants {
                number += 1
                entityByNumber[number] = entity
                numberOf[ObjectIdentifier(entity)] = number
            }
        }
        // Columns of each hierarchy, with the order columns other tables ask for.
        var orderColumnFor: [ObjectIdentifier: RelationshipDescription] = [:]  // to-one → its ordered to-many inverse
        for root in roots {
            for entity in root.selfAndDescendants {
                for case let r as RelationshipDescription in entity.ownProperties where r.isToMany && r.isOrdered && !r.isTransient {
                    if let inverse = r.inverseRelationship, !inverse.isToMany { orderColumnFor[ObjectIdentifier(inverse)] = r }
                }
            }
        }
        for root in roots {
            var table = Table(root: root, name: "Z" + root.name.uppercased())
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            func unique(_ base: String) -> String {
                var name = base
                if used.contains(name) {
                    var n = 1
                    while used.contains(base + String(n)) { n += 1 }
                    name = base + String(n)
                }
                used.insert(name)
                return name
            }
            // Columns are grouped by declared type as Core Data groups them; within a
            // group, entities in pre-order, attributes before relationships, by name.
            var pending: [(group: Int, entity: Int, kind: Int, name: String, columns: [Column])] = []
            for (entityIndex, entity) in root.selfAndDescendants.enumerated() {
                table.entities.append(entity)
                for property in entity.ownProperties where !property.isTransient {
                    if let a = property as? AttributeDescription {
                        let type = Self.declaredType(a.attributeType)
                        let column = Column(name: "Z" + property.name.uppercased(), declaredType: type, property: property)
                        pending.append((Self.typeGroup(a.attributeType), entityIndex, 0, property.name, [column]))
                    } else if let r = property as? RelationshipDescription, !r.isToMany {
                        var columns = [Column(name: "Z" + r.name.uppercased(), declaredType: "INTEGER", property: r)]
                        if let destination = r.destinationEntity, !destination.subentities.isEmpty,
                            let n = numberOf[ObjectIdentifier(destination)]
                        {
                            columns.append(Column(name: "Z\(n)_" + r.name.uppercased(), declaredType: "INTEGER", property: r, role: .destinationEntity(r)))
                        }
                        if let ordered = orderColumnFor[ObjectIdentifier(r)] {
                            columns.append(Column(name: "Z_FOK_" + r.name.uppercased(), declaredType: "INTEGER", property: r, role: .order(ordered)))
                        }
                        pending.append((0, entityIndex, 1, r.name, columns))
                    }
                }
            }
            pending.sort { ($0.group, $0.entity, $0.kind, $0.name) < ($1.group, $1.entity, $1.kind, $1.name) }
            var columnByProperty: [ObjectIdentifier: Int] = [:]
            for item in pending {
                for var column in item.columns {
                    column = Column(name: unique(column.name), declaredType: column.declaredType, property: column.property, role: column.role)
                    if column.isValue {
                        columnByProperty[ObjectIdentifier(column.property)] = table.columns.count
                        if column.property is RelationshipDescription { table.foreignKeyColumns.append(column.name) }
                    }
                    table.columns.append(column)
                }
            }
            table.selectColumns = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.sql)
            let tableIndex = tables.count
            tables.append(table)
            for entity in table.entities {
                let columnBySlot = entity.properties.map { columnByProperty[ObjectIdentifier($0)] ?? -1 }
                let descendants = entity.selfAndDescendants.compactMap { numberOf[ObjectIdentifier($0)] }
                mappings[ObjectIdentifier(entity)] = EntityMapping(
                    entity: entity, number: numberOf[ObjectIdentifier(entity)] ?? 0, tableIndex: tableIndex, columnBySlot: columnBySlot,
                    descendantNumbers: descendants.sorted())
            }
        }
        for i in tables.indices { tables[i].indexStatements = indexStatements(tables[i]) }
        try mapToManyRelationships(roots)
    }

    /// Join tables for many-to-many and inverse-less to-many relationships; storage of
    /// every to-many.
    private mutating func mapToManyRelationships(_ roots: [EntityDescription]) throws(ObjectGraphError) {
        var joined = Set<ObjectIdentifier>()
        for root in roots {
            for entity in root.selfAndDescendants {
                for case let r as RelationshipDescription in entity.ownProperties where r.isToMany && !r.isTransient {
                    guard let destination = r.destinationEntity else { continue }
                    if let inverse = r.inverseRelationship, !inverse.isToMany {
                        let m = mapping(inverse.entity ?? destination)
                        let slot = inverse.slot
                        let column = slot < m.columnBySlot.count ? m.columnBySlot[slot] : -1
                        guard column >= 0 else {
                            throw .invalidModel("relationship '\(r.qualifiedName)': its inverse '\(inverse.qualifiedName)' is not stored")
                        }
                        let table = tables[m.tableIndex]
                        let order = r.isOrdered ? table.columns.first { if case .order(let o) = $0.role { return o === r } else { return false } }?.name : nil
                        toMany[ObjectIdentifier(r)] = .inverseColumn(table: m.tableIndex, column: table.columns[column].name, orderColumn: order)
                        continue
                    }
                    if joined.contains(ObjectIdentifier(r)) { continue }
                    // The side whose entity has the lower number (then the lower name) names the table.
                    var owner = r
                    if let inverse = r.inverseRelationship, inverse.isToMany, let ie = inverse.entity {
                        let a = (numberOf[ObjectIdentifier(entity)] ?? 0, r.name), b = (numberOf[ObjectIdentifier(ie)] ?? 0, inverse.name)
                        if b < a { owner = inverse }
                    }
                    guard let ownerEntity = owner.entity, let ownerDestination = owner.destinationEntity else { continue }
                    let ownerNumber = numberOf[ObjectIdentifier(ownerEntity)] ?? 0
                    let destinationNumber = numberOf[ObjectIdentifier(ownerDestination)] ?? 0
                    let inverse = owner.inverseRelationship
                    let name = "Z_\(ownerNumber)\(owner.name.uppercased())"
                    let sourceBase = "Z_\(ownerNumber)" + (inverse?.name ?? ownerEntity.name).uppercased()
                    let destinationColumn = "Z_\(destinationNumber)\(owner.name.uppercased())"
                    let sourceColumn = sourceBase == destinationColumn ? sourceBase + "1" : sourceBase
                    let join = JoinTable(
                        name: name, relationship: owner, sourceColumn: sourceColumn, destinationColumn: destinationColumn,
                        destinationOrderColumn: owner.isOrdered ? "Z_FOK_" + destinationColumn.dropFirst(2) : nil,
                        sourceOrderColumn: (inverse?.isOrdered ?? false) ? "Z_FOK_" + sourceColumn.dropFirst(2) : nil)
                    joinTables.append(join)
                    toMany[ObjectIdentifier(owner)] = .join(
                        table: name, ownerColumn: sourceColumn, memberColumn: destinationColumn, orderColumn: join.destinationOrderColumn)
                    joined.insert(ObjectIdentifier(owner))
                    if let inverse, inverse.isToMany {
                        toMany[ObjectIdentifier(inverse)] = .join(
                            table: name, ownerColumn: destinationColumn, memberColumn: sourceColumn, orderColumn: join.sourceOrderColumn)
                        joined.insert(ObjectIdentifier(inverse))
                    }
                }
            }
        }
    }

    /// CREATE INDEX statements for indexed attributes, fetch indexes and uniqueness
    /// constraints of the table's entities, in Core Data's naming.
    private func indexStatements(_ table: Table) -> [String] {
        var out: [String] = []
        func column(_ entity: EntityDescription, _ name: String) -> String? {
            guard let slot = entity.slot(forKey: name) else { return nil }
            let c = mapping(entity).columnBySlot[slot]
            return c >= 0 ? table.columns[c].name : nil
        }
        for entity in table.entities {
            for case let a as AttributeDescription in entity.ownProperties where a.isIndexed && !a.isTransient {
                if let c = column(entity, a.name) {
                    out.append("CREATE INDEX \(sqlIdentifier(table.name + "_" + c + "_INDEX")) ON \(table.sql) (\(sqlIdentifier(c)))")
                }
            }
            for index in entity.fetchIndexes {
                let parts = index.elements.compactMap { e in
                    column(entity, e.property).map { "\(sqlIdentifier($0)) COLLATE BINARY \(e.ascending ? "ASC" : "DESC")" }
                }
                if parts.count == index.elements.count, !parts.isEmpty {
                    out.append("CREATE INDEX \(sqlIdentifier("Z_" + entity.name + "_" + index.name)) ON \(table.sql) (\(parts.joined(separator: ", ")))")
                }
            }
            for constraint in entity.uniquenessConstraints {
                let parts = constraint.compactMap { column(entity, $0).map { "\(sqlIdentifier($0)) COLLATE BINARY ASC" } }
                if parts.count == constraint.count, !parts.isEmpty {
                    let name = "Z_" + entity.name + "_UNIQUE_" + constraint.joined(separator: "_")
                    out.append("CREATE UNIQUE INDEX \(sqlIdentifier(name)) ON \(table.sql) (\(parts.joined(separator: ", ")))")
                }
            }
        }
        return out
    }

    func mapping(_ entity: EntityDescription) -> EntityMapping { mappings[ObjectIdentifier(entity)]! }

    func table(_ entity: EntityDescription) -> Table { tables[mapping(entity).tableIndex] }

    func number(_ entity: EntityDescription) -> Int { numberOf[ObjectIdentifier(entity)] ?? 0 }

    static func declaredType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .string, .uri: "VARCHAR"
        case .date: "TIMESTAMP"
        case .binaryData, .transformable, .uuid, .undefined, .objectID: "BLOB"
        }
    }

    /// The order of column groups in Core Data's CREATE TABLE: integers (with to-ones),
    /// reals, dates, decimals, strings, then blobs (UUIDs before data and transformables).
    static func typeGroup(_ type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: 0
        case .double, .float: 1
        case .date: 2
        case .decimal: 3
        case .string, .uri: 4
        case .uuid: 5
        case .binaryData, .undefined, .objectID: 6
        case .transformable: 7
        }
    }

    /// The statements that create an empty store, in Core Data's spelling.
    var createStatements: [String] {
        var out: [String] = []
        let tables = self.tables.filter { isStored($0.root) }
        let joinTables = self.joinTables.filter { isStored($0) }
        for table in tables {
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\($0.sql) \($0.declaredType)" }
            out.append("CREATE TABLE \(table.sql) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            let source = sqlIdentifier(join.sourceColumn), destination = sqlIdentifier(join.destinationColumn)
            var columns = ["\(source) INTEGER", "\(destination) INTEGER"]
            if let o = join.destinationOrderColumn { columns.append("\(sqlIdentifier(o)) INTEGER") }
            if let o = join.sourceOrderColumn { columns.append("\(sqlIdentifier(o)) INTEGER") }
            columns.append("PRIMARY KEY (\(source), \(destination))")
            out.append("CREATE TABLE \(sqlIdentifier(join.name)) ( \(columns.joined(separator: ", ")) )")
        }
        for table in tables {
            for fk in table.foreignKeyColumns {
                out.append("CREATE INDEX \(sqlIdentifier(table.name + "_" + fk + "_INDEX")) ON \(table.sql) (\(sqlIdentifier(fk)))")
            }
            if table.entities.count > 1 {
                out.append("CREATE INDEX \(sqlIdentifier(table.name + "_Z_ENT_INDEX")) ON \(table.sql) (Z_ENT)")
            }
            out.append(contentsOf: table.indexStatements)
        }
        for join in joinTables {
            let index = sqlIdentifier(join.name + "_" + join.destinationColumn + "_INDEX")
            out.append("CREATE INDEX \(index) ON \(sqlIdentifier(join.name)) (\(sqlIdentifier(join.destinationColumn)), \(sqlIdentifier(join.sourceColumn)))")
        }
        out.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        out.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        return out
    }

    /// The first table or column this schema needs that an existing store lacks.
    func missing(in existing: [String: Set<String>]) -> (table: String, column: String?)? {
        for table in tables where isStored(table.root) {
            guard let have = existing[table.name] else { return (table.name, nil) }
            for column in table.columns where !have.contains(column.name) { return (table.name, column.name) }
        }
        for join in joinTables where isStored(join) {
            guard let have = existing[join.name] else { return (join.name, nil) }
            for c in [join.sourceColumn, join.destinationColumn] + [join.destinationOrderColumn, join.sourceOrderColumn].compactMap({ $0 })
            where !have.contains(c) {
                return (join.name, c)
            }
        }
        return nil
    }

    /// The SELECT list shared by every query on `table`: the key, entity, version and
    /// every value column (bookkeeping columns are written, never read into snapshots).
    /// The WHERE term (on alias t0) that keeps the rows of `entity`, and of its subentities
    /// when they are included, in its hierarchy's table; nil when every row qualifies.
    func entityCondition(_ entity: EntityDescription, includesSubentities: Bool) -> String? {
        let mapping = mapping(entity)
        guard includesSubentities else { return "t0.Z_ENT = \(mapping.number)" }
        if entity === tables[mapping.tableIndex].root { return nil }
        return "t0.Z_ENT IN (\(mapping.descendantNumbers.map(String.init).joined(separator: ", ")))"
    }

    func selectList(_ table: Table, alias: String? = nil) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return table.selectColumns.map { prefix + $0 }.joined(separator: ", ")
    }
}

/// `name` as an SQL identifier. A plain word that SQLite reads as a name (ASCII letters,
/// digits and underscores, not starting with a digit, not an SQL keyword) stays bare, as
/// Core Data spells its tables, columns and indexes, so our stores keep Apple's schema
/// text; anything else is double-quoted with its quotes doubled. Every table, column and
/// index name that comes from a model goes through this wherever it meets SQL (the model
/// validator refuses other names first; this is the second guard).
func sqlIdentifier(_ name: String) -> String {
    var plain = !name.isEmpty
    for (i, b) in name.utf8.enumerated() where plain {
        let letter = (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || b == UInt8(ascii: "_")
        let digit = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
        plain = letter || (digit && i > 0)
    }
    if plain {
        let isKeyword = sqlite3_keyword_check(name, Int32(name.utf8.count)) != 0
        if !isKeyword { return name }
    }
    return "\"" + name.replacing("\"", with: "\"\"") + "\""
}
