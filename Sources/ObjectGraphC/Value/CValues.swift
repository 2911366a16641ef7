import FoundationEssentials
import ObjectGraph

// og_value_*: boxed values. Dates cross as seconds since 1970.

func make(_ v: AttributeValue) -> OpaquePointer { handles.make(ValueBox(v)) }

@_cdecl("og_value_new_null") public func og_value_new_null() -> OpaquePointer? { make(.null) }
@_cdecl("og_value_new_int64") public func og_value_new_int64(_ v: Int64) -> OpaquePointer? { make(.integer(v)) }
@_cdecl("og_value_new_double") public func og_value_new_double(_ v: Double) -> OpaquePointer? { make(.double(v)) }
@_cdecl("og_value_new_bool") public func og_value_new_bool(_ v: Bool) -> OpaquePointer? { make(.boolean(v)) }
@_cdecl("og_value_new_date") public func og_value_new_date(_ v: Double) -> OpaquePointer? {
    make(.date(Date(timeIntervalSince1970: v)))
}

@_cdecl("og_value_new_data")
public func og_value_new_data(_ bytes: UnsafeRawPointer?, _ length: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        if length == 0 { return make(.data(Data())) }
        guard let bytes, length > 0 else { throw .invalidArgument("data bytes are NULL or the length is negative") }
        return make(.data(Data(bytes: bytes, count: length)))
    }
}

@_cdecl("og_value_new_uuid")
public func og_value_new_uuid(_ bytes: UnsafePointer<UInt8>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        guard let b = bytes else { throw .invalidArgument("UUID bytes are NULL") }
        return make(.uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))))
    }
}

@_cdecl("og_value_new_string")
public func og_value_new_string(_ text: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in make(.string(try string(text, "the string"))) }
}

@_cdecl("og_value_new_string_n")
public func og_value_new_string_n(_ text: UnsafePointer<CChar>?, _ length: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in make(.string(try string(text, length: length, "the string", allowsNUL: true))) }
}

@_cdecl("og_value_new_decimal")
public func og_value_new_decimal(_ text: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let s = try string(text, "the decimal")
        guard let d = ValueText.decimal(s) else { throw .invalidArgument("'\(s)' is not a decimal number") }
        return make(.decimal(d))
    }
}

@_cdecl("og_value_new_uri")
public func og_value_new_uri(_ text: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let s = try string(text, "the URI")
        guard ValueText.isURI(s) else { throw .invalidArgument("'\(s)' is not an absolute URI") }
        return make(.uri(s))
    }
}

/// The C type tag of a value (og_value_type).
func typeTag(_ v: AttributeValue) -> Int32 {
    switch v {
    case .null: 0
    case .integer: 1
    case .double: 2
    case .boolean: 3
    case .string: 4
    case .date: 5
    case .data: 6
    case .decimal: 7
    case .uuid: 8
    case .uri: 9
    case .transformable(.object): 15
    case .transformable(.array): 10
    case .transformable(.dictionary): 11
    case .transformable(let t): typeTag(t.attributeValue)
    }
}

@_cdecl("og_value_type_of")
public func og_value_type_of(_ v: OpaquePointer?) -> Int32 {
    guard let box = try? handles.get(v, ValueBox.self) else { return 0 }
    if box.objectIDURI != nil { return 13 }
    switch box.content {
    case .scalar(let s): return typeTag(s)
    case .collection: return 10
    case .dictionary: return 11
    case .object(is EntityDescription): return 14
    case .object: return 12
    }
}

func mismatch(_ v: AttributeValue, _ wanted: String) -> ObjectGraphError {
    ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch, message: "the value is \(v.kindName), not \(wanted)")
}

/// Reads a typed value into `out`: OG_NULL for nil, a type mismatch for another type.
func readValue<T>(_ v: AttributeValue, _ out: UnsafeMutablePointer<T>?, _ zero: T, _ wanted: String,
                  _ convert: (AttributeValue) -> T?) throws(ObjectGraphError) -> Int32 {
    let out = try required(out, "out")
    if v.isNull { out.pointee = zero; return OG_NULL }
    guard let x = convert(v) else { throw mismatch(v, wanted) }
    out.pointee = x
    return OG_OK
}

func asInt64(_ v: AttributeValue) -> Int64? {
    switch v {
    case .integer(let i): i
    case .boolean(let b): b ? 1 : 0
    case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
    default: nil
    }
}

/// An integer or a double as stored, without conversion: what the one-step and bulk reads take.
func asStoredInt64(_ v: AttributeValue) -> Int64? { if case .integer(let n) = v { n } else { nil } }
func asStoredDouble(_ v: AttributeValue) -> Double? { if case .double(let d) = v { d } else { nil } }

func asDouble(_ v: AttributeValue) -> Double? {
    switch v {
    case .double(let d): d
    case .integer(let i): Double(i)
    case .decimal(let d): Double(d.description)
    default: nil
    }
}

func asBool(_ v: AttributeValue) -> Bool? {
    switch v {
    case .boolean(let b): b
    case .integer(let i): i != 0
    default: nil
    }
}

func asDate(_ v: AttributeValue) -> Double? { if case .date(let d) = v { d.timeIntervalSince1970 } else { nil } }

@_cdecl("og_value_get_int64")
public func og_value_get_int64(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try readValue(try handles.get(v, ValueBox.self).scalar(), out, 0, "an integer", asInt64) }
}

@_cdecl("og_value_get_double")
public func og_value_get_double(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try readValue(try handles.get(v, ValueBox.self).scalar(), out, 0, "a number", asDouble) }
}

@_cdecl("og_value_get_bool")
public func og_value_get_bool(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try readValue(try handles.get(v, ValueBox.self).scalar(), out, false, "a boolean", asBool) }
}

@_cdecl("og_value_get_date")
public func og_value_get_date(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in try readValue(try handles.get(v, ValueBox.self).scalar(), out, 0, "a date", asDate) }
}

@_cdecl("og_value_get_uuid")
public func og_value_get_uuid(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let value = try handles.get(v, ValueBox.self).scalar()
        let out = try required(out, "out")
        if value.isNull { return OG_NULL }
        guard case .uuid(let u) = value else { throw mismatch(value, "a UUID") }
        withUnsafeBytes(of: u.uuid) { raw in for i in 0..<16 { out[i] = raw[i] } }
        return OG_OK
    }
}

/// A borrowed text form (string, decimal or URI) of a boxed value.
func borrowedText(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ wanted: String,
                          _ accepts: (AttributeValue) -> Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out")
        let value = try box.scalar()
        if value.isNull { out.pointee = nil; return OG_NULL }
        guard accepts(value), let text = box.text else { throw mismatch(value, wanted) }
        out.pointee = UnsafePointer(text.pointer)
        return OG_OK
    }
}

@_cdecl("og_value_get_string")
public func og_value_get_string(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    borrowedText(v, out, "a string", { if case .string = $0 { true } else { false } }, err)
}

@_cdecl("og_value_get_string_n")
public func og_value_get_string_n(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                                  _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out"), length = try required(length, "length")
        let value = try box.scalar()
        if value.isNull { out.pointee = nil; length.pointee = 0; return OG_NULL }
        guard case .string = value, let text = box.text else { throw mismatch(value, "a string") }
        out.pointee = UnsafePointer(text.pointer)
        length.pointee = text.length
        return OG_OK
    }
}

@_cdecl("og_value_get_decimal")
public func og_value_get_decimal(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    borrowedText(v, out, "a decimal", { if case .decimal = $0 { true } else { false } }, err)
}

@_cdecl("og_value_get_uri")
public func og_value_get_uri(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    borrowedText(v, out, "a URI", { if case .uri = $0 { true } else { false } }, err)
}

@_cdecl("og_value_get_data")
public func og_value_get_data(_ v: OpaquePointer?, _ bytes: UnsafeMutablePointer<UnsafeRawPointer?>?,
                              _ length: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let bytesOut = try required(bytes, "bytes"), lengthOut = try required(length, "length")
        _ = try box.scalar()
        if box.value.isNull { bytesOut.pointee = nil; lengthOut.pointee = 0; return OG_NULL }
        guard case .data = box.value else { throw mismatch(box.value, "binary data") }
        lengthOut.pointee = box.bytes.count
        bytesOut.pointee = UnsafeRawPointer(box.bytes.baseAddress)
        return OG_OK
    }
}

@_cdecl("og_value_release")
public func og_value_release(_ v: OpaquePointer?) {
    handles.release(v, ValueBox.self)
}
