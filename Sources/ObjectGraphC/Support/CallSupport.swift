import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

/// The plumbing every C entry point shares: status codes, error out-parameters, string
/// conversion. No engine logic lives here.

public typealias ErrorOut = UnsafeMutablePointer<OpaquePointer?>?

let OG_OK: Int32 = 0
let OG_NULL: Int32 = 1
let OG_ERROR: Int32 = -1

let handles = HandleTable.shared

/// Hands `error` to the caller through `out`, when the caller asked for it.
func report(_ error: ObjectGraphError, _ out: ErrorOut) {
    guard let out else { return }
    out.pointee = handles.make(ErrorBox(error))
}

/// The error a C callback reported through its `og_error **` (taken over and released),
/// or nil when it set none.
func takeReported(_ reported: OpaquePointer?) -> ObjectGraphError? {
    guard let reported else { return nil }
    defer { handles.release(reported, ErrorBox.self) }
    return (try? handles.get(reported, ErrorBox.self))?.error
}

/// Runs `body` and turns its outcome into a status.
@inline(__always)
func status(_ out: ErrorOut, _ body: () throws(ObjectGraphError) -> Int32) -> Int32 {
    do { return try body() } catch {
        report(error, out)
        return OG_ERROR
    }
}

/// Runs `body` and turns its outcome into a handle, or NULL.
@inline(__always)
func handle(_ out: ErrorOut, _ body: () throws(ObjectGraphError) -> OpaquePointer) -> OpaquePointer? {
    do { return try body() } catch {
        report(error, out)
        return nil
    }
}

/// A caller's string: NULL and invalid UTF-8 are errors naming the argument.
func string(_ p: UnsafePointer<CChar>?, _ what: String) throws(ObjectGraphError) -> String {
    guard let p else { throw .invalidArgument("\(what) is NULL") }
    guard let s = String(validatingCString: p) else {
        throw ObjectGraphError(
            domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.invalidUTF8, message: "\(what) is not valid UTF-8")
    }
    return s
}

/// A caller's string given by pointer and byte length (the `_n` functions): NULL with a
/// length, and invalid UTF-8, are errors naming the argument. A value keeps the NULs it
/// holds (`allowsNUL`); a name or a path with a NUL is an error, as no file or name can
/// hold one.
func string(_ p: UnsafePointer<CChar>?, length: Int, _ what: String, allowsNUL: Bool) throws(ObjectGraphError) -> String {
    guard length >= 0 else { throw .invalidArgument("the length of \(what) is negative") }
    if length == 0 { return "" }
    guard let p else { throw .invalidArgument("\(what) is NULL but its length is \(length)") }
    let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: length)
    if !allowsNUL, bytes.contains(0) {
        throw .invalidArgument("\(what) contains a NUL character (at byte \(bytes.firstIndex(of: 0) ?? 0)), which no name or path may hold")
    }
    guard let s = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else {
        throw ObjectGraphError(
            domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.invalidUTF8, message: "\(what) is not valid UTF-8")
    }
    return s
}

/// An out-parameter the caller must supply.
func required<T>(_ p: UnsafeMutablePointer<T>?, _ what: String) throws(ObjectGraphError) -> UnsafeMutablePointer<T> {
    guard let p else { throw .invalidArgument("the out-parameter \(what) is NULL") }
    return p
}

/// An owned C copy of `s`, freed by the caller with og_free: every byte of its UTF-8
/// (embedded NULs included), then a NUL. `length`, when given, receives the byte count
/// without the terminator.
func ownedString(_ s: String, length: UnsafeMutablePointer<Int>? = nil) -> UnsafeMutablePointer<CChar> {
    var s = s
    // The bytes copied straight from the string's own storage, not through an array first.
    return s.withUTF8 { utf8 in
        // malloc, as strdup did: og_free (free) releases it. Only running out of memory fails.
        let raw = malloc(utf8.count + 1)!
        if let base = utf8.baseAddress { raw.copyMemory(from: base, byteCount: utf8.count) }
        let p = raw.assumingMemoryBound(to: CChar.self)
        p[utf8.count] = 0
        length?.pointee = utf8.count
        return p
    }
}

/// Writes an optional result to a caller's out-parameter: OG_OK with the value, or NULL
/// and OG_NULL when there is none.
func nullable<T>(_ target: UnsafeMutablePointer<T?>, _ value: T?) -> Int32 {
    target.pointee = value
    return value == nil ? OG_NULL : OG_OK
}

/// Writes a flag to a caller's out-parameter.
func flag(_ out: UnsafeMutablePointer<Bool>?, _ body: () throws(ObjectGraphError) -> Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let value = try body()
        try required(out, "out").pointee = value
        return OG_OK
    }
}
