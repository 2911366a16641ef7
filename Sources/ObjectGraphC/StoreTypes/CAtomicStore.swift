import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_register_atomic_store_type, og_unregister_store_type: atomic stores implemented in C.

/// The layout of `og_atomic_store_callbacks` (include/objectgraph.h).
struct CAtomicStoreCallbacks: CallbackTableLayout {
    var userdata: UnsafeMutableRawPointer?
    var load: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<Int>?) -> Int32)?
    var save: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) -> Int32)?
    var release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
}

/// A registered atomic store type's table: released when the type is unregistered and
/// no store of it is open.
typealias CallbackTable = RegisteredCallbacks<CAtomicStoreCallbacks>

/// An atomic store whose document (the Binary store format) the C callbacks keep. The
/// library does not know where they keep it, so it cannot check for another writer's
/// save as the Binary store does: the save callback checks, and returns 2 for a conflict.
final class CallbackAtomicStore: BinaryStore, @unchecked Sendable {
    let table: CallbackTable

    init(table: CallbackTable, setup: StoreSetup) throws(ObjectGraphError) {
        self.table = table
        try super.init(type: table.name, setup: setup)
    }

    override func hasStoredData() -> Bool { true }

    override func readDocument() throws(ObjectGraphError) -> [UInt8]? { try Self.load(table, path: path) }

    /// The document the load callback gives for `path`; nil when there is none yet.
    static func load(_ table: CallbackTable, path: String) throws(ObjectGraphError) -> [UInt8]? {
        guard let load = table.callbacks.load else { return nil }
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        let rc = path.withCString { load(table.callbacks.userdata, $0, &bytes, &length) }
        defer { free(bytes) }
        switch rc {
        case 0: return bytes.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        case 1: return nil
        default:
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "the load callback of store type '\(table.name)' failed (\(rc)) for '\(path)'")
        }
    }

    override func writeDocument(_ bytes: [UInt8]) throws(ObjectGraphError) {
        guard let save = table.callbacks.save else {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "store type '\(table.name)' has no save callback")
        }
        let rc = path.withCString { p in bytes.withUnsafeBufferPointer { save(table.callbacks.userdata, p, $0.baseAddress, $0.count) } }
        if rc == 2 {
            throw ObjectGraphError(
                code: ErrorCode.storeSaveConflicts,
                message: "the save callback of store type '\(table.name)' refused to save '\(path)': another writer saved it since this store read it")
        }
        guard rc == 0 else {
            throw ObjectGraphError(code: ErrorCode.storeSave, message: "the save callback of store type '\(table.name)' failed (\(rc)) for '\(path)'")
        }
    }
}

@_cdecl("og_register_atomic_store_type")
public func og_register_atomic_store_type(_ type: UnsafePointer<CChar>?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let name = try string(type, "the store type")
        guard let callbacks else { throw .invalidArgument("the callback table is NULL") }
        // Refused before the table exists: its release callback runs only for a table taken.
        guard !name.isEmpty, !StoreTypes.isBuiltIn(name) else {
            throw .invalidArgument("'\(name)' cannot be registered: it is empty or a built-in store type")
        }
        let table = CallbackTable(name: name, callbacks: callbacks.load(as: CAtomicStoreCallbacks.self))
        guard table.callbacks.load != nil, table.callbacks.save != nil else {
            throw .invalidArgument("the callback table of '\(name)' needs both load and save")
        }
        try StoreTypes.register(CallbackAtomicStoreType(table: table))
        return OG_OK
    }
}

/// A store type whose documents the C callbacks keep: its stores are `CallbackAtomicStore`s,
/// and a document's metadata is read through the load callback, without adding the store.
final class CallbackAtomicStoreType: PersistentStoreType, @unchecked Sendable {
    let table: CallbackTable
    var name: String { table.name }
    var capabilities: StoreTypeCapabilities { [] }

    init(table: CallbackTable) { self.table = table }

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore { try CallbackAtomicStore(table: table, setup: setup) }

    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        guard let document = try CallbackAtomicStore.load(table, path: path) else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no \(name) store at '\(path)'", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        var metadata = try BinaryStore.metadata(document: document, path: path)
        metadata[StoreMetadataKey.storeType] = metadata[StoreMetadataKey.storeType] ?? .string(name)
        return metadata
    }
}

@_cdecl("og_unregister_store_type")
public func og_unregister_store_type(_ type: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let name = try string(type, "the store type")
        try StoreTypes.unregister(name)
        return OG_OK
    }
}

// The og_<noun>_<verb> names; og_register_atomic_store_type and og_unregister_store_type stay one release.

@_cdecl("og_atomic_store_type_register")
public func og_atomic_store_type_register(_ type: UnsafePointer<CChar>?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    og_register_atomic_store_type(type, callbacks, err)
}

@_cdecl("og_store_type_unregister")
public func og_store_type_unregister(_ type: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    og_unregister_store_type(type, err)
}
