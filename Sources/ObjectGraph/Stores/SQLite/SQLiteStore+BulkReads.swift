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
        var rows: [RowSnapshot] = []
        var ownerKeys: [Int64] = []
        for chunk in Self.chunks(owners) {
            guard let (sql, table) = schema.membersOfManyQuery(relationship, keys: { "\($0) IN (\(Self.placeholders(chunk.count)))" }) else { return MemberRows() }
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
