import CSQLite

/// Reads of many rows in one statement, for batch faulting and prefetching: rows by
/// primary key, and the members of a to-many relationship for many owners at once.
extension SQLiteStore {
    /// Keys per statement: well under SQLite's limit on bound parameters.
    static let keysPerStatement = 500

    public func fetchRows(entity: EntityDescription, primaryKeys: [Int64]) throws(ObjectGraphError) -> [RowSnapshot] {
        let db = try open()
        let table = schema.table(entity)
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(primaryKeys.count)
        for chunk in Self.chunks(primaryKeys) {
            let s = try db.prepare("SELECT \(schema.selectList(table)) FROM \(table.sql) WHERE Z_PK IN (\(Self.placeholders(chunk.count)))")
            for (i, pk) in chunk.enumerated() { s.bind(Int32(i + 1), pk) }
            try readRows(s, table: table, into: &rows)
        }
        return rows
    }

    public func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription) throws(ObjectGraphError) -> MemberRows {
        let db = try open()
        guard let destination = relationship.destinationEntity, relationship.isToMany,
            let storage = schema.toMany[ObjectIdentifier(relationship)]
        else { return MemberRows() }
        let table = schema.table(destination)
        var rows: [RowSnapshot] = []
        var ownerKeys: [Int64] = []
        for chunk in Self.chunks(owners) {
            let sql: String
            switch storage {
            case .inverseColumn(_, let name, let order):
                let column = sqlIdentifier(name)
                let sortKeys = ["t0.\(column)"] + (order.map { ["t0." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
                sql = "SELECT \(schema.selectList(table, alias: "t0")), t0.\(column) FROM \(table.sql) t0 WHERE t0.\(column) IN (\(Self.placeholders(chunk.count))) ORDER BY \(sortKeys.joined(separator: ", "))"
            case .join(let joinName, let ownerName, let memberName, let order):
                let join = sqlIdentifier(joinName), ownerColumn = sqlIdentifier(ownerName), memberColumn = sqlIdentifier(memberName)
                let sortKeys = ["j.\(ownerColumn)"] + (order.map { ["j." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
                sql = "SELECT \(schema.selectList(table, alias: "t0")), j.\(ownerColumn) FROM \(table.sql) t0 JOIN \(join) j ON j.\(memberColumn) = t0.Z_PK WHERE j.\(ownerColumn) IN (\(Self.placeholders(chunk.count))) ORDER BY \(sortKeys.joined(separator: ", "))"
            }
            let s = try db.prepare(sql)
            for (i, pk) in chunk.enumerated() { s.bind(Int32(i + 1), pk) }
            let extra = Int32(3 + table.columns.count)  // just after selectList(table)
            try withUnsafeMutablePointer(to: &ownerKeys) { (owners) throws(ObjectGraphError) in
                try readRows(s, table: table, into: &rows, extra: extra, extraValues: owners)
            }
        }
        return MemberRows(rows: rows, owners: ownerKeys)
    }

    static func chunks(_ keys: [Int64]) -> [ArraySlice<Int64>] {
        stride(from: 0, to: keys.count, by: keysPerStatement).map { keys[$0..<min($0 + keysPerStatement, keys.count)] }
    }

    static func placeholders(_ n: Int) -> String {
        Array(repeating: "?", count: n).joined(separator: ", ")
    }
}
