import ObjectGraph

// og_context_batch_*: batch insert, update and delete (include/objectgraph.h, og_context).

/// `og_batch_row_fn`: the next row of a batch insert, or NULL when there are no more.
public typealias BatchRowCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer?

@_cdecl("og_context_batch_insert")
public func og_context_batch_insert(_ c: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ rows: OpaquePointer?, _ resultType: Int32,
                                    _ count: UnsafeMutablePointer<Int>?, _ ids: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let list = try handles.get(rows, ValueBox.self).content
        guard case .collection(let items) = list else {
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "the rows are a \(list.kindName), not an OG_VALUE_ARRAY of dictionaries")
        }
        var parsed: [[String: AttributeValue]] = []
        for (i, item) in items.enumerated() { parsed.append(try batchRow(item, index: i)) }
        let request = BatchInsertRequest(entityName: try string(entity, "the entity"), objects: parsed)
        return try finish(x, request, resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}

@_cdecl("og_context_batch_insert_rows")
public func og_context_batch_insert_rows(_ c: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ next: BatchRowCallback?, _ user: UnsafeMutableRawPointer?,
                                         _ resultType: Int32, _ count: UnsafeMutablePointer<Int>?, _ ids: UnsafeMutablePointer<OpaquePointer?>?,
                                         _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        guard let next else { throw .invalidArgument("the row callback is NULL") }
        var index = 0
        let request = BatchInsertRequest(entityName: try string(entity, "the entity")) { (row) throws(ObjectGraphError) -> Bool in
            var reported: OpaquePointer?
            guard let h = next(user, &reported) else {
                if let error = takeReported(reported) { throw error }
                return true
            }
            defer { handles.release(h, ValueBox.self) }
            row = try batchRow(try handles.get(h, ValueBox.self).content, index: index)
            index += 1
            return false
        }
        return try finish(x, request, resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}

@_cdecl("og_context_batch_update")
public func og_context_batch_update(_ c: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ p: OpaquePointer?, _ values: OpaquePointer?, _ resultType: Int32,
                                    _ count: UnsafeMutablePointer<Int>?, _ ids: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let request = BatchUpdateRequest(
            entityName: try string(entity, "the entity"), predicate: p == nil ? nil : try handles.get(p, PredicateBox.self).predicate,
            propertiesToUpdate: try batchRow(try handles.get(values, ValueBox.self).content, index: nil))
        return try finish(x, request, resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}

@_cdecl("og_context_batch_delete")
public func og_context_batch_delete(_ c: OpaquePointer?, _ r: OpaquePointer?, _ resultType: Int32,
                                    _ count: UnsafeMutablePointer<Int>?, _ ids: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let request = BatchDeleteRequest(fetchRequest: try fetchRequest(r))
        return try finish(x, request, resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}

@_cdecl("og_context_batch_delete_objects")
public func og_context_batch_delete_objects(_ c: OpaquePointer?, _ uris: UnsafePointer<UnsafePointer<CChar>?>?, _ uriCount: Int, _ resultType: Int32,
                                            _ count: UnsafeMutablePointer<Int>?, _ ids: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        var list: [ManagedObjectID] = []
        for text in try strings(uris, uriCount, "the object-ID URIs") {
            guard let id = x.persistentStoreCoordinator.managedObjectID(forURIRepresentation: text) else {
                throw .invalidArgument("'\(text)' names no object of a store of this context's coordinator")
            }
            list.append(id)
        }
        return try finish(x, BatchDeleteRequest(objectIDs: list), resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}

/// Runs a batch request with the C caller's result type and fills the outputs.
private func finish<R: AnyObject>(_ x: ManagedObjectContext, _ request: R, _ resultType: Int32, _ count: UnsafeMutablePointer<Int>?,
                                  _ ids: UnsafeMutablePointer<OpaquePointer?>?,
                                  _ run: (R) throws(ObjectGraphError) -> BatchResult) throws(ObjectGraphError) -> Int32 {
    let type: BatchResultType = try cEnum(resultType)
    if type == .objectIDs { _ = try required(ids, "ids") }
    // IDs are always asked for, so that the count is known whatever the result type.
    switch request {
    case let r as BatchInsertRequest: r.resultType = .objectIDs
    case let r as BatchUpdateRequest: r.resultType = .objectIDs
    case let r as BatchDeleteRequest: r.resultType = .objectIDs
    default: break
    }
    guard case .objectIDs(let written) = try run(request) else { return OG_OK }
    count?.pointee = written.count
    if type == .objectIDs, let ids { ids.pointee = handles.make(ObjectIDsBox(written)) }
    return OG_OK
}

/// A row (or a batch update's values) from an OG_VALUE_DICTIONARY: arrays and dictionaries
/// inside it are transformable values.
private func batchRow(_ content: PredicateValue, index: Int?) throws(ObjectGraphError) -> [String: AttributeValue] {
    guard case .dictionary(let d) = content else {
        let what = index.map { "row \($0)" } ?? "the values"
        throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "\(what) is a \(content.kindName), not an OG_VALUE_DICTIONARY")
    }
    var out: [String: AttributeValue] = [:]
    for (key, value) in d {
        switch value {
        case .scalar(let v): out[key] = v
        case .collection, .dictionary: out[key] = .transformable(try ValueBox.transformable(value))
        default:
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "'\(key)' is a \(value.kindName), not an attribute value")
        }
    }
    return out
}
