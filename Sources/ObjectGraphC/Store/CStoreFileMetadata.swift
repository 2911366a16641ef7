import ObjectGraph

// og_store_file_metadata and og_store_file_set_metadata: a store file's whole metadata,
// without adding the store (include/objectgraph.h documents them).

@_cdecl("og_store_file_metadata")
public func og_store_file_metadata(_ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?,
                                   _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(
            ofType: type == nil ? nil : try string(type, "the store type"), at: try string(path, "the path"),
            options: try plistDictionary(options, "the options"))
        return handles.make(ValueBox(content: boxed(.dictionary(metadata))))
    }
}

@_cdecl("og_store_file_set_metadata")
public func og_store_file_set_metadata(_ type: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ metadata: OpaquePointer?,
                                       _ options: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        guard metadata != nil else { throw .invalidArgument("the metadata is NULL") }
        try PersistentStoreCoordinator.setMetadata(
            try plistDictionary(metadata, "the metadata"), forPersistentStoreOfType: type == nil ? nil : try string(type, "the store type"),
            at: try string(path, "the path"), options: try plistDictionary(options, "the options"))
        return OG_OK
    }
}
