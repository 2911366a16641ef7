import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_object_*: managed objects. The engine checks the context's thread on every call.

func key(_ k: UnsafePointer<CChar>?) throws(ObjectGraphError) -> String { try string(k, "the key") }

@_cdecl("og_object_entity")
public func og_object_entity(_ o: OpaquePointer?) -> OpaquePointer? {
    guard let x = try? object(o) else { return nil }
    return try? lendEntity(x.entity, near: o)
}

@_cdecl("og_object_id_uri")
public func og_object_id_uri(_ o: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        // On the context's thread only, as every read of an object: making the ID reads the
        // object's row, which that thread may be replacing.
        let x = try object(o)
        try x.managedObjectContext?.checkThread()
        return ownedString(x.objectID.uriRepresentation)
    } catch {
        report(error, err)
        return nil
    }
}

func objectFlag(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut, _ read: (ManagedObject) -> Bool) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in
        let x = try object(o)
        try x.managedObjectContext?.checkThread()
        return read(x)
    }, err)
}

@_cdecl("og_object_has_temporary_id")
public func og_object_has_temporary_id(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    objectFlag(o, out, err) { $0.objectID.isTemporaryID }
}

@_cdecl("og_object_is_inserted")
public func og_object_is_inserted(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    objectFlag(o, out, err) { $0.isInserted }
}

@_cdecl("og_object_is_updated")
public func og_object_is_updated(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    objectFlag(o, out, err) { $0.isUpdated }
}

@_cdecl("og_object_is_deleted")
public func og_object_is_deleted(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    objectFlag(o, out, err) { $0.isDeleted }
}

@_cdecl("og_object_has_changes")
public func og_object_has_changes(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    objectFlag(o, out, err) { $0.hasChanges }
}

@_cdecl("og_object_validate")
public func og_object_validate(_ o: OpaquePointer?, _ kind: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        guard let context = x.managedObjectContext else {
            throw .objectInaccessible("\(x) belongs to no context: it cannot be validated")
        }
        try context.checkThread()
        switch kind {
        case 0: try x.validateForInsert()
        case 1: try x.validateForUpdate()
        case 2: try x.validateForDelete()
        default: throw .invalidArgument("\(kind) is not OG_VALIDATE_FOR_INSERT, _UPDATE or _DELETE")
        }
        return OG_OK
    }
}

// MARK: Typed access by key

/// Reads one attribute, found by `locate` (by key or by slot), into `out` as `wanted`.
/// `locate` gives the value and a way to name its key, used only for an error message.
func read<T>(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<T>?, _ zero: T, _ wanted: String, _ err: ErrorOut,
                     _ convert: (AttributeValue) -> T?,
                     _ locate: (ManagedObject) throws(ObjectGraphError) -> (name: (ManagedObject) -> String, value: AttributeValue)) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        _ = try required(out, "out")
        var (name, v) = try locate(x)
        // A transformable's plist scalar reads with the typed getter of its type.
        if case .transformable(let t) = v { v = t.attributeValue }
        do throws(ObjectGraphError) { return try readValue(v, out, zero, wanted, convert) } catch {
            throw ObjectGraphError.wrongKind(key: name(x), entity: x.entity.name, expected: "readable as \(wanted) (it holds \(v.kindName))")
        }
    }
}

func get<T>(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<T>?, _ zero: T, _ wanted: String,
                    _ err: ErrorOut, _ convert: (AttributeValue) -> T?) -> Int32 {
    read(o, out, zero, wanted, err, convert) { x throws(ObjectGraphError) in
        let k = try key(k)
        return ({ _ in k }, try x.value(forKey: k))
    }
}

func set(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ err: ErrorOut, _ value: () throws(ObjectGraphError) -> AttributeValue) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        try x.setValue(try value(), forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_get_int64")
public func og_object_get_int64(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    get(o, k, out, 0, "an integer", err, asInt64)
}

@_cdecl("og_object_set_int64")
public func og_object_set_int64(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ v: Int64, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { .integer(v) }
}

@_cdecl("og_object_get_double")
public func og_object_get_double(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    get(o, k, out, 0, "a number", err, asDouble)
}

@_cdecl("og_object_set_double")
public func og_object_set_double(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ v: Double, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { .double(v) }
}

@_cdecl("og_object_get_bool")
public func og_object_get_bool(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    get(o, k, out, false, "a boolean", err, asBool)
}

@_cdecl("og_object_set_bool")
public func og_object_set_bool(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { .boolean(v) }
}

@_cdecl("og_object_get_date")
public func og_object_get_date(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    get(o, k, out, 0, "a date", err, asDate)
}

@_cdecl("og_object_set_date")
public func og_object_set_date(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ v: Double, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { .date(Date(timeIntervalSince1970: v)) }
}

@_cdecl("og_object_get_string")
public func og_object_get_string(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ err: ErrorOut) -> Int32 {
    get(o, k, out, nil, "a string", err) { v in
        switch v {
        case .string(let s): ownedString(s)
        case .uri(let u): ownedString(u)
        case .decimal(let d): ownedString(d.description)
        default: nil
        }
    }
}

@_cdecl("og_object_set_string")
public func og_object_set_string(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { () throws(ObjectGraphError) in text == nil ? .null : .string(try string(text, "the string")) }
}

@_cdecl("og_object_get_string_n")
public func og_object_get_string_n(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                   _ length: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let out = try required(out, "out"), length = try required(length, "length")
        // Written only once the read succeeds: a call refused (another thread's, say) must
        // leave the caller's buffers as they were.
        let v = try x.value(forKey: k)
        out.pointee = nil
        length.pointee = 0
        if case .null = v { return OG_NULL }
        guard let text = textForm(v) else { throw .wrongKind(key: k, entity: x.entity.name, expected: "a string (it holds \(v.kindName))") }
        out.pointee = ownedString(text, length: length)
        return OG_OK
    }
}

/// What the string getters hand out for `v`: text and URIs as they are, a decimal in its
/// text form; nil for a value of any other kind.
func textForm(_ v: AttributeValue) -> String? {
    switch v {
    case .string(let s), .uri(let s): return s
    case .decimal(let d): return d.description
    default: return nil
    }
}

@_cdecl("og_object_set_string_n")
public func og_object_set_string_n(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?, _ length: Int,
                                   _ err: ErrorOut) -> Int32 {
    set(o, k, err) { () throws(ObjectGraphError) in .string(try string(text, length: length, "the string", allowsNUL: true)) }
}

@_cdecl("og_object_get_data")
public func og_object_get_data(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ bytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                               _ length: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let bytesOut = try required(bytes, "bytes"), lengthOut = try required(length, "length")
        let v = try x.value(forKey: k)
        bytesOut.pointee = nil
        lengthOut.pointee = 0
        if v.isNull { return OG_NULL }
        guard case .data(let d) = v else { throw .wrongKind(key: k, entity: x.entity.name, expected: "binary data (it holds \(v.kindName))") }
        if d.isEmpty { return OG_OK }
        guard let p = malloc(d.count) else { throw .invalidArgument("cannot allocate \(d.count) bytes for the value of '\(k)'") }
        d.withUnsafeBytes { raw in if let base = raw.baseAddress { p.copyMemory(from: base, byteCount: d.count) } }
        bytesOut.pointee = p
        lengthOut.pointee = d.count
        return OG_OK
    }
}

@_cdecl("og_object_set_data")
public func og_object_set_data(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ bytes: UnsafeRawPointer?, _ length: Int, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { () throws(ObjectGraphError) in
        if length == 0 { return .data(Data()) }
        guard let bytes, length > 0 else { throw .invalidArgument("data bytes are NULL or the length is negative") }
        return .data(Data(bytes: bytes, count: length))
    }
}

@_cdecl("og_object_set_null")
public func og_object_set_null(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { .null }
}

@_cdecl("og_object_get_value")
public func og_object_get_value(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let out = try required(out, "out")
        out.pointee = handles.make(ValueBox(try x.value(forKey: k)))
        return OG_OK
    }
}

@_cdecl("og_object_set_value")
public func og_object_set_value(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    set(o, k, err) { () throws(ObjectGraphError) in try handles.get(v, ValueBox.self).attributeValue() }
}

// MARK: Access by slot

func getAt<T>(_ o: OpaquePointer?, _ slot: Int, _ out: UnsafeMutablePointer<T>?, _ zero: T, _ wanted: String,
                      _ err: ErrorOut, _ convert: (AttributeValue) -> T?) -> Int32 {
    read(o, out, zero, wanted, err, convert) { x throws(ObjectGraphError) in
        let v = try x.value(atSlot: slot)
        return ({ $0.entity.properties[slot].name }, v)
    }
}

/// A value of the getter's own type read straight through (true); anything else (errors,
/// conversions, nil) is left to the full path, which repeats the read and reports it.
/// The object comes borrowed from the thread's lookup cache when it holds it (a C program
/// reads several values of one object in a row), so the read retains nothing.
@inline(__always)
func readStored<T>(_ o: OpaquePointer?, _ slot: Int, _ out: UnsafeMutablePointer<T>?, _ stored: (AttributeValue) -> T?) -> Bool {
    guard let out else { return false }
    func read(_ x: ManagedObject) -> T? {
        guard let v = try? x.value(atSlot: slot) else { return nil }
        return stored(v)
    }
    let found = handles.withCachedObject(o, read) ?? (try? object(o)).flatMap(read)
    guard let value = found else { return false }
    out.pointee = value
    return true
}

@_cdecl("og_object_get_int64_at")
public func og_object_get_int64_at(_ o: OpaquePointer?, _ slot: Int, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    if readStored(o, slot, out, asStoredInt64) { return OG_OK }
    return getAt(o, slot, out, 0, "an integer", err, asInt64)
}

@_cdecl("og_object_set_int64_at")
public func og_object_set_int64_at(_ o: OpaquePointer?, _ slot: Int, _ v: Int64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try handles.withObject(o) { x throws(ObjectGraphError) in try x.setValue(.integer(v), atSlot: slot) }
        return OG_OK
    }
}

@_cdecl("og_object_set_int64s_at")
public func og_object_set_int64s_at(_ o: OpaquePointer?, _ slots: UnsafePointer<Int>?, _ values: UnsafePointer<Int64>?, _ count: Int,
                                    _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        guard let (slots, values) = try int64Arrays(slots, values, count) else { return OG_OK }
        try x.setValues(count: count, slot: { slots[$0] }, value: { .integer(values[$0]) })
        return OG_OK
    }
}

/// The slot and value arrays of a call that sets `count` integers, checked; nil when there
/// are none to set.
func int64Arrays(_ slots: UnsafePointer<Int>?, _ values: UnsafePointer<Int64>?, _ count: Int) throws(ObjectGraphError)
    -> (UnsafePointer<Int>, UnsafePointer<Int64>)?
{
    guard count >= 0 else { throw .invalidArgument("a count cannot be negative") }
    guard count > 0 else { return nil }
    guard let slots, let values else { throw .invalidArgument("NULL slots or values with a count of \(count)") }
    return (slots, values)
}

@_cdecl("og_object_get_double_at")
public func og_object_get_double_at(_ o: OpaquePointer?, _ slot: Int, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    if readStored(o, slot, out, asStoredDouble) { return OG_OK }
    return getAt(o, slot, out, 0, "a number", err, asDouble)
}

@_cdecl("og_object_set_double_at")
public func og_object_set_double_at(_ o: OpaquePointer?, _ slot: Int, _ v: Double, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try handles.withObject(o) { x throws(ObjectGraphError) in try x.setValue(.double(v), atSlot: slot) }
        return OG_OK
    }
}

@_cdecl("og_object_copy_string_at")
public func og_object_copy_string_at(_ o: OpaquePointer?, _ slot: Int, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int,
                                     _ length: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let length = try required(length, "length")
        guard capacity >= 0 else { throw .invalidArgument("a capacity cannot be negative") }
        guard capacity == 0 || buffer != nil else { throw .invalidArgument("the buffer is NULL with a capacity of \(capacity)") }
        // Nothing is written before the read succeeds: callers share their buffers, and a
        // call refused (another thread's, say) must leave them as they were.
        let v = try x.value(atSlot: slot)
        if case .null = v {
            length.pointee = 0
            if capacity > 0, let buffer { buffer[0] = 0 }
            return OG_NULL
        }
        guard var text = textForm(v) else {
            throw .wrongKind(key: x.entity.properties[slot].name, entity: x.entity.name, expected: "a string (it holds \(v.kindName))")
        }
        // Copied only when it fits with its NUL; otherwise the length says what room it needs.
        text.withUTF8 { utf8 in
            length.pointee = utf8.count
            guard utf8.count < capacity, let buffer else { return }
            if let base = utf8.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: utf8.count) }
            buffer[utf8.count] = 0
        }
        return OG_OK
    }
}

@_cdecl("og_object_get_value_at")
public func og_object_get_value_at(_ o: OpaquePointer?, _ slot: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let out = try required(out, "out")
        out.pointee = handles.make(ValueBox(try x.value(atSlot: slot)))
        return OG_OK
    }
}

@_cdecl("og_object_set_value_at")
public func og_object_set_value_at(_ o: OpaquePointer?, _ slot: Int, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        try x.setValue(try handles.get(v, ValueBox.self).attributeValue(), atSlot: slot)
        return OG_OK
    }
}

// MARK: Relationships

@_cdecl("og_object_get_object")
public func og_object_get_object(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let out = try required(out, "out")
        guard let destination = try x.object(forKey: k) else { out.pointee = nil; return OG_NULL }
        out.pointee = try lendObject(destination, from: try handles.owner(of: o))
        return OG_OK
    }
}

@_cdecl("og_object_set_object")
public func og_object_set_object(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ d: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        try x.setObject(d == nil ? nil : try object(d), forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_get_related")
public func og_object_get_related(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let members = try x.objects(forKey: try key(k))
        return handles.make(ResultsBox(members, contextHandle: try handles.owner(of: o)))
    }
}

@_cdecl("og_object_add_related")
public func og_object_add_related(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ d: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        try x.addObject(try object(d), forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_insert_related_at")
public func og_object_insert_related_at(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ d: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let destination = try object(d)
        let members = try x.objects(forKey: k)
        let count = members.contains { $0 === destination } ? members.count - 1 : members.count
        guard index >= 0, index <= count else { throw .invalidArgument("index \(index) is out of range for '\(k)' (0...\(count))") }
        try x.insertObject(destination, at: index, forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_remove_related_at")
public func og_object_remove_related_at(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ index: Int, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let members = try x.objects(forKey: k)
        guard index >= 0, index < members.count else {
            throw .invalidArgument("index \(index) is out of range for '\(k)' (\(members.count) member\(members.count == 1 ? "" : "s"))")
        }
        try x.removeObject(members[index], forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_set_related")
public func og_object_set_related(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ list: UnsafePointer<OpaquePointer?>?, _ count: Int,
                                  _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        let destinations = try boxes(list, count, ManagedObject.self, "the destinations")
        try x.setObjects(destinations, forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_remove_related")
public func og_object_remove_related(_ o: OpaquePointer?, _ k: UnsafePointer<CChar>?, _ d: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try key(k)
        try x.removeObject(try object(d), forKey: k)
        return OG_OK
    }
}
