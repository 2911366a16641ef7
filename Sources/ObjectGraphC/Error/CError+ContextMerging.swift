import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_error_* functions that go with context merging: this handle family's part of that concern.

@_cdecl("og_error_conflict_count")
public func og_error_conflict_count(_ e: OpaquePointer?) -> Int { conflicts(e).count }

@_cdecl("og_error_conflict_object")
public func og_error_conflict_object(_ e: OpaquePointer?, _ index: Int, _ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let found = try conflict(e, index)
        let x = try context(c)
        try x.checkThread()
        guard found.sourceObject.managedObjectContext === x else {
            throw .invalidArgument("the conflict's object belongs to another context than the one given")
        }
        return try lendObject(found.sourceObject, from: c!)
    }
}

@_cdecl("og_error_conflict_object_uri")
public func og_error_conflict_object_uri(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try conflict(e, index).sourceObject.objectID.uriRepresentation) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_error_conflict_versions")
public func og_error_conflict_versions(_ e: OpaquePointer?, _ index: Int, _ old: UnsafeMutablePointer<Int64>?,
                                       _ new: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let found = try conflict(e, index)
        try required(old, "old_version").pointee = found.oldVersionNumber
        try required(new, "new_version").pointee = found.newVersionNumber
        return OG_OK
    }
}

@_cdecl("og_error_conflict_has_snapshot")
public func og_error_conflict_has_snapshot(_ e: OpaquePointer?, _ index: Int, _ which: Int32) -> Bool {
    guard let c = try? conflict(e, index) else { return false }
    return snapshot(c, which) != nil
}

@_cdecl("og_error_conflict_key_count")
public func og_error_conflict_key_count(_ e: OpaquePointer?, _ index: Int) -> Int { keys(e, index).count }

@_cdecl("og_error_conflict_key_at")
public func og_error_conflict_key_at(_ e: OpaquePointer?, _ index: Int, _ keyIndex: Int) -> UnsafePointer<CChar>? {
    let all = keys(e, index)
    guard keyIndex >= 0, keyIndex < all.count else { return nil }
    return UnsafePointer(all[keyIndex].pointer)
}

@_cdecl("og_error_conflict_value")
public func og_error_conflict_value(_ e: OpaquePointer?, _ index: Int, _ which: Int32, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let c = try conflict(e, index)
        guard (0...2).contains(which) else { throw .invalidArgument("\(which) is not an og_conflict_snapshot") }
        guard let values = snapshot(c, which) else { throw .invalidArgument("conflict \(index) has no snapshot \(which)") }
        let name = try string(key, "the key")
        guard let value = values[name] else { throw .unknownKey(name, entity: c.sourceObject.entity.name) }
        switch value {
        case .attribute(let a): return handles.make(ValueBox(a))
        case .object(nil): return handles.make(ValueBox(.null))
        case .object(let id?): return objectIDValue(id)
        }
    }
}
