import ObjectGraph

// og_entity_* functions that go with entity details: this handle family's part of that concern.

@_cdecl("og_entity_class_name")
public func og_entity_class_name(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).managedObjectClassName }
}

@_cdecl("og_entity_renaming_identifier")
public func og_entity_renaming_identifier(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).renamingIdentifier }
}

@_cdecl("og_entity_user_info")
public func og_entity_user_info(_ e: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).userInfo[try string(key, "the key")] }
}

@_cdecl("og_entity_subentity_count")
public func og_entity_subentity_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.subentities.count ?? 0 }

@_cdecl("og_entity_subentity_at")
public func og_entity_subentity_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let subs = try entity(e).subentities.sorted { $0.name < $1.name }
        guard index >= 0, index < subs.count else { throw .invalidArgument("subentity index \(index) is out of range (there are \(subs.count))") }
        return try lendEntity(subs[index], near: e)
    }
}

@_cdecl("og_entity_is_kind_of")
public func og_entity_is_kind_of(_ e: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try entity(e), y = try entity(other)
        try required(out, "out").pointee = x.isKind(of: y)
        return OG_OK
    }
}
