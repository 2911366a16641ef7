import FoundationEssentials
import ObjectGraph

// og_error_constraint_conflict_*: the uniqueness-constraint conflicts of a save that
// failed with 133021 (NSConstraintConflict).

private func constraintConflict(_ e: OpaquePointer?, _ index: Int) throws(ObjectGraphError) -> ConstraintConflict {
    let all = try handles.get(e, ErrorBox.self).error.constraintConflicts
    guard index >= 0, index < all.count else { throw .invalidArgument("constraint conflict \(index) is out of range (there are \(all.count))") }
    return all[index]
}

/// A conflict's object, lent by the context whose save failed.
private func lend(_ o: ManagedObject, _ c: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
    let x = try context(c)
    try x.checkThread()
    guard o.managedObjectContext === x else { throw .invalidArgument("the conflict's object belongs to another context than the one given") }
    return try lendObject(o, from: c!)
}

@_cdecl("og_error_constraint_conflict_count")
public func og_error_constraint_conflict_count(_ e: OpaquePointer?) -> Int {
    (try? handles.get(e, ErrorBox.self))?.error.constraintConflicts.count ?? 0
}

@_cdecl("og_error_constraint_conflict_property_count")
public func og_error_constraint_conflict_property_count(_ e: OpaquePointer?, _ index: Int) -> Int {
    (try? constraintConflict(e, index))?.constraint.count ?? 0
}

@_cdecl("og_error_constraint_conflict_property_at")
public func og_error_constraint_conflict_property_at(_ e: OpaquePointer?, _ index: Int, _ property: Int) -> UnsafePointer<CChar>? {
    guard let box = try? handles.get(e, ErrorBox.self), index >= 0, index < box.constraintNames.count else { return nil }
    let names = box.constraintNames[index]
    guard property >= 0, property < names.count else { return nil }
    return UnsafePointer(names[property].pointer)
}

@_cdecl("og_error_constraint_conflict_value")
public func og_error_constraint_conflict_value(_ e: OpaquePointer?, _ index: Int, _ property: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let c = try constraintConflict(e, index)
        let name = try string(property, "the property")
        guard let value = c.constraintValues[name] else {
            throw .unknownKey(name, entity: c.conflictingObjects.first?.entity.name ?? "")
        }
        switch value {
        case .attribute(let a): return handles.make(ValueBox(a))
        case .object(nil): return handles.make(ValueBox(.null))
        case .object(let id?): return objectIDValue(id)
        }
    }
}

@_cdecl("og_error_constraint_conflict_object_count")
public func og_error_constraint_conflict_object_count(_ e: OpaquePointer?, _ index: Int) -> Int {
    (try? constraintConflict(e, index))?.conflictingObjects.count ?? 0
}

@_cdecl("og_error_constraint_conflict_object")
public func og_error_constraint_conflict_object(_ e: OpaquePointer?, _ index: Int, _ objectIndex: Int, _ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let objects = try constraintConflict(e, index).conflictingObjects
        guard objectIndex >= 0, objectIndex < objects.count else {
            throw .invalidArgument("object \(objectIndex) of constraint conflict \(index) is out of range (there are \(objects.count))")
        }
        return try lend(objects[objectIndex], c)
    }
}

@_cdecl("og_error_constraint_conflict_database_object")
public func og_error_constraint_conflict_database_object(_ e: OpaquePointer?, _ index: Int, _ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    var result: OpaquePointer?
    let failed = status(err) { () throws(ObjectGraphError) in
        if let o = try constraintConflict(e, index).databaseObject { result = try lend(o, c) }
        return OG_OK
    }
    return failed == OG_OK ? result : nil
}
