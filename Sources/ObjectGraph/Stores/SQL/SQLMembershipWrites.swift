/// Writing memberships and clearing a deleted row's, once for every store that keeps
/// Core Data's tables in SQL: the statements take only keys as parameters, run by the
/// store's save transaction (`KeyStatementRunning`).
protocol KeyStatementRunning {
    var schema: SQLiteSchema { get }
    /// Runs `sql` with `keys` bound to its parameters in order.
    func runKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError)
    /// The first column of each row `sql` returns, with `keys` bound.
    func selectKeys(_ sql: String, _ keys: [Int64]) throws(ObjectGraphError) -> [Int64]
    /// Removes the rows `keys` of the hierarchy of `root` from every join table; the
    /// default runs one statement per key and join column.
    func leaveJoinTables(_ keys: [Int64], root: EntityDescription) throws(ObjectGraphError)
}

extension KeyStatementRunning {
    /// Makes `members` the whole to-many `relationship` of `primaryKey`
    /// (`StoreSaveTransaction.setMembers`).
    func writeMembers(of primaryKey: Int64, through relationship: RelationshipDescription, to members: [Int64]) throws(ObjectGraphError) {
        // A relationship leading out of this store's configuration holds nothing here.
        if members.isEmpty, let destination = relationship.destinationEntity, !schema.isStored(destination) { return }
        guard let storage = schema.toMany[ObjectIdentifier(relationship)], let owner = relationship.entity,
            let destination = relationship.destinationEntity, schema.isStored(owner), schema.isStored(destination)
        else {
            throw .invalidArgument("'\(relationship.qualifiedName)' is not a stored to-many relationship")
        }
        switch storage {
        case .inverseColumn(let tableIndex, _, let orderColumn):
            // Membership lives in the members' own rows; only the order is written here.
            guard let orderColumn else { return }
            let sql = "UPDATE \(schema.tables[tableIndex].sql) SET \(sqlIdentifier(orderColumn)) = ? WHERE Z_PK = ?"
            for (i, member) in members.enumerated() { try runKeys(sql, [Int64(i + 1), member]) }
        case .join(let tableName, let ownerName, let memberName, let orderName):
            let table = sqlIdentifier(tableName), ownerColumn = sqlIdentifier(ownerName), memberColumn = sqlIdentifier(memberName)
            let old = Set(try selectKeys("SELECT \(memberColumn) FROM \(table) WHERE \(ownerColumn) = ?", [primaryKey]))
            let wanted = Set(members)
            for member in old where !wanted.contains(member) {
                try runKeys("DELETE FROM \(table) WHERE \(ownerColumn) = ? AND \(memberColumn) = ?", [primaryKey, member])
            }
            for member in members where !old.contains(member) {
                try runKeys("INSERT INTO \(table) (\(ownerColumn), \(memberColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING", [primaryKey, member])
            }
            if let orderName {
                let sql = "UPDATE \(table) SET \(sqlIdentifier(orderName)) = ? WHERE \(ownerColumn) = ? AND \(memberColumn) = ?"
                for (i, member) in members.enumerated() { try runKeys(sql, [Int64(i + 1), primaryKey, member]) }
            }
        }
    }

    func leaveJoinTables(_ keys: [Int64], root: EntityDescription) throws(ObjectGraphError) {
        for (table, column) in schema.joinColumns(holding: root) {
            let sql = "DELETE FROM \(sqlIdentifier(table)) WHERE \(sqlIdentifier(column)) = ?"
            for key in keys { try runKeys(sql, [key]) }
        }
    }
}

/// A save transaction that checks versions in the write itself, as Core Data's SQLite
/// store does (`UPDATE … WHERE Z_PK = ? AND Z_OPT = ?`): the four writes of
/// `StoreSaveTransaction` over one update and one delete that take an optional version.
protocol VersionCheckingWrites: StoreSaveTransaction {
    /// Updates the row; with `expectingVersion`, only while its version is that (false otherwise).
    func updateRow(_ row: StoreRowWrite, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool
    /// Deletes the row (and its join-table pairs); with `expectingVersion`, only while its version is that.
    func deleteRow(entity: EntityDescription, primaryKey: Int64, expectingVersion: Int64?) throws(ObjectGraphError) -> Bool
}

extension VersionCheckingWrites {
    var checksVersionsWhileWriting: Bool { true }

    func update(_ row: StoreRowWrite) throws(ObjectGraphError) {
        _ = try updateRow(row, expectingVersion: nil)
    }

    func update(_ row: StoreRowWrite, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool {
        try updateRow(row, expectingVersion: expectedVersion)
    }

    func delete(entity: EntityDescription, primaryKey: Int64) throws(ObjectGraphError) {
        _ = try deleteRow(entity: entity, primaryKey: primaryKey, expectingVersion: nil)
    }

    func delete(entity: EntityDescription, primaryKey: Int64, ifVersion expectedVersion: Int64) throws(ObjectGraphError) -> Bool {
        try deleteRow(entity: entity, primaryKey: primaryKey, expectingVersion: expectedVersion)
    }
}
