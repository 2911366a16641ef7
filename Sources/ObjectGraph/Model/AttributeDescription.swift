/// An attribute: a typed value with an optional default, validation bounds, and for
/// transformable attributes the name of the value transformer.
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    public private(set) var attributeType: AttributeType
    public private(set) var defaultValue: AttributeValue = .null
    /// The class name Xcode records for a value (`customClassName`, `attributeValueClassName`).
    public private(set) var attributeValueClassName: String?
    /// For transformable attributes; nil means the default archiving transformer.
    public private(set) var valueTransformerName: String?
    public private(set) var allowsExternalBinaryDataStorage = false
    /// Whether persistent history keeps the value after the object is deleted (Xcode's
    /// `preserveAfterDeletion`); part of the version hash.
    public private(set) var preservesValueInHistoryOnDeletion = false
    /// Bounds for numbers and dates (values of the attribute's type); `.null` when unset.
    public private(set) var minValue: AttributeValue = .null
    public private(set) var maxValue: AttributeValue = .null
    /// Bounds on the length of strings (characters) and binary data (bytes).
    public private(set) var minLength: Int?
    public private(set) var maxLength: Int?
    /// A regular expression every string value must match.
    public private(set) var regularExpression: String?
    /// Derived attributes (computed by the store from an expression), kept as data.
    public private(set) var derivationExpression: String?

    public init(name: String, type: AttributeType) {
        self.attributeType = type
        super.init(name: name)
    }

    public func setAttributeType(_ type: AttributeType) throws(ObjectGraphError) {
        try checkEditable()
        attributeType = type
        defaultValue = .null
        minValue = .null
        maxValue = .null
    }

    private func coerce(_ value: AttributeValue) throws(ObjectGraphError) -> AttributeValue {
        try value.coerced(to: attributeType, key: name, entity: entity?.name ?? "?")
    }

    /// Sets the value new objects start with; it must suit the attribute's type. Undefined
    /// and object-ID attributes have none (neither model file format can spell one).
    public func setDefaultValue(_ value: AttributeValue) throws(ObjectGraphError) {
        try checkEditable()
        guard value.isNull || (attributeType != .undefined && attributeType != .objectID) else {
            throw .invalidModel("attribute '\(qualifiedName)': \(attributeType.name) attributes have no default value")
        }
        defaultValue = try coerce(value)
    }

    public func setAttributeValueClassName(_ name: String?) throws(ObjectGraphError) {
        try checkEditable()
        attributeValueClassName = name
    }

    public func setValueTransformerName(_ name: String?) throws(ObjectGraphError) {
        try checkEditable()
        valueTransformerName = name
    }

    public func setAllowsExternalBinaryDataStorage(_ flag: Bool) throws(ObjectGraphError) {
        try checkEditable()
        allowsExternalBinaryDataStorage = flag
    }

    public func setPreservesValueInHistoryOnDeletion(_ flag: Bool) throws(ObjectGraphError) {
        try checkEditable()
        preservesValueInHistoryOnDeletion = flag
    }

    /// Sets the smallest and largest value allowed (`.null` for no bound); numbers and dates only.
    public func setValueBounds(min: AttributeValue, max: AttributeValue) throws(ObjectGraphError) {
        try checkEditable()
        guard attributeType.isNumeric || attributeType == .date || (min.isNull && max.isNull) else {
            throw .invalidModel("attribute '\(qualifiedName)': only number and date attributes have a minimum and maximum value")
        }
        minValue = try coerce(min)
        maxValue = try coerce(max)
    }

    /// Sets the shortest and longest length allowed (nil for no bound); strings and binary data only.
    public func setLengthBounds(min: Int?, max: Int?) throws(ObjectGraphError) {
        try checkEditable()
        guard attributeType == .string || attributeType == .binaryData || (min == nil && max == nil) else {
            throw .invalidModel("attribute '\(qualifiedName)': only string and binary attributes have a minimum and maximum length")
        }
        if let m = min, m < 0 { throw .invalidModel("attribute '\(qualifiedName)': minimum length \(m) is negative") }
        if let m = max, m < 0 { throw .invalidModel("attribute '\(qualifiedName)': maximum length \(m) is negative") }
        minLength = min
        maxLength = max
    }

    public func setRegularExpression(_ pattern: String?) throws(ObjectGraphError) {
        try checkEditable()
        regularExpression = pattern
    }

    public func setDerivationExpression(_ expression: String?) throws(ObjectGraphError) {
        try checkEditable()
        derivationExpression = expression
    }

    func copy() -> AttributeDescription {
        let c = AttributeDescription(name: name, type: attributeType)
        copyCommon(to: c)
        c.defaultValue = defaultValue
        c.attributeValueClassName = attributeValueClassName
        c.valueTransformerName = valueTransformerName
        c.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        c.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        c.minValue = minValue
        c.maxValue = maxValue
        c.minLength = minLength
        c.maxLength = maxLength
        c.regularExpression = regularExpression
        c.derivationExpression = derivationExpression
        return c
    }
}

extension AttributeType {
    var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }
}
