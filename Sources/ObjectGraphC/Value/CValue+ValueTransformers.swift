import FoundationEssentials
import ObjectGraph

// og_value_* functions that go with value transformers: this handle family's part of that concern.

@_cdecl("og_value_new_archived_object")
public func og_value_new_archived_object(_ className: UnsafePointer<CChar>?, _ fields: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let name = try string(className, "the class name")
        guard !name.isEmpty else { throw .invalidArgument("the class name is empty") }
        var values: [String: TransformableValue] = [:]
        if fields != nil {
            let box = try handles.get(fields, ValueBox.self)
            guard case .dictionary(let d) = box.content else { throw .invalidArgument("the fields are a \(box.content.kindName), not a dictionary") }
            for (k, v) in d { values[k] = try ValueBox.transformable(v) }
        }
        return handles.make(ValueBox(.transformable(.object(ArchivedObject(className: name, fields: values)))))
    }
}

@_cdecl("og_value_class_name")
public func og_value_class_name(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let out = try required(out, "out")
        guard let name = box.className else {
            throw ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
                                   message: "the value is a \(box.content.kindName), not an archived object")
        }
        out.pointee = UnsafePointer(name.pointer)
        return OG_OK
    }
}
