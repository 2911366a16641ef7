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

/// An out-parameter the caller must supply.
func required<T>(_ p: UnsafeMutablePointer<T>?, _ what: String) throws(ObjectGraphError) -> UnsafeMutablePointer<T> {
    guard let p else { throw .invalidArgument("the out-parameter \(what) is NULL") }
    return p
}

/// An owned C copy of `s`, freed by the caller with og_free.
func ownedString(_ s: String) -> UnsafeMutablePointer<CChar> { strdup(s)! }
