/// Reads of many rows in one statement, for batch faulting and prefetching: the members
/// of a to-many relationship for many owners at once, the owners' keys as one array
/// parameter (the statement is the same whatever their number).
extension PostgreSQLStore {
    static let keysPerStatement = 5000

    /// `keys` as a `bigint[]` parameter's text.
    static func keyArray<C: Collection>(_ keys: C) -> PostgreSQLParameter where C.Element == Int64 {
        PostgreSQLParameter(text: "{" + keys.map(String.init).joined(separator: ",") + "}", type: 0)
    }

    public func fetchMembers(ofAny owners: [Int64], through relationship: RelationshipDescription) throws(ObjectGraphError) -> MemberRows {
        let db = try open()
        guard let destination = relationship.destinationEntity, relationship.isToMany, schema.isStored(destination),
            let storage = schema.toMany[ObjectIdentifier(relationship)]
        else { return MemberRows() }
        let table = schema.table(destination)
        let sql: String
        switch storage {
        case .inverseColumn(_, let name, let order):
            let column = sqlIdentifier(name)
            let sortKeys = ["t0.\(column)"] + (order.map { ["t0." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
            sql = "SELECT \(schema.selectList(table, alias: "t0")), t0.\(column) FROM \(table.sql) t0 WHERE t0.\(column) = ANY(?::bigint[]) ORDER BY \(sortKeys.joined(separator: ", "))"
        case .join(let joinName, let ownerName, let memberName, let order):
            let join = sqlIdentifier(joinName), ownerColumn = sqlIdentifier(ownerName), memberColumn = sqlIdentifier(memberName)
            let sortKeys = ["j.\(ownerColumn)"] + (order.map { ["j." + sqlIdentifier($0)] } ?? []) + ["t0.Z_PK"]
            sql = "SELECT \(schema.selectList(table, alias: "t0")), j.\(ownerColumn) FROM \(table.sql) t0 JOIN \(join) j ON j.\(memberColumn) = t0.Z_PK WHERE j.\(ownerColumn) = ANY(?::bigint[]) ORDER BY \(sortKeys.joined(separator: ", "))"
        }
        var out = MemberRows()
        let extra = Int32(3 + table.columns.count)  // just after selectList(table)
        var start = 0
        while start < owners.count {
            let chunk = owners[start..<min(start + Self.keysPerStatement, owners.count)]
            let result = try db.query(sql, [Self.keyArray(chunk)])
            let rows = try readRows(result, table: table)
            for (i, row) in rows.enumerated() { out.append(row, owner: result.int64(Int32(i), extra)) }
            start += chunk.count
        }
        return out
    }
}
