import FoundationEssentials
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_coordinator_* functions that go with incremental store: this handle family's part of that concern.

@_cdecl("og_coordinator_object_id_for_uri")
public func og_coordinator_object_id_for_uri(_ c: OpaquePointer?, _ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let text = try string(uri, "the URI")
        return coordinator.managedObjectID(forURIRepresentation: text).map { ownedString($0.uriRepresentation) }
    } catch {
        report(error, err)
        return nil
    }
}
