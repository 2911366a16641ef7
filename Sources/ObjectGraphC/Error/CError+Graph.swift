import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_error_* functions that go with graph: this handle family's part of that concern.

@_cdecl("og_error_new")
public func og_error_new(_ code: Int64, _ message: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?) -> OpaquePointer? {
    let text = message.flatMap { String(validatingCString: $0) } ?? "validation failed"
    var e = ObjectGraphError(domain: code >= 140000 ? ObjectGraphError.objectGraphDomain : ObjectGraphError.cocoaDomain, code: Int(code), message: text)
    if let key, let k = String(validatingCString: key) { e.userInfo.append((ErrorUserInfoKey.validationKey, k)) }
    return handles.make(ErrorBox(e))
}

@_cdecl("og_error_new_in_domain")
public func og_error_new_in_domain(_ domain: UnsafePointer<CChar>?, _ code: Int64, _ message: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?)
    -> OpaquePointer?
{
    guard let domain, let name = String(validatingCString: domain), !name.isEmpty else { return og_error_new(code, message, key) }
    let text = message.flatMap { String(validatingCString: $0) } ?? "validation failed"
    var e = ObjectGraphError(domain: name, code: Int(code), message: text)
    if let key, let k = String(validatingCString: key) { e.userInfo.append((ErrorUserInfoKey.validationKey, k)) }
    return handles.make(ErrorBox(e))
}
