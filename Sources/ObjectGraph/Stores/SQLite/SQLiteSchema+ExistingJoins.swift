/// Join tables as an existing store names them. Core Data names a many-to-many's join table
/// after one of its two relationships and its columns after both, with suffixes where names
/// collide, and which relationship names the table is not a function of the names alone
/// (one app's two model versions name the same reflexive pair's table `Z_14IGNOREDBYCLIENTS`
/// and `Z_18IGNOREDCLIENTS`). So a store that exists is read and written through the tables
/// and columns it has: a join table the schema predicts but the file lacks is matched to the
/// file's table with the same columns (up to collision suffixes). Predictions name only the
/// tables a new store creates.
extension SQLiteSchema {
    /// The file's name of a join table and of its columns, for one the schema predicted.
    struct JoinRename {
        let table: String
        let columns: [String: String]
    }

    /// Renames the predicted join tables `existing` (every table of the file with its
    /// columns) lacks to the file's tables holding the same pairs; returns what was renamed,
    /// keyed by the predicted table name. A table is matched only when exactly one of the
    /// file's tables fits.
    mutating func adoptJoinTables(from existing: [String: Set<String>]) -> [String: JoinRename] {
        // Entity tables, and join tables the file has as predicted, are taken.
        var taken = Set(tables.map(\.name))
        for join in joinTables where existing[join.name].map({ Self.columns(of: join).allSatisfy($0.contains) }) ?? false {
            taken.insert(join.name)
        }
        var renames: [String: JoinRename] = [:]
        for (index, join) in joinTables.enumerated() where isStored(join) && !taken.contains(join.name) {
            let wanted = Self.columns(of: join)
            var fits: [(String, [String: String])] = []
            for (name, columns) in existing where !taken.contains(name) && Self.isJoinTableName(name) {
                if let map = Self.match(wanted, in: columns) { fits.append((name, map)) }
            }
            guard fits.count == 1, let (table, map) = fits.first else { continue }
            taken.insert(table)
            renames[join.name] = JoinRename(table: table, columns: map)
            rename(index, to: table, columns: map)
        }
        return renames
    }

    /// The columns of a join table: the two key columns, then any order columns.
    private static func columns(of join: JoinTable) -> [String] {
        [join.sourceColumn, join.destinationColumn] + [join.destinationOrderColumn, join.sourceOrderColumn].compactMap { $0 }
    }

    /// `Z_<digits><NAME>`: what Core Data's join tables are called.
    private static func isJoinTableName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        return u.count > 3 && u[0] == UInt8(ascii: "Z") && u[1] == UInt8(ascii: "_") && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(u[2])
    }

    /// Each wanted column's name in `columns`: itself, or the one column that differs from
    /// it only by a collision suffix (trailing digits); nil unless every wanted column has
    /// exactly one and the table has no other column.
    private static func match(_ wanted: [String], in columns: Set<String>) -> [String: String]? {
        guard columns.count == wanted.count else { return nil }
        var map: [String: String] = [:]
        var used = Set<String>()
        // Exact names first, so that `Z_8FRIENDS` does not take `Z_8FRIENDS1`'s place.
        for w in wanted where columns.contains(w) {
            map[w] = w
            used.insert(w)
        }
        for w in wanted where map[w] == nil {
            let base = stem(w)
            let candidates = columns.filter { !used.contains($0) && stem($0) == base }
            guard candidates.count == 1, let c = candidates.first else { return nil }
            map[w] = c
            used.insert(c)
        }
        return map
    }

    /// A column name without a collision suffix (trailing digits after a letter).
    private static func stem(_ name: String) -> Substring {
        var end = name.endIndex
        while end > name.startIndex, let d = name[name.index(before: end)].asciiValue, (48...57).contains(d) { end = name.index(before: end) }
        // `Z_12` alone is an entity number, not a suffix.
        return end > name.startIndex && name[name.index(before: end)] != "_" ? name[..<end] : Substring(name)
    }

    private mutating func rename(_ index: Int, to table: String, columns map: [String: String]) {
        let old = joinTables[index]
        func c(_ name: String) -> String { map[name] ?? name }
        let join = JoinTable(
            name: table, relationship: old.relationship, sourceColumn: c(old.sourceColumn), destinationColumn: c(old.destinationColumn),
            destinationOrderColumn: old.destinationOrderColumn.map(c), sourceOrderColumn: old.sourceOrderColumn.map(c))
        joinTables[index] = join
        toMany[ObjectIdentifier(join.relationship)] = .join(
            table: table, ownerColumn: join.sourceColumn, memberColumn: join.destinationColumn, orderColumn: join.destinationOrderColumn)
        if let inverse = join.relationship.inverseRelationship, inverse.isToMany {
            toMany[ObjectIdentifier(inverse)] = .join(
                table: table, ownerColumn: join.destinationColumn, memberColumn: join.sourceColumn, orderColumn: join.sourceOrderColumn)
        }
    }
}
