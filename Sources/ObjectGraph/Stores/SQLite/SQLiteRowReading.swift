import CSQLite
import FoundationEssentials

/// Rows of a SELECT of `selectList(table)` (`Z_PK`, `Z_ENT`, `Z_OPT`, then the value
/// columns) read into snapshots, each value straight into its cell.
extension SQLiteStore {
    /// Reads every row of a prepared SELECT of `selectList(table)` into snapshots.
    func readRows(_ s: SQLiteStatement, table: SQLiteSchema.Table) throws(ObjectGraphError) -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        try readRows(s, table: table, into: &rows)
        return rows
    }

    /// Appends the rows of `s` to `rows` (reads in chunks add to one array, rather than
    /// concatenating arrays: a copy retains every row and the old array releases them);
    /// with `extra`, that column's integer per row (which must be an integer) goes to `extraValues`.
    func readRows(_ s: SQLiteStatement, table: SQLiteSchema.Table, into rows: inout [RowSnapshot],
                  extra: Int32? = nil, extraValues: UnsafeMutablePointer<[Int64]>? = nil) throws(ObjectGraphError) {
        defer { s.reset() }
        // Per concrete entity, the reader of each slot: computed once per query.
        var readers: [Int: (EntityDescription, RowCellTable, [(slot: Int, column: Int32, kind: ColumnKind)])] = [:]
        var writer = RowBlockWriter()
        var more = try s.step()
        while more {
            let number = Int(s.int64(1))
            if readers[number] == nil {
                let e = try rowEntity(number, in: table)
                let mapping = schema.mapping(e)
                var reads: [(Int, Int32, ColumnKind)] = []
                for (slot, column) in mapping.columnBySlot.enumerated() where column >= 0 {
                    reads.append((slot, Int32(column + 3), ColumnKind(table.columns[column].property)))
                }
                // The row layout, read once: `entity.layout` costs a retain per row.
                readers[number] = (e, e.layout.cells.table, reads)
            }
            // Rows of one entity come in runs: the run's reader is taken once into constants,
            // which reading a row borrows (variables would be retained and released per row).
            let (entity, cells, list) = readers[number].unsafelyUnwrapped
            repeat {
                if let extra { extraValues?.pointee.append(s.int64(extra)) }
                rows.append(Self.readRow(s, entity, cells, list, into: &writer))
                more = try s.step()
            } while more && Int(s.int64(1)) == number
        }
    }

    /// The current row of `s` as a snapshot in `writer`'s block, its values read straight into it.
    @inline(__always)
    private static func readRow(_ s: SQLiteStatement, _ entity: EntityDescription, _ cells: RowCellTable, _ list: [(slot: Int, column: Int32, kind: ColumnKind)],
                                into writer: inout RowBlockWriter) -> RowSnapshot {
        writer.make(entity: entity, primaryKey: s.int64(0), version: s.int64(2), cells: cells) { row in
            // By index: an array's iterator retains its storage once per row.
            for i in list.indices {
                let (slot, column, kind) = list[i]
                read(s, column, kind, into: row, slot)
            }
        }
    }

    /// Reads column `column` into `slot` of a row being made; numbers go straight into their cells.
    ///
    /// A number is read with one call: SQLite answers 0 for NULL, so only a 0 asks the
    /// column's type. Reading the type first would cost a call per cell, as much again as
    /// the read. What is stored is what `read(_:_:_:)` gives (any storage class converted
    /// to the attribute's kind, as SQLite converts it).
    @inline(__always)
    private static func read(_ s: SQLiteStatement, _ column: Int32, _ kind: ColumnKind, into row: RowCellWriter, _ slot: Int) {
        switch kind {
        case .integer:
            let v = s.int64(column)
            if v != 0 || !s.isNull(column) { row.setInteger(slot, v) }
        case .double:
            let v = s.double(column)
            if v != 0 || !s.isNull(column) { row.setDouble(slot, v) }
        default:
            row.set(slot, read(s, column, kind))  // NULL reads as .null, which sets nothing
        }
    }

    enum ColumnKind {
        case integer, boolean, double, string, date, data, decimal, uuid, uri

        init(_ property: PropertyDescription) {
            guard let a = property as? AttributeDescription else { self = .integer; return }
            switch a.attributeType {
            case .integer16, .integer32, .integer64: self = .integer
            case .boolean: self = .boolean
            case .double, .float: self = .double
            case .string: self = .string
            case .date: self = .date
            case .decimal: self = .decimal
            case .uuid: self = .uuid
            case .uri: self = .uri
            case .binaryData, .transformable, .undefined, .objectID: self = .data
            }
        }
    }

    static func read(_ s: SQLiteStatement, _ column: Int32, _ kind: ColumnKind) -> AttributeValue {
        if s.isNull(column) { return .null }
        switch kind {
        case .integer: return .integer(s.int64(column))
        case .boolean: return .boolean(s.int64(column) != 0)
        case .double: return .double(s.double(column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: s.double(column)))
        case .string: return .string(s.text(column))
        case .uri:
            let t = s.text(column)
            return ValueText.isURI(t) ? .uri(t) : .null
        case .decimal: return ValueText.decimal(s.text(column)).map { .decimal($0) } ?? .null
        case .data: return .data(Data(s.bytes(column)))
        case .uuid:
            let b = s.bytes(column)
            guard b.count == 16 else { return .null }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
    }
}
