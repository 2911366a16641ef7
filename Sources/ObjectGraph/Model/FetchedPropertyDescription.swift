/// A fetched property: a weak, one-way relationship defined by a fetch request and
/// evaluated lazily per object. Its predicate may use `$FETCH_SOURCE` (the owning
/// object) and `$FETCHED_PROPERTY` (this description). It has no slot, inverse or delete rule.
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    public internal(set) var fetchRequest: FetchRequestTemplate

    /// The variables a fetched property's predicate gets without the caller supplying them.
    public static let automaticVariables: Set<String> = ["FETCH_SOURCE", "FETCHED_PROPERTY"]

    public init(name: String, fetchRequest: FetchRequestTemplate) {
        self.fetchRequest = fetchRequest
        super.init(name: name)
    }

    public func setFetchRequest(_ request: FetchRequestTemplate) throws(ObjectGraphError) {
        try checkEditable()
        fetchRequest = request
    }

    func copy() -> FetchedPropertyDescription {
        let c = FetchedPropertyDescription(name: name, fetchRequest: fetchRequest)
        copyCommon(to: c)
        return c
    }
}

/// A computed column for dictionary-result fetches (`upper(name)`, `max(price)`): the
/// expression as its format string and the type of its result. It names a key of the
/// result dictionary and can never be added to an entity.
public final class ExpressionDescription: PropertyDescription, @unchecked Sendable {
    public private(set) var expressionFormat: String
    public private(set) var expressionResultType: AttributeType

    public init(name: String, expressionFormat: String, resultType: AttributeType) {
        self.expressionFormat = expressionFormat
        self.expressionResultType = resultType
        super.init(name: name)
    }

    public func setExpressionFormat(_ format: String) throws(ObjectGraphError) {
        try checkEditable()
        expressionFormat = format
    }

    public func setExpressionResultType(_ type: AttributeType) throws(ObjectGraphError) {
        try checkEditable()
        expressionResultType = type
    }
}
