/// Fetch requests made from a model's templates (`fetchRequestFromTemplateWithName:
/// substitutionVariables:`): the template's predicate is parsed, and every free
/// `$variable` in it is replaced by its value; a missing one is error 140022 naming it.
extension FetchRequest {
    public convenience init(
        template: FetchRequestTemplate, substitutionVariables: [String: PredicateValue] = [:], templateName: String = "the template"
    ) throws(ObjectGraphError) {
        var predicate: ObjectPredicate? = nil
        if let format = template.predicateFormat {
            do {
                predicate = try ObjectPredicate(format: format).substituting(substitutionVariables)
            } catch {
                var e = error
                e.message = "fetch request template '\(templateName)': \(e.message)"
                throw e
            }
        }
        self.init(entityName: template.entityName, predicate: predicate, sortKeys: template.sortKeys)
        fetchLimit = template.fetchLimit
        fetchOffset = template.fetchOffset
        includesSubentities = template.includesSubentities
        fetchBatchSize = template.fetchBatchSize
        returnsDistinctResults = template.returnsDistinctResults
        returnsObjectsAsFaults = template.returnsObjectsAsFaults
        includesPropertyValues = template.includesPropertyValues
        resultType = FetchResultType(rawValue: template.resultType) ?? .managedObject
    }
}

extension ManagedObjectModel {
    /// A new fetch request from template `name`, with its variables substituted. Every
    /// variable must be supplied; pass `.null` to test against nil.
    public func fetchRequest(fromTemplateNamed name: String, substitutionVariables: [String: PredicateValue] = [:]) throws(ObjectGraphError)
        -> FetchRequest
    {
        guard let template = fetchRequestTemplate(named: name) else {
            throw .invalidArgument("the model has no fetch request template named '\(name)'")
        }
        return try FetchRequest(template: template, substitutionVariables: substitutionVariables, templateName: name)
    }
}
