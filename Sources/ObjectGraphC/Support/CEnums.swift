import ObjectGraph

// The C enums of include/objectgraph.h that the façade reads, written once: each C value is
// the raw value of the Swift enum it names, and a value outside the enum gets one error
// (140002) naming the C type and what it means.

/// The Swift value of a C enum parameter.
func cEnum<T: RawRepresentable>(_ raw: Int32, _ type: T.Type = T.self) throws(ObjectGraphError) -> T where T.RawValue == Int {
    guard let value = T(rawValue: Int(raw)) else { throw .invalidArgument("\(raw) is not \(cEnumName(of: T.self))") }
    return value
}

/// The C enum each Swift enum is read from, as errors name it.
private func cEnumName(of type: Any.Type) -> String {
    switch ObjectIdentifier(type) {
    case ObjectIdentifier(AttributeType.self): "an og_attribute_type (an attribute type)"
    case ObjectIdentifier(FetchResultType.self): "an og_result_type (0 objects, 1 object IDs, 2 dictionaries, 4 count)"
    case ObjectIdentifier(EntityMappingKind.self): "an og_entity_mapping_kind"
    case ObjectIdentifier(DeleteRule.self): "an og_delete_rule (a delete rule)"
    case ObjectIdentifier(ManagedObjectContext.ConcurrencyType.self): "an og_concurrency_type"
    case ObjectIdentifier(ContextNotificationName.self): "an og_notification_kind"
    case ObjectIdentifier(MergePolicyType.self): "an og_merge_policy (0 to 4)"
    case ObjectIdentifier(BatchResultType.self): "an og_batch_result_type (0 status only, 1 object IDs, 2 count)"
    case ObjectIdentifier(HistoryField.self): "an og_history_field (0 author, 1 context name, 2 process ID, 3 bundle ID, 4 store UUID)"
    default: "a value of \(type)"
    }
}
