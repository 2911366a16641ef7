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
        guard let (sql, table) = schema.membersOfManyQuery(relationship, keys: { "\($0) = ANY(?::bigint[])" }) else { return MemberRows() }
        var out = MemberRows()
        let extra = Int32(3 + table.columns.count)  // just after selectList(table)
        var start = 0
        while start < owners.count {
            let chunk = owners[start..<min(start + Self.keysPerStatement, owners.count)]
            let result = try db.query(sql, [Self.keyArray(chunk)], binary: true)
            for (i, row) in try readRows(result, table: table).enumerated() { out.append(row, owner: result.int64(Int32(i), extra)) }
            start += chunk.count
        }
        return out
    }
}
