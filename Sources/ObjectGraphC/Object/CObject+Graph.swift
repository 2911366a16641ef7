import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_object_* functions that go with graph: this handle family's part of that concern.

@_cdecl("og_object_is_fault")
public func og_object_is_fault(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        try x.managedObjectContext?.checkThread()
        try required(out, "out").pointee = x.isFault
        return OG_OK
    }
}

@_cdecl("og_object_faulting_state")
public func og_object_faulting_state(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        try x.managedObjectContext?.checkThread()
        try required(out, "out").pointee = Int64(x.faultingState)
        return OG_OK
    }
}

@_cdecl("og_object_has_fault_for_relationship")
public func og_object_has_fault_for_relationship(_ o: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Bool>?,
                                                 _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        guard let context = x.managedObjectContext else {
            throw .objectInaccessible("\(x) is no longer registered with a context")
        }
        try context.checkThread()
        let k = try string(key, "the key")
        let out = try required(out, "out")
        out.pointee = try x.hasFault(forRelationshipNamed: k)
        return OG_OK
    }
}

@_cdecl("og_object_get_value_for_key_path")
public func og_object_get_value_for_key_path(_ o: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                                             _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let p = try string(path, "the key path")
        let out = try required(out, "out")
        let v = try x.value(forKeyPath: p)
        out.pointee = handles.make(ValueBox(content: v, owner: try handles.owner(of: o)))
        return OG_OK
    }
}

@_cdecl("og_object_get_primitive_value")
public func og_object_get_primitive_value(_ o: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                                          _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try string(key, "the key")
        let out = try required(out, "out")
        out.pointee = handles.make(ValueBox(try x.primitiveValue(forKey: k)))
        return OG_OK
    }
}

@_cdecl("og_object_set_primitive_value")
public func og_object_set_primitive_value(_ o: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try string(key, "the key")
        try x.setPrimitiveValue(try handles.get(v, ValueBox.self).scalar(), forKey: k)
        return OG_OK
    }
}

@_cdecl("og_object_changed_values")
public func og_object_changed_values(_ o: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let out = try required(out, "out")
        let values = try x.changedValues()
        out.pointee = handles.make(ValueBox(content: .dictionary(values), owner: try handles.owner(of: o)))
        return OG_OK
    }
}

@_cdecl("og_object_committed_values")
public func og_object_committed_values(_ o: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
                                       _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let out = try required(out, "out")
        var names: [String]? = nil
        if let keys {
            guard count >= 0 else { throw .invalidArgument("the count is negative") }
            names = []
            for i in 0..<count { names!.append(try string(keys[i], "key \(i)")) }
        }
        let values = try x.committedValues(forKeys: names)
        out.pointee = handles.make(ValueBox(content: .dictionary(values), owner: try handles.owner(of: o)))
        return OG_OK
    }
}

@_cdecl("og_object_validate_value")
public func og_object_validate_value(_ o: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try object(o)
        let k = try string(key, "the key")
        _ = try x.validate(try handles.get(v, ValueBox.self).content, forKey: k)
        return OG_OK
    }
}
