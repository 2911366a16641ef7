import FoundationEssentials
import ObjectGraph

// og_value_* functions that go with fetch results: this handle family's part of that concern.

@_cdecl("og_value_get_object_id")
public func og_value_get_object_id(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out")
        if let id = box.objectID {
            out.pointee = UnsafePointer(id.pointer)
            return OG_OK
        }
        if box.value.isNull, case .scalar = box.content { out.pointee = nil; return OG_NULL }
        throw ObjectGraphError(
            domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
            message: "the value is not an object ID (its kind is \(box.content.kindName))")
    }
}
