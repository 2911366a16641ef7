import FoundationEssentials
import ObjectGraph

// og_value_* functions that go with predicate: this handle family's part of that concern.

@_cdecl("og_value_new_array")
public func og_value_new_array(_ items: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(content: .collection(try contents(items, count, "items")))) }
}

@_cdecl("og_value_new_dictionary")
public func og_value_new_dictionary(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<OpaquePointer?>?,
                                    _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ValueBox(content: .dictionary(try variables(keys, values, count))))
    }
}

@_cdecl("og_value_new_object")
public func og_value_new_object(_ o: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in 
        handles.make(ValueBox(content: .object(try handles.get(o, ManagedObject.self)), owner: try handles.owner(of: o)))
    }
}

@_cdecl("og_value_new_object_id")
public func og_value_new_object_id(_ o: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try handles.get(o, ManagedObject.self)
        try x.managedObjectContext?.checkThread()  // og_object_id_uri's rule
        return objectIDValue(x.objectID)
    }
}

@_cdecl("og_value_new_object_id_uri")
public func og_value_new_object_id_uri(_ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let text = try string(uri, "the URI")
        guard let id = ObjectIDReference(uriRepresentation: text) else {
            throw .invalidArgument("'\(text)' is not an object ID URI (x-coredata://<store>/<Entity>/p<key> or x-coredata:///<Entity>/t<id>)")
        }
        return handles.make(ValueBox(content: .object(id)))
    }
}

@_cdecl("og_value_new_entity")
public func og_value_new_entity(_ e: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(content: .object(try handles.get(e, EntityBox.self).entity))) }
}

@_cdecl("og_value_count")
public func og_value_count(_ v: OpaquePointer?) -> Int {
    guard let box = try? handles.get(v, ValueBox.self) else { return 0 }
    switch box.content {
    case .collection(let items): return items.count
    case .dictionary(let d): return d.count
    default: return box.fields?.count ?? 0
    }
}

@_cdecl("og_value_item_at")
public func og_value_item_at(_ v: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(v, ValueBox.self)
        let items: [PredicateValue]
        switch box.content {
        case .collection(let c): items = c
        case .dictionary(let d): items = box.keys.map { d[$0]! }
        default:
            guard let fields = box.fields else { throw .invalidArgument("the value is a \(box.content.kindName), not an array or dictionary") }
            items = fields.map(\.1)
        }
        guard index >= 0, index < items.count else { throw .invalidArgument("index \(index) is out of range (there are \(items.count))") }
        return handles.make(ValueBox(content: items[index], owner: box.owner))
    }
}

@_cdecl("og_value_key_at")
public func og_value_key_at(_ v: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(v, ValueBox.self)
        guard box.content.isDictionary || box.fields != nil else {
            throw ObjectGraphError.invalidArgument("the value is a \(box.content.kindName), not a dictionary")
        }
        guard index >= 0, index < box.keys.count else { throw ObjectGraphError.invalidArgument("index \(index) is out of range (there are \(box.keys.count))") }
        return UnsafePointer(box.cKeys[index].pointer)
    } catch {
        report(error, err)
        return nil
    }
}
