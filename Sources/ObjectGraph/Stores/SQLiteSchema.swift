/// How a model maps onto tables in Core Data's SQLite layout (DESIGN §4,
/// docs/store-format.md): one table per inheritance hierarchy, entity numbers in
/// pre-order over the roots sorted by name, a column per stored attribute and to-one.
struct SQLiteSchema {
    struct Column {
        let name: String
        let declaredType: String
        let property: PropertyDescription
    }

    struct Table {
        let root: EntityDescription
        let name: String
        var columns: [Column] = []
        /// Entities stored in this table, parents first.
        var entities: [EntityDescription] = []
        var foreignKeyColumns: [String] = []
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
    var mappings: [ObjectIdentifier: EntityMapping] = [:]
    var entityByNumber: [Int: EntityDescription] = [:]

    init(model: ManagedObjectModel) throws(ObjectGraphError) {
        let roots = model.entitiesSortedByName.filter { $0.superentity == nil }
        var number = 0
        var numberOf: [ObjectIdentifier: Int] = [:]
        for root in roots {
            var table = Table(root: root, name: "Z" + root.name.uppercased())
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            var columnByProperty: [ObjectIdentifier: Int] = [:]
            for entity in root.selfAndDescendants {
                number += 1
                entityByNumber[number] = entity
                numberOf[ObjectIdentifier(entity)] = number
                table.entities.append(entity)
                for property in entity.ownProperties where !property.isTransient {
                    let type: String
                    if let a = property as? AttributeDescription {
                        type = Self.declaredType(a.attributeType)
                    } else if let r = property as? RelationshipDescription {
                        if r.isToMany {
                            guard let inverse = r.inverseRelationship, !inverse.isToMany else {
                                throw .invalidModel(
                                    "relationship '\(r.qualifiedName)': the SQLite store keeps a to-many through its to-one inverse; give it one (many-to-many and inverse-less to-many relationships are not stored yet)")
                            }
                            continue
                        }
                        type = "INTEGER"
                    } else { continue }
                    var name = "Z" + property.name.uppercased()
                    if used.contains(name) {
                        var n = 1
                        while used.contains(name + String(n)) { n += 1 }
                        name += String(n)
                    }
                    used.insert(name)
                    columnByProperty[ObjectIdentifier(property)] = table.columns.count
                    table.columns.append(Column(name: name, declaredType: type, property: property))
                    if property is RelationshipDescription { table.foreignKeyColumns.append(name) }
                }
            }
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
    }

    func mapping(_ entity: EntityDescription) -> EntityMapping { mappings[ObjectIdentifier(entity)]! }

    func table(_ entity: EntityDescription) -> Table { tables[mapping(entity).tableIndex] }

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

    /// The statements that create an empty store, in Core Data's spelling.
    var createStatements: [String] {
        var out: [String] = []
        for table in tables {
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\($0.name) \($0.declaredType)" }
            out.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
            for fk in table.foreignKeyColumns {
                out.append("CREATE INDEX \(table.name)_\(fk)_INDEX ON \(table.name) (\(fk))")
            }
            if table.entities.count > 1 {
                out.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
            }
        }
        out.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        out.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        return out
    }

    /// The SELECT list shared by every query on `table`.
    func selectList(_ table: Table, alias: String? = nil) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).map { prefix + $0 }.joined(separator: ", ")
    }
}
