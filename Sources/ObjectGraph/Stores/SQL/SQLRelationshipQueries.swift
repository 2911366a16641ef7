/// The SELECTs that read rows through relationships, written once for every store that
/// keeps Core Data's tables in SQL (SQLite, PostgreSQL): each selects `selectList(table)`
/// (alias `t0`) and takes the owner's key as its one parameter, or, for many owners, the
/// condition the store writes for a list of keys.
extension SQLiteSchema {
    /// The rows whose `inverse` holds one key (a to-one pointing at it, or a to-many
    /// containing it), in the order of `inverse`'s inverse when that is ordered; nil when
    /// nothing can point through it here.
    func pointingAtQuery(_ inverse: RelationshipDescription) -> (sql: String, table: Table)? {
        guard let owner = inverse.entity, isStored(owner) else { return nil }
        if inverse.isToMany, let destination = inverse.destinationEntity, !isStored(destination) { return nil }
        let mapping = mapping(owner)
        let table = tables[mapping.tableIndex]
        // The order of the relationship being read (the inverse's inverse), when ordered.
        var forwardOrder: String?
        if let forward = inverse.inverseRelationship, forward.isOrdered, let storage = toMany[ObjectIdentifier(forward)] {
            switch storage {
            case .inverseColumn(_, _, let o): forwardOrder = o.map { "t0." + sqlIdentifier($0) }
            case .join(_, _, _, let o): forwardOrder = o.map { "j." + sqlIdentifier($0) }
            }
        }
        let order = ((forwardOrder.map { [$0] } ?? []) + ["t0.Z_PK"]).joined(separator: ", ")
        if inverse.isToMany {
            guard case .join(let join, let ownerColumn, let memberColumn, _)? = toMany[ObjectIdentifier(inverse)] else { return nil }
            return ("SELECT \(selectList(table, alias: "t0")) FROM \(table.sql) t0 JOIN \(sqlIdentifier(join)) j ON j.\(sqlIdentifier(ownerColumn)) = t0.Z_PK WHERE j.\(sqlIdentifier(memberColumn)) = ? ORDER BY \(order)", table)
        }
        // A transient (or otherwise unstored) to-one has no column: nothing points through it.
        let slot = inverse.slot
        guard slot >= 0, slot < mapping.columnBySlot.count, mapping.columnBySlot[slot] >= 0 else { return nil }
        let column = table.columns[mapping.columnBySlot[slot]].sql
        return ("SELECT \(selectList(table, alias: "t0")) FROM \(table.sql) t0 WHERE t0.\(column) = ? ORDER BY \(order)", table)
    }

    /// The members of an inverse-less to-many (kept in a join table) of one owner, in order
    /// when it is ordered; nil when the relationship is not such a one here.
    func joinMembersQuery(_ relationship: RelationshipDescription) -> (sql: String, table: Table)? {
        guard let destination = relationship.destinationEntity, isStored(destination),
            let source = relationship.entity, isStored(source),
            case .join(let join, let ownerColumn, let memberColumn, let orderColumn)? = toMany[ObjectIdentifier(relationship)]
        else { return nil }
        let table = self.table(destination)
        let order = ((orderColumn.map { ["j." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]).joined(separator: ", ")
        return ("SELECT \(selectList(table, alias: "t0")) FROM \(table.sql) t0 JOIN \(sqlIdentifier(join)) j ON j.\(sqlIdentifier(memberColumn)) = t0.Z_PK WHERE j.\(sqlIdentifier(ownerColumn)) = ? ORDER BY \(order)", table)
    }

    /// The members of the to-many `relationship` of many owners, each row followed by its
    /// owner's key (the column after `selectList(table)`), grouped by owner and in order
    /// within an ordered relationship. `keys(column)` writes the condition that the owner
    /// column is one of the keys (SQLite: `IN (?, …)`; PostgreSQL: `= ANY(?)`).
    func membersOfManyQuery(_ relationship: RelationshipDescription, keys: (String) -> String) -> (sql: String, table: Table)? {
        guard let destination = relationship.destinationEntity, relationship.isToMany, isStored(destination),
            let storage = toMany[ObjectIdentifier(relationship)]
        else { return nil }
        let table = self.table(destination)
        switch storage {
        case .inverseColumn(_, let name, let order):
            let column = "t0." + sqlIdentifier(name)
            let sortKeys = [column] + (order.map { ["t0." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
            return ("SELECT \(selectList(table, alias: "t0")), \(column) FROM \(table.sql) t0 WHERE \(keys(column)) ORDER BY \(sortKeys.joined(separator: ", "))", table)
        case .join(let joinName, let ownerName, let memberName, let order):
            let join = sqlIdentifier(joinName), ownerColumn = "j." + sqlIdentifier(ownerName), memberColumn = sqlIdentifier(memberName)
            let sortKeys = [ownerColumn] + (order.map { ["j." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
            return ("SELECT \(selectList(table, alias: "t0")), \(ownerColumn) FROM \(table.sql) t0 JOIN \(join) j ON j.\(memberColumn) = t0.Z_PK WHERE \(keys(ownerColumn)) ORDER BY \(sortKeys.joined(separator: ", "))", table)
        }
    }

    /// The join tables, and their columns, that hold keys of rows of the hierarchy of
    /// `root`: a deleted row leaves them.
    func joinColumns(holding root: EntityDescription) -> [(table: String, column: String)] {
        var out: [(table: String, column: String)] = []
        for join in joinTables where isStored(join) {
            if join.relationship.entity?.rootEntity === root { out.append((join.name, join.sourceColumn)) }
            if join.relationship.destinationEntity?.rootEntity === root { out.append((join.name, join.destinationColumn)) }
        }
        return out
    }
}

extension SQLiteSchema {
    /// The UPDATE that sets each `Z<n>_<NAME>` column of one row of table `tableIndex` (its
    /// key the one parameter) to the entity number of the row its to-one points at; nil when
    /// the table has no such column here.
    func destinationEntityUpdate(tableIndex: Int) -> String? {
        let table = tables[tableIndex]
        var sets: [String] = []
        for column in table.columns {
            guard case .destinationEntity(let r) = column.role, let destination = r.destinationEntity, isStored(destination) else { continue }
            let fk = table.columns.first { $0.isValue && $0.property === r }?.sql ?? sqlIdentifier("Z" + r.name.uppercased())
            sets.append("\(column.sql) = (SELECT d.Z_ENT FROM \(self.table(destination).sql) d WHERE d.Z_PK = \(table.sql).\(fk))")
        }
        return sets.isEmpty ? nil : "UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?"
    }
}

extension EntityDescription {
    /// The attribute a key path through to-one relationships ends at (`author.name`), or nil.
    func attribute(atEndOf path: String) -> AttributeDescription? {
        var current = self
        for key in KeyPath.components(path) {
            guard let p = current.property(named: key) else { return nil }
            if let a = p as? AttributeDescription { return a }
            guard let d = (p as? RelationshipDescription)?.destinationEntity else { return nil }
            current = d
        }
        return nil
    }
}
