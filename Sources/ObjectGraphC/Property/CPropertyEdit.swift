import ObjectGraph

// og_property_*, og_attribute_*, og_relationship_*, og_fetched_property_* setters and the
// property details beyond og_property_details: flags, validation rules, bounds, user info,
// versioning data.

/// A caller's optional value: NULL and OG_VALUE_NULL both mean none.
func optionalValue(_ v: OpaquePointer?) throws(ObjectGraphError) -> AttributeValue {
    v == nil ? .null : try handles.get(v, ValueBox.self).scalar()
}

// MARK: Every property

@_cdecl("og_property_set_transient")
public func og_property_set_transient(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try property(p).setTransient(v) }
}

@_cdecl("og_property_is_indexed")
public func og_property_is_indexed(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try property(p).isIndexed }, err)
}

@_cdecl("og_property_set_indexed")
public func og_property_set_indexed(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try property(p).setIndexed(v) }
}

@_cdecl("og_property_is_indexed_by_spotlight")
public func og_property_is_indexed_by_spotlight(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try property(p).isIndexedBySpotlight }, err)
}

@_cdecl("og_property_set_indexed_by_spotlight")
public func og_property_set_indexed_by_spotlight(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try property(p).setIndexedBySpotlight(v) }
}

@_cdecl("og_property_is_stored_in_external_record")
public func og_property_is_stored_in_external_record(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try property(p).isStoredInExternalRecord }, err)
}

@_cdecl("og_property_set_stored_in_external_record")
public func og_property_set_stored_in_external_record(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try property(p).setStoredInExternalRecord(v) }
}

@_cdecl("og_property_set_renaming_identifier")
public func og_property_set_renaming_identifier(_ p: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try x.setRenamingIdentifier(try optionalString(id, "the renaming identifier"))
    }
}

@_cdecl("og_property_version_hash_modifier")
public func og_property_version_hash_modifier(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try property(p).versionHashModifier }
}

@_cdecl("og_property_set_version_hash_modifier")
public func og_property_set_version_hash_modifier(_ p: OpaquePointer?, _ modifier: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try x.setVersionHashModifier(try optionalString(modifier, "the modifier"))
    }
}

@_cdecl("og_property_version_hash")
public func og_property_version_hash(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        let out = try required(out, "out")
        for (i, b) in x.versionHash.enumerated() { out[i] = b }
    }
}

@_cdecl("og_property_user_info_count")
public func og_property_user_info_count(_ p: OpaquePointer?) -> Int { (try? property(p))?.userInfo.count ?? 0 }

@_cdecl("og_property_user_info_key_at")
public func og_property_user_info_key_at(_ p: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try property(p).userInfo.keys.sorted(), index, "user-info key") }
}

@_cdecl("og_property_set_user_info")
public func og_property_set_user_info(_ p: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                      _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try x.setUserInfo(try dictionary(keys, values, count))
    }
}

@_cdecl("og_property_validation_count")
public func og_property_validation_count(_ p: OpaquePointer?) -> Int { (try? property(p))?.validationPredicates.count ?? 0 }

@_cdecl("og_property_validation_predicate_at")
public func og_property_validation_predicate_at(_ p: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try property(p).validationPredicates, index, "validation predicate") }
}

@_cdecl("og_property_validation_warning_at")
public func og_property_validation_warning_at(_ p: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try property(p).validationWarnings, index, "validation warning") }
}

@_cdecl("og_property_set_validation")
public func og_property_set_validation(_ p: OpaquePointer?, _ predicates: UnsafePointer<UnsafePointer<CChar>?>?,
                                       _ warnings: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try property(p)
        try x.setValidationPredicates(try strings(predicates, count, "predicates"), warnings: try strings(warnings, count, "warnings"))
    }
}

// MARK: Attributes

@_cdecl("og_attribute_set_type")
public func og_attribute_set_type(_ p: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setAttributeType(try cEnum(type))
    }
}

@_cdecl("og_attribute_min_value")
public func og_attribute_min_value(_ p: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(try attribute(p).minValue)) }
}

@_cdecl("og_attribute_max_value")
public func og_attribute_max_value(_ p: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ValueBox(try attribute(p).maxValue)) }
}

@_cdecl("og_attribute_set_value_bounds")
public func og_attribute_set_value_bounds(_ p: OpaquePointer?, _ min: OpaquePointer?, _ max: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setValueBounds(min: try optionalValue(min), max: try optionalValue(max))
    }
}

@_cdecl("og_attribute_length_bounds")
public func og_attribute_length_bounds(_ p: OpaquePointer?, _ min: UnsafeMutablePointer<Int64>?, _ max: UnsafeMutablePointer<Int64>?,
                                       _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try required(min, "min").pointee = Int64(a.minLength ?? -1)
        try required(max, "max").pointee = Int64(a.maxLength ?? -1)
    }
}

@_cdecl("og_attribute_set_length_bounds")
public func og_attribute_set_length_bounds(_ p: OpaquePointer?, _ min: Int64, _ max: Int64, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        guard min >= -1, max >= -1 else { throw .invalidArgument("length bounds \(min), \(max): use -1 for no bound") }
        try a.setLengthBounds(min: min < 0 ? nil : Int(min), max: max < 0 ? nil : Int(max))
    }
}

@_cdecl("og_attribute_regular_expression")
public func og_attribute_regular_expression(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try attribute(p).regularExpression }
}

@_cdecl("og_attribute_set_regular_expression")
public func og_attribute_set_regular_expression(_ p: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setRegularExpression(try optionalString(pattern, "the pattern"))
    }
}

@_cdecl("og_attribute_set_value_transformer_name")
public func og_attribute_set_value_transformer_name(_ p: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setValueTransformerName(try optionalString(name, "the transformer name"))
    }
}

@_cdecl("og_attribute_value_class_name")
public func og_attribute_value_class_name(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try attribute(p).attributeValueClassName }
}

@_cdecl("og_attribute_set_value_class_name")
public func og_attribute_set_value_class_name(_ p: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setAttributeValueClassName(try optionalString(name, "the class name"))
    }
}

@_cdecl("og_attribute_derivation_expression")
public func og_attribute_derivation_expression(_ p: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try attribute(p).derivationExpression }
}

@_cdecl("og_attribute_set_derivation_expression")
public func og_attribute_set_derivation_expression(_ p: OpaquePointer?, _ expression: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let a = try attribute(p)
        try a.setDerivationExpression(try optionalString(expression, "the expression"))
    }
}

@_cdecl("og_attribute_allows_external_storage")
public func og_attribute_allows_external_storage(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try attribute(p).allowsExternalBinaryDataStorage }, err)
}

@_cdecl("og_attribute_set_allows_external_storage")
public func og_attribute_set_allows_external_storage(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try attribute(p).setAllowsExternalBinaryDataStorage(v) }
}

@_cdecl("og_attribute_preserves_value_in_history")
public func og_attribute_preserves_value_in_history(_ p: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    flag(out, { () throws(ObjectGraphError) in try attribute(p).preservesValueInHistoryOnDeletion }, err)
}

@_cdecl("og_attribute_set_preserves_value_in_history")
public func og_attribute_set_preserves_value_in_history(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try attribute(p).setPreservesValueInHistoryOnDeletion(v) }
}

// MARK: Relationships

@_cdecl("og_relationship_set_counts")
public func og_relationship_set_counts(_ p: OpaquePointer?, _ min: Int64, _ max: Int64, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        guard let lo = Int(exactly: min), let hi = Int(exactly: max) else { throw .invalidArgument("counts out of range") }
        try r.setCounts(min: lo, max: hi)
    }
}

@_cdecl("og_relationship_set_ordered")
public func og_relationship_set_ordered(_ p: OpaquePointer?, _ v: Bool, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in try relationship(p).setOrdered(v) }
}

@_cdecl("og_relationship_set_destination")
public func og_relationship_set_destination(_ p: OpaquePointer?, _ d: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let r = try relationship(p)
        let destination = try handles.get(d, EntityBox.self).entity
        guard destination.model === r.entity?.model else {
            throw .invalidModel("relationship '\(r.qualifiedName)': destination '\(destination.name)' belongs to another model")
        }
        try r.setDestination(destination)
    }
}

// MARK: Fetched properties

@_cdecl("og_fetched_property_set_request")
public func og_fetched_property_set_request(_ p: OpaquePointer?, _ entityName: UnsafePointer<CChar>?, _ predicate: UnsafePointer<CChar>?,
                                            _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let f = try propertyKind(p, FetchedPropertyDescription.self, "a fetched property")
        var request = f.fetchRequest
        request.entityName = try string(entityName, "the entity name")
        request.predicateFormat = try optionalString(predicate, "the predicate")
        try f.setFetchRequest(request)
    }
}
