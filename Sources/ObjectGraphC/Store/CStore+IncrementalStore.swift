import FoundationEssentials
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_store_* functions that go with incremental store: this handle family's part of that concern.

@_cdecl("og_store_types_registered")
public func og_store_types_registered(_ err: ErrorOut) -> OpaquePointer? {
    handles.make(ValueBox(content: .collection(StoreTypes.names.map { .scalar(.string($0)) })))
}

@_cdecl("og_store_new_object_id")
public func og_store_new_object_id(_ s: OpaquePointer?, _ e: OpaquePointer?, _ reference: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let store = try incrementalStore(s)
        let entity = try handles.get(e, EntityBox.self).entity
        guard store.model.entity(named: entity.name) === entity else {
            throw .invalidArgument("the entity '\(entity.name)' is not of the store's model")
        }
        let ref: StoreReference
        switch try handles.get(reference, ValueBox.self).scalar() {
        case .string(let text): ref = .string(text)
        case .integer(let n): ref = .integer(n)
        case .data(let d): ref = .data(Array(d))
        case .uuid(let u): ref = .uuid(u)
        case let other:
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "a reference is a string, integer, data or UUID value, not \(other.kindName)")
        }
        return ownedString(store.newObjectID(for: entity, reference: ref).uriRepresentation)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_store_reference_object")
public func og_store_reference_object(_ s: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let store = try incrementalStore(s)
        let uri = try string(id, "the object ID")
        guard let found = store.objectID(forURIRepresentation: uri), let ref = store.referenceObject(for: found) else {
            throw .invalidArgument("'\(uri)' is not an object ID of the incremental store \(store.identifier)")
        }
        switch ref {
        case .string(let text): return handles.make(ValueBox(.string(text)))
        case .integer(let n): return handles.make(ValueBox(.integer(n)))
        case .data(let bytes): return handles.make(ValueBox(.data(Data(bytes))))
        case .uuid(let u): return handles.make(ValueBox(.uuid(u)))
        }
    }
}
