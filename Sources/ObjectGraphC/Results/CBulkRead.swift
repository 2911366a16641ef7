import ObjectGraph

// og_results_objects, og_results_read_int64s/doubles and their _columns forms, og_context_change_counter: reading a
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
        try results.lendAll { i, handle in out[i] = handle }
        if let entities {
            // The runs of one entity first, with the objects borrowed and entities compared
            // by identity (holding each would retain and release it), then a handle per run.
            var runs: [(start: Int, entity: EntityDescription)] = []
            var last: ObjectIdentifier? = nil
            results.objects.forEachBorrowed { i, object in
                guard ObjectIdentifier(object.entity) != last else { return }
                runs.append((i, object.entity))
                last = ObjectIdentifier(object.entity)
            }
            for (k, run) in runs.enumerated() {
                let handle = try lendEntity(run.entity, from: results.contextHandle)
                let end = k + 1 < runs.count ? runs[k + 1].start : count
                (entities + run.start).update(repeating: handle, count: end - run.start)
            }
        }
        return OG_OK
    }
}

/// Fills `states` (1 value, 0 nil, 2 not read) and `values` for the attributes `slots` of
/// every result, column by column: slot k of object i lands at `k * count + i`. `T` is
/// `Int64` for numbers stored as integers, `Double` for numbers stored as doubles.
func readColumns<T>(_ r: OpaquePointer?, _ slots: UnsafePointer<Int>?, _ slotCount: Int, _ values: UnsafeMutablePointer<T>?,
                    _ states: UnsafeMutablePointer<UInt8>?, _ count: Int, _ err: ErrorOut, _ kind: ManagedObjectContext.StoredNumber) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let results = try handles.get(r, ResultsBox.self)
        guard count == results.objects.count else {
            throw .invalidArgument("the arrays hold \(count) elements per slot but the results have \(results.objects.count)")
        }
        guard slotCount > 0 else {
            if slotCount == 0 { return OG_OK }
            throw .invalidArgument("a slot count cannot be negative")
        }
        guard let slots else { throw .invalidArgument("NULL slots with a slot count of \(slotCount)") }
        let (cells, overflow) = count.multipliedReportingOverflow(by: slotCount)
        guard !overflow else { throw .invalidArgument("\(slotCount) slots of \(count) results do not fit in memory") }
        let values = try required(values, "values"), states = try required(states, "states")
        states.initialize(repeating: 2, count: cells)
        let context = try handles.get(results.contextHandle, ContextBox.self).context
        let wanted = Array(UnsafeBufferPointer(start: slots, count: slotCount))
        try context.readLoadedNumbers(atSlots: wanted, of: results.objects, storedAs: kind,
                                      values: UnsafeMutableRawPointer(values).assumingMemoryBound(to: UInt64.self), states: states)
        return OG_OK
    }
}

@_cdecl("og_results_read_int64s")
public func og_results_read_int64s(_ r: OpaquePointer?, _ slot: Int, _ values: UnsafeMutablePointer<Int64>?, _ states: UnsafeMutablePointer<UInt8>?,
                                   _ count: Int, _ err: ErrorOut) -> Int32 {
    withUnsafePointer(to: slot) { readColumns(r, $0, 1, values, states, count, err, .integer) }
}

@_cdecl("og_results_read_doubles")
public func og_results_read_doubles(_ r: OpaquePointer?, _ slot: Int, _ values: UnsafeMutablePointer<Double>?, _ states: UnsafeMutablePointer<UInt8>?,
                                    _ count: Int, _ err: ErrorOut) -> Int32 {
    withUnsafePointer(to: slot) { readColumns(r, $0, 1, values, states, count, err, .double) }
}

@_cdecl("og_results_read_int64_columns")
public func og_results_read_int64_columns(_ r: OpaquePointer?, _ slots: UnsafePointer<Int>?, _ slotCount: Int, _ values: UnsafeMutablePointer<Int64>?,
                                          _ states: UnsafeMutablePointer<UInt8>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    readColumns(r, slots, slotCount, values, states, count, err, .integer)
}

@_cdecl("og_results_read_double_columns")
public func og_results_read_double_columns(_ r: OpaquePointer?, _ slots: UnsafePointer<Int>?, _ slotCount: Int, _ values: UnsafeMutablePointer<Double>?,
                                           _ states: UnsafeMutablePointer<UInt8>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    readColumns(r, slots, slotCount, values, states, count, err, .double)
}
