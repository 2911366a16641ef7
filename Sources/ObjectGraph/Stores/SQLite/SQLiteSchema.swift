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
        var isDestinationEntity: Bool { if case .destinationEntity = role { return true } else { return false } }
        var isOrder: Bool { if case .order = role { return true } else { return false } }

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

    /// The entities whose rows this store keeps (in entity-number order).
    var storedEntities: [EntityDescription] {
        entityByNumber.keys.sorted().compactMap { entityByNumber[$0] }.filter(isStored)
    }

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
            var names = ColumnNames()
            // A column per stored attribute and to-one of each entity of the hierarchy. A
            // name taken by an earlier entity (in pre-order) gets a numeric suffix, as
            // Core Data names them; a redeclared property keeps its inherited column.
            var pending: [(group: Int, entity: Int, kind: Int, name: String, columns: [Column])] = []
            var redeclared: [(PropertyDescription, PropertyDescription)] = []
            for (entityIndex, entity) in root.selfAndDescendants.enumerated() {
                table.entities.append(entity)
                var own: [(group: Int, entity: Int, kind: Int, name: String, columns: [Column])] = []
                for property in entity.ownProperties where !(property is FetchedPropertyDescription) {
                    if let inherited = entity.superentity?.property(named: property.name), Self.sharesColumn(property, inherited) {
                        redeclared.append((property, inherited))
                        continue
                    }
                    if property.isTransient { continue }
                    if let a = property as? AttributeDescription {
                        let type = Self.declaredType(a.attributeType)
                        let column = Column(name: "Z" + property.name.uppercased(), declaredType: type, property: property)
                        own.append((Self.typeGroup(a.attributeType), entityIndex, 0, property.name, [column]))
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
                        own.append((0, entityIndex, 1, r.name, columns))
                    }
                }
                own.sort { ($0.group, $0.kind, $0.name) < ($1.group, $1.kind, $1.name) }
                for i in own.indices {
                    own[i].columns = own[i].columns.map {
                        Column(name: names.unique($0.name), declaredType: $0.declaredType, property: $0.property, role: $0.role)
                    }
                }
                pending += own
            }
            // Columns are grouped by declared type as Core Data groups them; within a
            // group, entities in pre-order, attributes before relationships, by name.
            pending.sort { ($0.group, $0.entity, $0.kind, $0.name) < ($1.group, $1.entity, $1.kind, $1.name) }
            var columnByProperty: [ObjectIdentifier: Int] = [:]
            for item in pending {
                for column in item.columns {
                    if column.isValue {
                        columnByProperty[ObjectIdentifier(column.property)] = table.columns.count
                        if column.property is RelationshipDescription { table.foreignKeyColumns.append(column.name) }
                    }
                    table.columns.append(column)
                }
            }
            for (property, inherited) in redeclared {
                columnByProperty[ObjectIdentifier(property)] = columnByProperty[ObjectIdentifier(inherited)]
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
        var owners: [RelationshipDescription] = []
        var seen = Set<ObjectIdentifier>()
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
                    let owner = Self.joinTableOwner(r)
                    if seen.insert(ObjectIdentifier(owner)).inserted { owners.append(owner) }
                }
            }
        }
        // Join columns share one namespace, named in the order Core Data creates the tables:
        // by the naming side's entity number, then its name. A column name already taken
        // (two relationships of the same name pointing at one entity) gets a suffix.
        owners.sort { ($0.entity.map(number) ?? 0, $0.name) < ($1.entity.map(number) ?? 0, $1.name) }
        var names = ColumnNames(reserved: [])
        for owner in owners {
            guard let ownerEntity = owner.entity, let ownerDestination = owner.destinationEntity else { continue }
            let ownerNumber = number(ownerEntity)
            let destinationNumber = number(ownerDestination)
            let inverse = owner.inverseRelationship
            let name = "Z_\(ownerNumber)\(owner.name.uppercased())"
            let destinationColumn = names.unique("Z_\(destinationNumber)\(owner.name.uppercased())")
            // Without an inverse, the source column is named after the source entity; a
            // relationship that is its own inverse gets the suffix here.
            let sourceColumn = names.unique("Z_\(ownerNumber)" + (inverse?.name ?? ownerEntity.name).uppercased())
            let join = JoinTable(
                name: name, relationship: owner, sourceColumn: sourceColumn, destinationColumn: destinationColumn,
                destinationOrderColumn: owner.isOrdered ? "Z_FOK_" + destinationColumn.dropFirst(2) : nil,
                sourceOrderColumn: (inverse?.isOrdered ?? false) ? "Z_FOK_" + sourceColumn.dropFirst(2) : nil)
            joinTables.append(join)
            toMany[ObjectIdentifier(owner)] = .join(
                table: name, ownerColumn: sourceColumn, memberColumn: destinationColumn, orderColumn: join.destinationOrderColumn)
            if let inverse, inverse.isToMany {
                toMany[ObjectIdentifier(inverse)] = .join(
                    table: name, ownerColumn: destinationColumn, memberColumn: sourceColumn, orderColumn: join.sourceOrderColumn)
            }
        }
    }

    /// Which side of a many-to-many names its join table, as Core Data chooses it: the side
    /// declared on the entity whose name sorts first (by UTF-16 code unit: for roots, the
    /// lower entity number); between two relationships of one entity, the one whose name
    /// sorts last (`blocking` over `blockedBy`). A to-many without a to-many inverse, or
    /// that is its own inverse, names its own table.
    static func joinTableOwner(_ r: RelationshipDescription) -> RelationshipDescription {
        guard let inverse = r.inverseRelationship, inverse !== r, inverse.isToMany, let a = r.entity, let b = inverse.entity else { return r }
        if a === b { return VersionHash.utf16Less(r.name, inverse.name) ? inverse : r }
        return VersionHash.utf16Less(a.name, b.name) ? r : inverse
    }

    /// Whether a redeclared property keeps the column of the one it redeclares: both
    /// stored, and of one kind (attributes, or to-one relationships).
    static func sharesColumn(_ p: PropertyDescription, _ inherited: PropertyDescription) -> Bool {
        guard !p.isTransient, !inherited.isTransient else { return false }
        if p is AttributeDescription, inherited is AttributeDescription { return true }
        if let r = p as? RelationshipDescription, let i = inherited as? RelationshipDescription { return !r.isToMany && !i.isToMany }
        return false
    }

    /// CREATE INDEX statements for the fetch indexes (indexed properties among them) and
    /// uniqueness constraints of the table's entities, in Core Data's naming. As Core
    /// Data, no index is made for an R-tree index (a spatial index this store does not
    /// keep) nor for a to-one alone (its foreign key's index serves), and a partial index
    /// keeps its predicate as a WHERE clause.
    private func indexStatements(_ table: Table) -> [String] {
        var out: [String] = []
        var made = Set<String>()
        func column(_ entity: EntityDescription, _ name: String) -> String? {
            guard let slot = entity.slot(forKey: name) else { return nil }
            let c = mapping(entity).columnBySlot[slot]
            return c >= 0 ? table.columns[c].name : nil
        }
        for entity in table.entities {
            for index in entity.fetchIndexes where !index.elements.isEmpty {
                if index.elements.contains(where: { $0.collation == .rtree }) { continue }
                if index.elements.count == 1, entity.property(named: index.elements[0].property) is RelationshipDescription { continue }
                let parts = index.elements.compactMap { e in
                    column(entity, e.property).map { "\(sqlIdentifier($0)) COLLATE BINARY \(e.ascending ? "ASC" : "DESC")" }
                }
                guard parts.count == index.elements.count else { continue }
                var condition = ""
                if let format = index.partialPredicate {
                    guard let sql = SQLiteIndexPredicate.sql(format, entity: entity, column: { column(entity, $0) }) else { continue }
                    condition = " WHERE " + sql
                }
                let name = "Z_" + entity.name + "_" + index.name
                guard made.insert(name).inserted else { continue }
                out.append("CREATE INDEX \(sqlIdentifier(name)) ON \(table.sql) (\(parts.joined(separator: ", ")))" + condition)
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

/// Names handed out in one namespace: a name already taken gets the smallest free
/// numeric suffix (`ZNAME1`, `ZNAME2`, …), as Core Data suffixes colliding columns.
struct ColumnNames {
    private var used: Set<String>

    init(reserved: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]) { used = reserved }

    mutating func unique(_ base: String) -> String {
        var name = base
        if used.contains(name) {
            var n = 1
            while used.contains(base + String(n)) { n += 1 }
            name = base + String(n)
        }
        used.insert(name)
        return name
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
