import FoundationEssentials
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_*_store_type_* functions that go with incremental store: this handle family's part of that concern.

@_cdecl("og_incremental_store_type_register")
public func og_incremental_store_type_register(_ type: UnsafePointer<CChar>?, _ callbacks: UnsafeRawPointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let name = try string(type, "the store type")
        guard let callbacks else { throw .invalidArgument("the callback table is NULL") }
        let version = callbacks.load(as: Int32.self)
        guard version == 1 else {
            throw .invalidArgument("the callback table of '\(name)' has version \(version); this library knows version 1 (OG_INCREMENTAL_STORE_CALLBACKS_VERSION)")
        }
        let c = callbacks.load(as: CIncrementalStoreCallbacks.self)
        guard c.create != nil, c.loadMetadata != nil, c.executeFetch != nil, c.executeSave != nil, c.newValues != nil else {
            throw .invalidArgument("the callback table of '\(name)' needs create, load_metadata, execute_fetch, execute_save and new_values")
        }
        guard !name.isEmpty, !StoreTypes.isBuiltIn(name), StoreTypes.named(name) == nil else {
            throw .invalidArgument("'\(name)' cannot be registered: it is empty, built in, or registered already")
        }
        let table = IncrementalCallbackTable(name: name, callbacks: c)
        try StoreTypes.register(IncrementalStoreType(name: name) { (setup) throws(ObjectGraphError) in
            var reported: OpaquePointer? = nil
            let state = setup.path.withCString { path in
                if let configuration = setup.configurationName {
                    return configuration.withCString { c.create!(c.userdata, path, $0, &reported) }
                }
                return c.create!(c.userdata, path, nil, &reported)
            }
            if reported != nil { throw table.failure(reported, "create") }
            let store = CallbackIncrementalStore(setup: setup, type: name)
            store.table = table
            store.state = state
            return store
        }, replacing: false)
        return OG_OK
    }
}
