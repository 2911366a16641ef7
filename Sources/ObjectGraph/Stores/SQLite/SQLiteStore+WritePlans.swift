import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


// MARK: Write plans

extension SQLiteStore {
    /// The INSERT and UPDATE of one entity: which slots they bind, and the order columns
    /// they maintain (a row that joins an ordered to-many goes last). A class: a save hands
    /// the plan out once per row, and a struct's copy retained each of its arrays and strings.
    final class WritePlan {
        let number: Int
        let tableIndex: Int
        let slots: [Int]
        let insertSQL: String
        let updateSQL: String
        let needsEntityFixup: Bool
        /// The UPDATE that computes the entity's derived attributes for a written row.
        let derivation: DerivationUpdate?
        /// `INSERT INTO table (columns) VALUES ` when each row's values are its parameters
        /// alone (no order column computed from the table): rows can then be inserted many
        /// to a statement. Nil otherwise.
        let multiRowInsertHead: String?

        init(number: Int, tableIndex: Int, slots: [Int], insertSQL: String, updateSQL: String, needsEntityFixup: Bool, derivation: DerivationUpdate?,
             multiRowInsertHead: String? = nil) {
            self.number = number
            self.tableIndex = tableIndex
            self.slots = slots
            self.insertSQL = insertSQL
            self.updateSQL = updateSQL
            self.needsEntityFixup = needsEntityFixup
            self.derivation = derivation
            self.multiRowInsertHead = multiRowInsertHead
        }
    }

    func writePlan(_ entity: EntityDescription) -> WritePlan {
        if let plan = plans[ObjectIdentifier(entity)] { return plan }
        let plan = WritePlan.make(entity, schema: schema)
        plans[ObjectIdentifier(entity)] = plan
        return plan
    }
}

extension SQLiteStore.WritePlan {
    /// The plan of `entity` in `schema`'s tables, in SQLite's spelling (the PostgreSQL
    /// store adapts it: `PostgreSQLStatementText`).
    static func make(_ entity: EntityDescription, schema: SQLiteSchema, dialect: SQLDialect = .sqlite) -> SQLiteStore.WritePlan {
        let mapping = schema.mapping(entity)
        let table = schema.tables[mapping.tableIndex]
        // Derived attributes are computed by the store (Apple's triggers), never written.
        let slots = mapping.columnBySlot.enumerated().filter { $0.element >= 0 }.map(\.offset).filter { slot in
            (entity.properties[slot] as? AttributeDescription)?.derivationExpression == nil
        }
        var names = ["Z_PK", "Z_ENT", "Z_OPT"] + slots.map { table.columns[mapping.columnBySlot[$0]].sql }
        var values = (1...names.count).map { "?\($0)" }
        var sets = ["Z_OPT = ?1"] + slots.enumerated().map { "\(table.columns[mapping.columnBySlot[$0.element]].sql) = ?\($0.offset + 2)" }
        var fixup = false
        for column in table.columns {
            switch column.role {
            case .value: break
            case .destinationEntity(let r):
                if let owner = r.entity, entity.isKind(of: owner) { fixup = true }
            case .order(let ordered):
                guard let r = ordered.inverseRelationship, let owner = r.entity, entity.isKind(of: owner),
                    let position = slots.firstIndex(of: r.slot)
                else { continue }
                let fk = table.columns[mapping.columnBySlot[r.slot]].sql
                let name = column.sql, tableName = table.sql
                func last(_ n: Int) -> String { "(SELECT IFNULL(MAX(\(name)), 0) + 1 FROM \(tableName) WHERE \(fk) = ?\(n))" }
                names.append(column.sql)
                let i = position + 4, u = position + 2
                values.append("CASE WHEN ?\(i) IS NULL THEN NULL ELSE \(last(i)) END")
                sets.append(
                    "\(column.sql) = CASE WHEN ?\(u) IS NULL THEN NULL WHEN \(fk) IS ?\(u) THEN \(column.sql) ELSE \(last(u)) END")
            }
        }
        return SQLiteStore.WritePlan(
            number: mapping.number, tableIndex: mapping.tableIndex, slots: slots,
            insertSQL: "INSERT INTO \(table.sql) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
            // The last parameter is the version the row must still have (Core Data's optimistic
            // locking in the UPDATE itself); left NULL, the update is unconditional.
            updateSQL: "UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?\(slots.count + 2)"
                + " AND (?\(slots.count + 3) IS NULL OR IFNULL(Z_OPT, 0) = ?\(slots.count + 3))",
            needsEntityFixup: fixup,
            // Checked when the store opened (checkDerivations), so it cannot fail here.
            derivation: (try? schema.derivationUpdate(for: entity, dialect: dialect)) ?? nil,
            multiRowInsertHead: values.enumerated().allSatisfy({ $0.element == "?\($0.offset + 1)" })
                ? "INSERT INTO \(table.sql) (\(names.joined(separator: ", "))) VALUES " : nil)
    }
}

extension SQLiteStore {

    /// Computes the derived attributes of the rows this save wrote, after every row is
    /// written (a derivation may count or read rows the same save wrote).
    func computeDerivedAttributes(_ db: SQLiteConnection) throws(ObjectGraphError) {
        guard !derived.isEmpty else { return }
        for (sql, primaryKey) in derived {
            let s = try db.prepare(sql)
            s.bind(1, primaryKey)
            try s.run()
        }
        derived.removeAll()
    }

    /// Sets each `Z<n>_<NAME>` column of the rows this save wrote to the entity number of
    /// the row its to-one points at.
    func fillDestinationEntityColumns(_ db: SQLiteConnection) throws(ObjectGraphError) {
        guard !touched.isEmpty else { return }
        var statements: [Int: SQLiteStatement] = [:]
        for (tableIndex, primaryKey) in touched {
            if statements[tableIndex] == nil {
                guard let sql = schema.destinationEntityUpdate(tableIndex: tableIndex) else { continue }
                statements[tableIndex] = try db.prepare(sql)
            }
            guard let s = statements[tableIndex] else { continue }
            s.bind(1, primaryKey)
            try s.run()
        }
        touched.removeAll()
    }
}

/// The shape of a one-statement upsert (`INSERT … ON CONFLICT (constraint) DO UPDATE`),
/// for every store that writes Core Data's tables in SQL: the constraint's columns and the
/// written ones. Nil unless that is exactly what the row-by-row path does: an entity alone
/// in its table (a conflict can only be with a row of the same entity), no derived
/// attributes, no columns filled after the rows (destination entities, orders).
struct SQLUpsertShape {
    let plan: SQLiteStore.WritePlan
    let table: SQLiteSchema.Table
    /// The constraint's columns, as SQL spells them.
    let targets: [String]
    /// The plan's columns, in its slots' order.
    let columns: [String]

    init?(_ entity: EntityDescription, constraint: [Int], plan: SQLiteStore.WritePlan, schema: SQLiteSchema) {
        guard entity.superentity == nil, entity.subentities.isEmpty else { return nil }
        let table = schema.table(entity), mapping = schema.mapping(entity)
        guard plan.derivation == nil, !plan.needsEntityFixup, table.columns.allSatisfy(\.isValue) else { return nil }
        var targets: [String] = []
        for slot in constraint {
            let c = mapping.columnBySlot[slot]
            guard c >= 0 else { return nil }
            targets.append(table.columns[c].sql)
        }
        self.plan = plan
        self.table = table
        self.targets = targets
        columns = plan.slots.map { table.columns[mapping.columnBySlot[$0]].sql }
    }

    /// `INSERT INTO table AS t0 (…) VALUES (…) ON CONFLICT (…) DO UPDATE SET Z_OPT = …`,
    /// to which a caller appends the assignments its rule makes. A version at the largest
    /// integer stays there.
    var head: String {
        "INSERT INTO \(table.sql) AS t0 (Z_PK, Z_ENT, Z_OPT\(columns.map { ", \($0)" }.joined())) VALUES (?, ?, 1\(columns.map { _ in ", ?" }.joined()))"
            + " ON CONFLICT (\(targets.joined(separator: ", "))) DO UPDATE SET"
            + " Z_OPT = CASE WHEN t0.Z_OPT >= 9223372036854775807 THEN t0.Z_OPT ELSE COALESCE(t0.Z_OPT, 0) + 1 END"
    }

    /// The assignments of `rule` for a row that named `named` (slots).
    func assignments(_ rule: UpsertRule, named: Set<Int>) -> String {
        var sets = ""
        for (slot, column) in zip(plan.slots, columns) {
            switch rule {
            case .overwrite: sets += ", \(column) = excluded.\(column)"
            case .overwriteNamed: if named.contains(slot) { sets += ", \(column) = excluded.\(column)" }
            case .keepStored: sets += ", \(column) = COALESCE(t0.\(column), excluded.\(column))"
            }
        }
        return sets
    }
}
