import FoundationEssentials
import ObjectGraph

// og_rows_* functions that go with fetch results: this handle family's part of that concern.

@_cdecl("og_rows_count")
public func og_rows_count(_ rows: OpaquePointer?) -> Int {
    (try? handles.get(rows, RowsBox.self))?.rows.count ?? 0
}

@_cdecl("og_rows_column_count")
public func og_rows_column_count(_ rows: OpaquePointer?) -> Int {
    (try? handles.get(rows, RowsBox.self))?.keys.count ?? 0
}

@_cdecl("og_rows_column_name")
public func og_rows_column_name(_ rows: OpaquePointer?, _ column: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(rows, RowsBox.self)
        guard column >= 0, column < box.columns.count else {
            throw .invalidArgument("column \(column) is out of range (there are \(box.columns.count))")
        }
        return UnsafePointer(box.columns[column].pointer)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_rows_value")
public func og_rows_value(_ rows: OpaquePointer?, _ row: Int, _ column: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(rows, RowsBox.self)
        guard row >= 0, row < box.rows.count else { throw .invalidArgument("row \(row) is out of range (there are \(box.rows.count))") }
        guard column >= 0, column < box.keys.count else { throw .invalidArgument("column \(column) is out of range (there are \(box.keys.count))") }
        return boxed(box.rows[row].values[column])
    }
}

@_cdecl("og_rows_value_for_key")
public func og_rows_value_for_key(_ rows: OpaquePointer?, _ row: Int, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(rows, RowsBox.self)
        let k = try string(key, "the key")
        guard row >= 0, row < box.rows.count else { throw .invalidArgument("row \(row) is out of range (there are \(box.rows.count))") }
        guard let v = box.rows[row][k] else {
            throw ObjectGraphError(
                domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.unknownKey,
                message: "the rows have no column '\(k)' (columns: \(box.keys.joined(separator: ", ")))")
        }
        return boxed(v)
    }
}

@_cdecl("og_rows_release")
public func og_rows_release(_ rows: OpaquePointer?) {
    handles.release(rows, RowsBox.self)
}
