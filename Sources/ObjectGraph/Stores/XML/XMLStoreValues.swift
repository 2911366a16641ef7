import FoundationEssentials

/// Attribute values as an XML store spells them: the `type` names Apple's Core Data writes
/// and the text of each kind of value.
enum XMLStoreValues {
    /// The `type` of an `<attribute>` for an attribute of `type`; nil for kinds that are not
    /// stored (object IDs, undefined).
    static func typeName(_ type: AttributeType) -> String? {
        switch type {
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binaryData: "binary"
        case .transformable: "transformable"
        case .uuid: "uuid"
        case .uri: "uri"
        case .undefined, .objectID: nil
        }
    }

    /// The text of a stored value, or nil for nil (the element is then left out, as Apple does).
    /// Strings XML cannot hold are refused by the caller before this.
    static func text(_ value: AttributeValue, type: AttributeType) -> String? {
        switch value {
        case .null: nil
        case .integer(let i): type == .boolean ? (i != 0 ? "1" : "0") : String(i)
        case .double(let d): type == .date ? XMLStoreText.date(Date(timeIntervalSinceReferenceDate: d)) : XMLStoreText.number(d)
        case .boolean(let b): b ? "1" : "0"
        case .string(let s): s
        case .date(let d): XMLStoreText.date(d)
        case .data(let d): d.base64EncodedString()
        case .decimal(let d): d.description
        case .uuid(let u): u.uuidString
        case .uri(let u): u
        // A save hands the store bytes; this keeps any other value as its archive.
        case .transformable(let t): SecureArchive.encode(t).base64EncodedString()
        }
    }

    /// The value `text` holds for `attribute`, read from an element whose `type` is `written`;
    /// nil when it does not hold one. Integer and floating-point kinds read each other's
    /// types, as a model's attribute may have been widened.
    static func value(_ text: String, written: String, attribute: AttributeDescription) -> AttributeValue? {
        let compact = text.filter { !$0.isWhitespace }
        let integers: Set<String> = ["int16", "int32", "int64"]
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64:
            guard integers.contains(written) || written == "bool", let i = Int64(compact) else { return nil }
            return .integer(i)
        case .double, .float:
            guard written == "double" || written == "float" || integers.contains(written), let d = Double(compact) else { return nil }
            return .double(d)
        case .boolean:
            switch compact.lowercased() {
            case "1", "yes", "true": return .boolean(true)
            case "0", "no", "false": return .boolean(false)
            default: return nil
            }
        case .string:
            return written == "string" ? .string(text) : nil
        case .date:
            guard written == "date", let d = Double(compact) else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: d))
        case .decimal:
            guard written == "decimal" || integers.contains(written) || written == "double" || written == "float" else { return nil }
            return ValueText.decimal(compact).map { .decimal($0) }
        case .binaryData, .transformable:
            guard written == "binary" || written == "transformable", let d = Data(base64Encoded: compact) else { return nil }
            return .data(d)
        case .uuid:
            guard written == "uuid" || written == "string" else { return nil }
            return UUID(uuidString: compact).map { .uuid($0) }
        case .uri:
            guard written == "uri" || written == "string", ValueText.isURI(compact) else { return nil }
            return .uri(compact)
        case .undefined, .objectID:
            return nil
        }
    }
}
