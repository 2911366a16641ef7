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
    // A count is always asked for (`count` is filled whatever the result type); IDs only
    // when wanted, as making them costs an object per row.
    let asked: BatchResultType = type == .objectIDs ? .objectIDs : .count
    switch request {
    case let r as BatchInsertRequest: r.resultType = asked
    case let r as BatchUpdateRequest: r.resultType = asked
    case let r as BatchDeleteRequest: r.resultType = asked
    default: break
    }
    switch try run(request) {
    case .objectIDs(let written):
        count?.pointee = written.count
        if let ids { ids.pointee = handles.make(ObjectIDsBox(written)) }
    case .count(let n): count?.pointee = n
    case .status: break
    }
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

// MARK: Columns

/// `og_batch_column`, read field by field at the offsets C gives it on the LP64 targets
/// the library is built for: name (0), type (8), values (16), states (24); 32 bytes each.
private struct BatchColumn {
    static let stride = 32
    let name: String
    let type: Int32
    let values: UnsafeRawPointer
    let states: UnsafePointer<UInt8>?

    init(_ base: UnsafeRawPointer, index: Int) throws(ObjectGraphError) {
        let at = base + index * Self.stride
        name = try string(at.load(as: UnsafePointer<CChar>?.self), "column \(index)'s name")
        type = at.load(fromByteOffset: 8, as: Int32.self)
        guard (1...3).contains(type) else { throw .invalidArgument("column \(index) ('\(name)') has the og_column_type \(type), which is none of OG_COLUMN_INT64, _DOUBLE, _TEXT") }
        guard let values = at.load(fromByteOffset: 16, as: UnsafeRawPointer?.self) else {
            throw .invalidArgument("column \(index) ('\(name)') has NULL values")
        }
        self.values = values
        states = at.load(fromByteOffset: 24, as: UnsafePointer<UInt8>?.self)
    }

    /// The column as an array, when it holds numbers and every row has a value.
    func array(_ rowCount: Int) -> ColumnValues? {
        guard states == nil, type != 3 else { return nil }
        if type == 1 { return .int64(Array(UnsafeBufferPointer(start: values.assumingMemoryBound(to: Int64.self), count: rowCount))) }
        return .double(Array(UnsafeBufferPointer(start: values.assumingMemoryBound(to: Double.self), count: rowCount)))
    }

    /// Row `row`'s value; nil when the row leaves the attribute out.
    func value(_ row: Int) -> AttributeValue? {
        switch states?[row] ?? 0 {
        case 0: break
        case 1: return .null
        default: return nil
        }
        switch type {
        case 1: return .integer(values.load(fromByteOffset: row * 8, as: Int64.self))
        case 2: return .double(values.load(fromByteOffset: row * 8, as: Double.self))
        default:
            guard let text = values.load(fromByteOffset: row * 8, as: UnsafePointer<CChar>?.self) else { return .null }
            return .string(String(cString: text))
        }
    }
}

@_cdecl("og_context_batch_insert_columns")
public func og_context_batch_insert_columns(_ c: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ columns: UnsafeRawPointer?, _ columnCount: Int,
                                            _ rowCount: Int, _ resultType: Int32, _ count: UnsafeMutablePointer<Int>?,
                                            _ ids: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        guard rowCount >= 0, columnCount >= 0 else { throw .invalidArgument("negative row or column count") }
        guard columnCount == 0 || columns != nil else { throw .invalidArgument("the columns are NULL") }
        var list: [BatchColumn] = []
        for i in 0..<columnCount {
            let column = try BatchColumn(columns!, index: i)
            if list.contains(where: { $0.name == column.name }) { throw .invalidArgument("the column '\(column.name)' is given twice") }
            list.append(column)
        }
        let names = list.map(\.name)
        // Numbers with a value in every row are copied into arrays the store binds from.
        let arrays = list.compactMap { $0.array(rowCount) }
        let columns = arrays.count == list.count
            ? try BatchInsertRequest.Columns(names: names, arrays: arrays, rowCount: rowCount)
            : BatchInsertRequest.Columns(names: names, rowCount: rowCount, value: { row, column in list[column].value(row) })
        let request = BatchInsertRequest(entityName: try string(entity, "the entity"), columns: columns)
        return try finish(x, request, resultType, count, ids) { (r) throws(ObjectGraphError) in try x.execute(r) }
    }
}
