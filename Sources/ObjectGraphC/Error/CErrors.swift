import ObjectGraph

// og_error_*: reading an error. Functions that cannot report an error return NULL or 0
// for an invalid handle.

func box(_ e: OpaquePointer?) -> ErrorBox? { try? handles.get(e, ErrorBox.self) }

@_cdecl("og_error_domain")
public func og_error_domain(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(e).map { UnsafePointer($0.domain.pointer) }
}

@_cdecl("og_error_code")
public func og_error_code(_ e: OpaquePointer?) -> Int64 {
    box(e).map { Int64($0.error.code) } ?? 0
}

@_cdecl("og_error_message")
public func og_error_message(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    box(e).map { UnsafePointer($0.message.pointer) }
}

@_cdecl("og_error_user_info_count")
public func og_error_user_info_count(_ e: OpaquePointer?) -> Int {
    box(e)?.error.userInfo.count ?? 0
}

@_cdecl("og_error_user_info_key")
public func og_error_user_info_key(_ e: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let b = box(e), index >= 0, index < b.userInfo.count else { return nil }
    return UnsafePointer(b.userInfo[index].0.pointer)
}

@_cdecl("og_error_user_info_value")
public func og_error_user_info_value(_ e: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let b = box(e), index >= 0, index < b.userInfo.count else { return nil }
    return UnsafePointer(b.userInfo[index].1.pointer)
}

@_cdecl("og_error_user_info")
public func og_error_user_info(_ e: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let b = box(e), let key, let k = String(validatingCString: key) else { return nil }
    guard let i = b.error.userInfo.firstIndex(where: { $0.key == k }) else { return nil }
    return UnsafePointer(b.userInfo[i].1.pointer)
}

@_cdecl("og_error_detail_count")
public func og_error_detail_count(_ e: OpaquePointer?) -> Int {
    box(e)?.error.details.count ?? 0
}

@_cdecl("og_error_detail_at")
public func og_error_detail_at(_ e: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let b = box(e), index >= 0, index < b.details.count else { return nil }
    let detail = b.details[index]
    return try? handles.lend(detail, from: e) { detail }
}

@_cdecl("og_error_release")
public func og_error_release(_ e: OpaquePointer?) {
    handles.release(e, ErrorBox.self)
}
