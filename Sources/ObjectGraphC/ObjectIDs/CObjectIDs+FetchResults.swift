import FoundationEssentials
import ObjectGraph

// og_object_ids_* functions that go with fetch results: this handle family's part of that concern.

@_cdecl("og_object_ids_count")
public func og_object_ids_count(_ ids: OpaquePointer?) -> Int {
    (try? handles.get(ids, ObjectIDsBox.self))?.uris.count ?? 0
}

@_cdecl("og_object_ids_uri_at")
public func og_object_ids_uri_at(_ ids: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(ids, ObjectIDsBox.self)
        guard index >= 0, index < box.uris.count else {
            throw .invalidArgument("object ID index \(index) is out of range (there are \(box.uris.count))")
        }
        return UnsafePointer(box.uris[index].pointer)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_object_ids_release")
public func og_object_ids_release(_ ids: OpaquePointer?) {
    handles.release(ids, ObjectIDsBox.self)
}
