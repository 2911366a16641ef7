import ObjectGraph

// og_store_* functions that go with coordinator: this handle family's part of that concern.

@_cdecl("og_store_path")
public func og_store_path(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.path.pointer) }
}

@_cdecl("og_store_uuid")
public func og_store_uuid(_ s: OpaquePointer?) -> UnsafePointer<CChar>? {
    (try? handles.get(s, StoreBox.self)).map { UnsafePointer($0.uuid.pointer) }
}

@_cdecl("og_store_file_metadata_string")
public func og_store_file_metadata_string(_ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                                          _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let name = try string(key, "the key")
        let metadata = try fileMetadata(type, path)
        switch metadata[name] {
        case .string(let s)?: return ownedString(s)
        case .integer(let i)?: return ownedString(String(i))
        case nil: return nil
        default: throw .invalidArgument("metadata key '\(name)' does not hold a string")
        }
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_store_file_set_metadata_string")
public func og_store_file_set_metadata_string(_ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                                              _ value: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let name = try string(key, "the key")
        var metadata = try fileMetadata(type, path)
        metadata[name] = value == nil ? nil : .string(try string(value, "the value"))
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: type == nil ? nil : try string(type, "the store type"),
                                                   at: try string(path, "the path"))
        return OG_OK
    }
}
