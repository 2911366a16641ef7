import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_value_* functions that go with graph: this handle family's part of that concern.

@_cdecl("og_value_get_object")
public func og_value_get_object(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out")
        if box.content.isNull { out.pointee = nil; return OG_NULL }
        guard case .object(let reading) = box.content, let o = reading as? ManagedObject else {
            throw ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
                                   message: "the value is a \(box.content.kindName), not a managed object")
        }
        guard let owner = box.owner else { throw .invalidArgument("the value's object was not lent by a context handle") }
        out.pointee = try lendObject(o, from: owner)
        return OG_OK
    }
}
