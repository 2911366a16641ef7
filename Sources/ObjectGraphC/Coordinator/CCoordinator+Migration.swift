import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_coordinator_* functions that go with migration: this handle family's part of that concern.

@_cdecl("og_coordinator_new_with_versions")
public func og_coordinator_new_with_versions(_ m: OpaquePointer?, _ models: UnsafePointer<OpaquePointer?>?, _ modelCount: Int,
                                             _ mappings: UnsafePointer<OpaquePointer?>?, _ mappingCount: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        let versions = try boxes(models, modelCount, ModelBox.self, "models").map(\.model)
        let maps = try boxes(mappings, mappingCount, MappingModelBox.self, "mappings").map(\.mapping)
        return handles.make(CoordinatorBox(try PersistentStoreCoordinator(model: model, models: versions, mappings: maps)))
    }
}
