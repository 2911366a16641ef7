import ObjectGraph

// og_entity_* setters and the entity details beyond og_entity_details: subentities, class
// name, user info, renaming identifier, version hash modifier, uniqueness constraints,
// relationships with a destination, fetched properties.


/// Runs a setter that returns nothing.
func setter(_ err: ErrorOut, _ body: () throws(ObjectGraphError) -> Void) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try body()
        return OG_OK
    }
}


@_cdecl("og_entity_set_subentities")
public func og_entity_set_subentities(_ e: OpaquePointer?, _ subs: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.setSubentities(try boxes(subs, count, EntityBox.self, "subentities").map(\.entity))
    }
}

@_cdecl("og_entity_set_class_name")
public func og_entity_set_class_name(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.setManagedObjectClassName(try optionalString(name, "the class name"))
    }
}

@_cdecl("og_entity_set_renaming_identifier")
public func og_entity_set_renaming_identifier(_ e: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.setRenamingIdentifier(try optionalString(id, "the renaming identifier"))
    }
}

@_cdecl("og_entity_version_hash_modifier")
public func og_entity_version_hash_modifier(_ e: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try entity(e).versionHashModifier }
}

@_cdecl("og_entity_set_version_hash_modifier")
public func og_entity_set_version_hash_modifier(_ e: OpaquePointer?, _ modifier: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.setVersionHashModifier(try optionalString(modifier, "the modifier"))
    }
}

@_cdecl("og_entity_user_info_count")
public func og_entity_user_info_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.userInfo.count ?? 0 }

@_cdecl("og_entity_user_info_key_at")
public func og_entity_user_info_key_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try entity(e).userInfo.keys.sorted(), index, "user-info key") }
}

@_cdecl("og_entity_set_user_info")
public func og_entity_set_user_info(_ e: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                    _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.setUserInfo(try dictionary(keys, values, count))
    }
}

@_cdecl("og_entity_uniqueness_constraint_count")
public func og_entity_uniqueness_constraint_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.uniquenessConstraints.count ?? 0 }

@_cdecl("og_entity_uniqueness_constraint_at")
public func og_entity_uniqueness_constraint_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in
        try item(try entity(e).uniquenessConstraints.map { $0.joined(separator: ",") }, index, "uniqueness constraint")
    }
}

@_cdecl("og_entity_set_uniqueness_constraints")
public func og_entity_set_uniqueness_constraints(_ e: OpaquePointer?, _ constraints: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
                                                 _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let lists = try strings(constraints, count, "constraints").map { c in
            c.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
        }
        for (i, list) in lists.enumerated() where list.isEmpty { throw .invalidArgument("constraint \(i) names no property") }
        try x.setUniquenessConstraints(lists)
    }
}

@_cdecl("og_entity_relationship_with_destination_count")
public func og_entity_relationship_with_destination_count(_ e: OpaquePointer?, _ d: OpaquePointer?) -> Int {
    guard let x = try? entity(e), let y = try? entity(d) else { return 0 }
    return x.relationships(withDestination: y).count
}

@_cdecl("og_entity_relationship_with_destination_at")
public func og_entity_relationship_with_destination_at(_ e: OpaquePointer?, _ d: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let list = try entity(e).relationships(withDestination: try entity(d))
        guard index >= 0, index < list.count else {
            throw .invalidArgument("relationship index \(index) is out of range (there are \(list.count))")
        }
        return try lendProperty(list[index], near: e)
    }
}

@_cdecl("og_entity_fetched_property_count")
public func og_entity_fetched_property_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.fetchedProperties.count ?? 0 }

@_cdecl("og_entity_fetched_property_at")
public func og_entity_fetched_property_at(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let list = try entity(e).fetchedProperties
        guard index >= 0, index < list.count else {
            throw .invalidArgument("fetched property index \(index) is out of range (there are \(list.count))")
        }
        return try lendProperty(list[index], near: e)
    }
}

@_cdecl("og_entity_add_fetched_property")
public func og_entity_add_fetched_property(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ entityName: UnsafePointer<CChar>?,
                                           _ predicate: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        let n = try string(name, "the property name")
        let request = FetchRequestTemplate(entityName: try string(entityName, "the entity name"),
                                           predicateFormat: try optionalString(predicate, "the predicate"))
        return try lendProperty(try x.addFetchedProperty(named: n, fetchRequest: request), near: e)
    }
}

@_cdecl("og_entity_remove_property")
public func og_entity_remove_property(_ e: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        try x.removeProperty(named: try string(name, "the property name"))
    }
}
