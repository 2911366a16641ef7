import ObjectGraph

// The engine object behind each handle family, written once. Each accessor fails with the
// handle table's error for a NULL, released or mistyped handle (OG_ERROR_INVALID_HANDLE).

func model(_ m: OpaquePointer?) throws(ObjectGraphError) -> ManagedObjectModel { try handles.get(m, ModelBox.self).model }

func entity(_ e: OpaquePointer?) throws(ObjectGraphError) -> EntityDescription { try handles.get(e, EntityBox.self).entity }

func property(_ p: OpaquePointer?) throws(ObjectGraphError) -> PropertyDescription { try handles.get(p, PropertyBox.self).property }

/// The property behind `p` as the kind `T`, or 134010-style misuse naming what was expected.
func propertyKind<T>(_ p: OpaquePointer?, _ type: T.Type, _ expected: String) throws(ObjectGraphError) -> T {
    let x = try property(p)
    guard let t = x as? T else { throw .wrongKind(key: x.name, entity: x.entity?.name ?? "?", expected: expected) }
    return t
}

func attribute(_ p: OpaquePointer?) throws(ObjectGraphError) -> AttributeDescription { try propertyKind(p, AttributeDescription.self, "an attribute") }

func relationship(_ p: OpaquePointer?) throws(ObjectGraphError) -> RelationshipDescription {
    try propertyKind(p, RelationshipDescription.self, "a relationship")
}

/// The managed object behind an og_object handle (the table caches the last lookup per thread).
func object(_ o: OpaquePointer?) throws(ObjectGraphError) -> ManagedObject { try handles.object(o) }

func contextBox(_ c: OpaquePointer?) throws(ObjectGraphError) -> ContextBox { try handles.get(c, ContextBox.self) }

func context(_ c: OpaquePointer?) throws(ObjectGraphError) -> ManagedObjectContext { try contextBox(c).context }
