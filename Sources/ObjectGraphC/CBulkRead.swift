import ObjectGraph

// og_results_objects, og_results_read_int64s/doubles, og_context_change_counter: reading a
// whole result in a few calls (include/objectgraph.h; the Python binding's column cache).

@_cdecl("og_results_objects")
public func og_results_objects(_ r: OpaquePointer?, _ objects: UnsafeMutablePointer<OpaquePointer?>?,
                               _ entities: UnsafeMutablePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let results = try handles.get(r, ResultsBox.self)
        guard count == results.objects.count else {
            throw .invalidArgument("the arrays hold \(count) elements but the results have \(results.objects.count)")
        }
        let out = try required(objects, "objects")
        let lent = try results.lentHandles()
        for i in 0..<count { out[i] = lent[i] }
        if let entities {
            var last: (EntityDescription, OpaquePointer)? = nil
            for (i, o) in results.objects.enumerated() {
                if let (e, h) = last, e === o.entity { entities[i] = h; continue }
                let h = try lendEntity(o.entity, from: results.contextHandle)
                last = (o.entity, h)
                entities[i] = h
            }
        }
        return OG_OK
    }
}

/// Fills `states` (1 value, 0 nil, 2 not read) and `values` for attribute `slot` of every result.
private func readColumn<T>(_ r: OpaquePointer?, _ slot: Int, _ values: UnsafeMutablePointer<T>?, _ states: UnsafeMutablePointer<UInt8>?,
                           _ count: Int, _ err: ErrorOut, _ convert: (AttributeValue) -> T?) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let results = try handles.get(r, ResultsBox.self)
        guard count == results.objects.count else {
            throw .invalidArgument("the arrays hold \(count) elements but the results have \(results.objects.count)")
        }
        let values = try required(values, "values"), states = try required(states, "states")
        states.initialize(repeating: 2, count: count)
        let context = try handles.get(results.contextHandle, ContextBox.self).context
        try context.readLoadedAttribute(atSlot: slot, of: results.objects) { i, v in
            if case .null = v {
                states[i] = 0
            } else if let x = convert(v) {
                values[i] = x
                states[i] = 1
            }
        }
        return OG_OK
    }
}

@_cdecl("og_results_read_int64s")
public func og_results_read_int64s(_ r: OpaquePointer?, _ slot: Int, _ values: UnsafeMutablePointer<Int64>?, _ states: UnsafeMutablePointer<UInt8>?,
                                   _ count: Int, _ err: ErrorOut) -> Int32 {
    readColumn(r, slot, values, states, count, err) { v in if case .integer(let n) = v { n } else { nil } }
}

@_cdecl("og_results_read_doubles")
public func og_results_read_doubles(_ r: OpaquePointer?, _ slot: Int, _ values: UnsafeMutablePointer<Double>?, _ states: UnsafeMutablePointer<UInt8>?,
                                    _ count: Int, _ err: ErrorOut) -> Int32 {
    readColumn(r, slot, values, states, count, err) { v in if case .double(let d) = v { d } else { nil } }
}

@_cdecl("og_context_change_counter")
public func og_context_change_counter(_ c: OpaquePointer?) -> UnsafePointer<UInt64>? {
    (try? handles.get(c, ContextBox.self))?.context.valueChangeCounter
}
