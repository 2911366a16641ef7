import FoundationEssentials
import ObjectGraph

// Result types of fetch requests: og_fetch_request_* options for object IDs and
// dictionaries, og_object_ids_* and og_rows_* results, og_value_get_object_id.

final class ObjectIDsBox: HandleBox {
    static let kindName = "an og_object_ids"
    let uris: [CString]
    init(_ ids: [ManagedObjectID]) { uris = ids.map { CString($0.uriRepresentation) } }
}

final class RowsBox: HandleBox {
    static let kindName = "an og_rows"
    let rows: [ResultDictionary]
    let columns: [CString]
    let keys: [String]
    init(_ rows: [ResultDictionary], keys: [String]) {
        self.rows = rows
        self.keys = keys
        columns = keys.map(CString.init)
    }
}

private func attributeType(_ n: Int32) throws(ObjectGraphError) -> AttributeType {
    guard let t = AttributeType(rawValue: Int(n)) else { throw .invalidArgument("\(n) is not an og_attribute_type") }
    return t
}

@_cdecl("og_fetch_request_set_result_type")
public func og_fetch_request_set_result_type(_ r: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        guard let t = FetchResultType(rawValue: Int(type)) else {
            throw .invalidArgument("\(type) is not an og_result_type (0 objects, 1 object IDs, 2 dictionaries, 4 count)")
        }
        req.resultType = t
        return OG_OK
    }
}

@_cdecl("og_fetch_request_result_type")
public func og_fetch_request_result_type(_ r: OpaquePointer?) -> Int32 {
    (try? fetchRequest(r)).map { Int32($0.resultType.rawValue) } ?? -1
}

@_cdecl("og_fetch_request_add_property_to_fetch")
public func og_fetch_request_add_property_to_fetch(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        let path = try string(key, "the property's key path")
        req.propertiesToFetch = (req.propertiesToFetch ?? []) + [.property(path)]
        return OG_OK
    }
}

@_cdecl("og_fetch_request_add_expression_to_fetch")
public func og_fetch_request_add_expression_to_fetch(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?,
                                                     _ type: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        let n = try string(name, "the expression's name")
        let f = try string(format, "the expression format")
        guard !n.isEmpty else { throw .invalidArgument("an expression to fetch needs a name: it is the key of its value") }
        // A syntax error is reported now, not when the request runs.
        _ = try ObjectExpression(format: f)
        let description = ExpressionDescription(name: n, expressionFormat: f, resultType: try attributeType(type))
        req.propertiesToFetch = (req.propertiesToFetch ?? []) + [.expression(description)]
        return OG_OK
    }
}

@_cdecl("og_fetch_request_properties_to_fetch_count")
public func og_fetch_request_properties_to_fetch_count(_ r: OpaquePointer?) -> Int {
    (try? fetchRequest(r))?.propertiesToFetch?.count ?? 0
}

@_cdecl("og_fetch_request_set_distinct")
public func og_fetch_request_set_distinct(_ r: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    setFlag(r, on, err) { $0.returnsDistinctResults = $1 }
}

@_cdecl("og_fetch_request_distinct")
public func og_fetch_request_distinct(_ r: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    getFlag(r, out, err) { $0.returnsDistinctResults }
}

@_cdecl("og_fetch_request_add_group_by")
public func og_fetch_request_add_group_by(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        let n = try string(name, "the group-by name")
        req.propertiesToGroupBy = (req.propertiesToGroupBy ?? []) + [.property(n)]
        return OG_OK
    }
}

@_cdecl("og_fetch_request_set_having")
public func og_fetch_request_set_having(_ r: OpaquePointer?, _ p: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        req.havingPredicate = p == nil ? nil : try handles.get(p, PredicateBox.self).predicate
        return OG_OK
    }
}

// Execution

@_cdecl("og_context_fetch_object_ids")
public func og_context_fetch_object_ids(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let context = try handles.get(c, ContextBox.self).context
        return handles.make(ObjectIDsBox(try context.fetchObjectIDs(try fetchRequest(r))))
    }
}

@_cdecl("og_object_ids_count")
public func og_object_ids_count(_ ids: OpaquePointer?) -> Int {
    (try? handles.get(ids, ObjectIDsBox.self))?.uris.count ?? 0
}

@_cdecl("og_object_ids_uri_at")
public func og_object_ids_uri_at(_ ids: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(ids, ObjectIDsBox.self)
        guard index >= 0, index < box.uris.count else {
            throw .invalidArgument("object ID index \(index) is out of range (there are \(box.uris.count))")
        }
        return UnsafePointer(box.uris[index].pointer)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_object_ids_release")
public func og_object_ids_release(_ ids: OpaquePointer?) {
    handles.release(ids, ObjectIDsBox.self)
}

@_cdecl("og_context_fetch_dictionaries")
public func og_context_fetch_dictionaries(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let context = try handles.get(c, ContextBox.self).context
        let req = try fetchRequest(r)
        let rows = try context.fetchDictionaries(req)
        var keys = rows.first?.keys ?? []
        if rows.isEmpty { keys = try context.dictionaryKeys(for: req) }
        return handles.make(RowsBox(rows, keys: keys))
    }
}

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

/// A NEW og_value for one value of a dictionary row.
private func boxed(_ v: FetchedValue) -> OpaquePointer {
    switch v {
    case .value(let a): return handles.make(ValueBox(a))
    case .objectID(let id): return objectIDValue(id)
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

@_cdecl("og_value_get_object_id")
public func og_value_get_object_id(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out")
        if let id = box.objectID {
            out.pointee = UnsafePointer(id.pointer)
            return OG_OK
        }
        if box.value.isNull, case .scalar = box.content { out.pointee = nil; return OG_NULL }
        throw ObjectGraphError(
            domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
            message: "the value is not an object ID (its kind is \(box.content.kindName))")
    }
}
