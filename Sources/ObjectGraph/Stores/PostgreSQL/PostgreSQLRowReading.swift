import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Rows of a SELECT of `selectList(table)` (`Z_PK`, `Z_ENT`, `Z_OPT`, then the value
/// columns) read from PostgreSQL's text format into snapshots, each value straight into
/// its cell.
extension PostgreSQLStore {
    func readRows(_ rows: PostgreSQLRows, table: SQLiteSchema.Table) throws(ObjectGraphError) -> [RowSnapshot] {
        var out: [RowSnapshot] = []
        out.reserveCapacity(Int(rows.count))
        var readers: [Int: (EntityDescription, RowCellTable, [(slot: Int, column: Int32, kind: SQLiteStore.ColumnKind)])] = [:]
        var lastNumber: Int? = nil
        var entity: EntityDescription? = nil
        var cells = RowCells.unattached.table
        var list: [(slot: Int, column: Int32, kind: SQLiteStore.ColumnKind)] = []
        var writer = RowBlockWriter()
        for r in 0..<rows.count {
            let number = Int(rows.int64(r, 1))
            if number != lastNumber {
                if readers[number] == nil {
                    let e = try rowEntity(number, in: table)
                    let mapping = schema.mapping(e)
                    var reads: [(Int, Int32, SQLiteStore.ColumnKind)] = []
                    for (slot, column) in mapping.columnBySlot.enumerated() where column >= 0 {
                        reads.append((slot, Int32(column + 3), SQLiteStore.ColumnKind(table.columns[column].property)))
                    }
                    readers[number] = (e, e.layout.cells.table, reads)
                }
                (entity, cells, list) = readers[number]!
                lastNumber = number
            }
            out.append(writer.make(entity: entity.unsafelyUnwrapped, primaryKey: rows.int64(r, 0), version: rows.int64(r, 2), cells: cells) { row in
                // By index: an array's iterator retains its storage once per row.
                for i in list.indices {
                    let (slot, column, kind) = list[i]
                    switch kind {
                    case .integer:
                        if let v = rows.int64OrNil(r, column) { row.setInteger(slot, v) }
                    case .double:
                        if let v = rows.doubleOrNil(r, column) { row.setDouble(slot, v) }
                    default:
                        if !rows.isNull(r, column) { row.set(slot, Self.value(rows, r, column, kind)) }
                    }
                }
            })
        }
        return out
    }

    /// Rows of `SELECT Z_PK, Z_ENT, Z_OPT`: snapshots with no values.
    func readIdentities(_ rows: PostgreSQLRows, table: SQLiteSchema.Table) throws(ObjectGraphError) -> [RowSnapshot] {
        var out: [RowSnapshot] = []
        var lastNumber: Int? = nil
        var entity: EntityDescription? = nil
        var writer = RowBlockWriter()
        for r in 0..<rows.count {
            let number = Int(rows.int64(r, 1))
            if number != lastNumber {
                entity = try rowEntity(number, in: table)
                lastNumber = number
            }
            out.append(writer.make(entity: entity!, primaryKey: rows.int64(r, 0), version: rows.int64(r, 2), values: []))
        }
        return out
    }

    /// The entity a row's `Z_ENT` names; a number not of this table's hierarchy is a damaged store.
    func rowEntity(_ number: Int, in table: SQLiteSchema.Table) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = schema.entityByNumber[number], schema.mapping(entity).tableIndex == schema.mapping(table.root).tableIndex else {
            throw ObjectGraphError(code: ErrorCode.storeIncompatibleSchema, message: "row of \(table.name) has unknown entity number \(number)")
        }
        return entity
    }

    /// A non-null column's value in its attribute's kind.
    static func value(_ rows: PostgreSQLRows, _ r: Int32, _ column: Int32, _ kind: SQLiteStore.ColumnKind) -> AttributeValue {
        switch kind {
        case .integer: return .integer(rows.int64(r, column))
        case .boolean: return .boolean(rows.int64(r, column) != 0)
        case .double: return .double(rows.double(r, column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: rows.double(r, column)))
        case .string: return .string(rows.text(r, column))
        case .uri:
            let t = rows.text(r, column)
            return ValueText.isURI(t) ? .uri(t) : .null
        case .decimal: return ValueText.decimal(rows.numericText(r, column)).map { .decimal($0) } ?? .null
        case .data: return .data(Data(rows.bytes(r, column)))
        case .uuid:
            let b = rows.bytes(r, column)
            guard b.count == 16 else { return .null }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
    }
}
