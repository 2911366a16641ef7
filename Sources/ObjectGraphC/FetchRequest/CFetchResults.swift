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

func attributeType(_ n: Int32) throws(ObjectGraphError) -> AttributeType {
    try cEnum(n)
}

@_cdecl("og_fetch_request_set_result_type")
public func og_fetch_request_set_result_type(_ r: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let req = try fetchRequest(r)
        req.resultType = try cEnum(type)
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

/// A NEW og_value for one value of a dictionary row.
func boxed(_ v: FetchedValue) -> OpaquePointer {
    switch v {
    case .value(let a): return handles.make(ValueBox(a))
    case .objectID(let id): return objectIDValue(id)
    }
}
