import FoundationEssentials
import ObjectGraph

// og_model_*: models, their files, their entities.

@_cdecl("og_model_new")
public func og_model_new() -> OpaquePointer? {
    handles.make(ModelBox(ManagedObjectModel()))
}

@_cdecl("og_model_load")
public func og_model_load(_ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ModelBox(try ManagedObjectModel(contentsOf: try string(path, "the path"))))
    }
}

@_cdecl("og_model_load_from_store")
public func og_model_load_from_store(_ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ModelBox(try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: try string(path, "the path"))))
    }
}

@_cdecl("og_model_from_json")
public func og_model_from_json(_ json: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ModelBox(try ManagedObjectModel(jsonData: Data(try string(json, "the JSON text").utf8))))
    }
}

@_cdecl("og_model_to_json")
public func og_model_to_json(_ m: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try handles.get(m, ModelBox.self).model.jsonString()) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_model_save")
public func og_model_save(_ m: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try handles.get(m, ModelBox.self).model.write(toPath: try string(path, "the path"))
        return OG_OK
    }
}

@_cdecl("og_model_is_editable")
public func og_model_is_editable(_ m: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        try required(out, "out").pointee = model.isEditable
        return OG_OK
    }
}

@_cdecl("og_model_entity_count")
public func og_model_entity_count(_ m: OpaquePointer?) -> Int {
    (try? handles.get(m, ModelBox.self))?.model.entities.count ?? 0
}

/// An entity lent by `owner` (the model handle it was reached through).
func lendEntity(_ entity: EntityDescription, from owner: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
    try handles.lend(entity, from: owner) { EntityBox(entity) }
}

@_cdecl("og_model_entity_at")
public func og_model_entity_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let entities = try handles.get(m, ModelBox.self).model.entitiesSortedByName
        guard index >= 0, index < entities.count else {
            throw .invalidArgument("entity index \(index) is out of range (the model has \(entities.count))")
        }
        return try lendEntity(entities[index], from: m)
    }
}

@_cdecl("og_model_entity")
public func og_model_entity(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        let n = try string(name, "the entity name")
        guard let e = model.entity(named: n) else { throw .unknownEntity(n) }
        return try lendEntity(e, from: m)
    }
}

@_cdecl("og_model_add_entity")
public func og_model_add_entity(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        return try lendEntity(try model.addEntity(named: try string(name, "the entity name")), from: m)
    }
}

@_cdecl("og_model_release")
public func og_model_release(_ m: OpaquePointer?) {
    handles.release(m, ModelBox.self)
}
