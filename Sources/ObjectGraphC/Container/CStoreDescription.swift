import ObjectGraph

// og_store_description_*: recipes for adding stores (NSPersistentStoreDescription).

final class StoreDescriptionBox: HandleBox {
    static let kindName = "an og_store_description"
    let description: PersistentStoreDescription
    /// Every string lent so far: a pointer stays valid while the description lives.
    private var lent: [CString] = []
    init(_ description: PersistentStoreDescription) { self.description = description }

    func lend(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s else { return nil }
        if let last = lent.last(where: { String(cString: $0.pointer) == s }) { return UnsafePointer(last.pointer) }
        let c = CString(s)
        lent.append(c)
        return UnsafePointer(c.pointer)
    }
}

func storeDescription(_ d: OpaquePointer?) throws(ObjectGraphError) -> StoreDescriptionBox {
    try handles.get(d, StoreDescriptionBox.self)
}

@_cdecl("og_store_description_new")
public func og_store_description_new(_ path: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let kind = type == nil ? StoreType.sqlite : try string(type, "the store type")
        let file = path == nil ? nil : try string(path, "the path")
        return handles.make(StoreDescriptionBox(PersistentStoreDescription(path: file, type: kind)))
    }
}

@_cdecl("og_store_description_release")
public func og_store_description_release(_ d: OpaquePointer?) {
    handles.release(d, StoreDescriptionBox.self)
}

@_cdecl("og_store_description_type")
public func og_store_description_type(_ d: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = try? storeDescription(d) else { return nil }
    return box.lend(box.description.type)
}

@_cdecl("og_store_description_path")
public func og_store_description_path(_ d: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = try? storeDescription(d) else { return nil }
    return box.lend(box.description.path)
}

@_cdecl("og_store_description_configuration")
public func og_store_description_configuration(_ d: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = try? storeDescription(d) else { return nil }
    return box.lend(box.description.configuration)
}

@_cdecl("og_store_description_set_type")
public func og_store_description_set_type(_ d: OpaquePointer?, _ type: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try storeDescription(d)
        let kind = try string(type, "the store type")
        guard !kind.isEmpty else { throw .invalidArgument("the store type is empty") }
        box.description.type = kind
        return OG_OK
    }
}

@_cdecl("og_store_description_set_path")
public func og_store_description_set_path(_ d: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try storeDescription(d)
        box.description.path = path == nil ? nil : try string(path, "the path")
        return OG_OK
    }
}

@_cdecl("og_store_description_set_configuration")
public func og_store_description_set_configuration(_ d: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try storeDescription(d)
        box.description.configuration = name == nil ? nil : try string(name, "the configuration")
        return OG_OK
    }
}

@_cdecl("og_store_description_adds_asynchronously")
public func og_store_description_adds_asynchronously(_ d: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try storeDescription(d).description.shouldAddStoreAsynchronously }, err)
}

@_cdecl("og_store_description_set_adds_asynchronously")
public func og_store_description_set_adds_asynchronously(_ d: OpaquePointer?, _ value: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try storeDescription(d).description.shouldAddStoreAsynchronously = value
        return OG_OK
    }
}

@_cdecl("og_store_description_option")
public func og_store_description_option(_ d: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    do {
        let box = try storeDescription(d)
        guard let value = box.description.options[try string(key, "the option key")] else { return nil }
        return handles.make(ValueBox(content: boxed(value)))
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_store_description_set_option")
public func og_store_description_set_option(_ d: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try storeDescription(d)
        let name = try string(key, "the option key")
        guard !name.isEmpty else { throw .invalidArgument("the option key is empty") }
        let plistValue = value == nil ? nil : try plist(try handles.get(value, ValueBox.self).content, "the option '\(name)'")
        box.description.setOption(plistValue, forKey: name)
        return OG_OK
    }
}

@_cdecl("og_store_description_options")
public func og_store_description_options(_ d: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ValueBox(content: boxed(.dictionary(try storeDescription(d).description.options))))
    }
}
