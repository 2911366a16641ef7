/// Errors about model files and model definitions name where the problem is: the file,
/// the entity and the property, in the message and in the user info.
struct ModelLocation {
    var file: String?
    var entity: String?
    var property: String?

    func with(entity: String?, property: String? = nil) -> ModelLocation {
        ModelLocation(file: file, entity: entity, property: property)
    }

    var prefix: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if let entity { parts.append("entity '\(entity)'") }
        if let property { parts.append("property '\(property)'") }
        return parts.isEmpty ? "" : parts.joined(separator: ", ") + ": "
    }

    func error(_ message: String) -> ObjectGraphError {
        var e = ObjectGraphError.invalidModel(prefix + message)
        if let file { e.userInfo.append((ErrorUserInfoKey.filePath, file)) }
        if let entity { e.userInfo.append((ErrorUserInfoKey.entity, entity)) }
        if let property { e.userInfo.append((ErrorUserInfoKey.property, property)) }
        return e
    }

    /// An error from a lower layer, re-issued with this location unless it already names one.
    func wrap(_ error: ObjectGraphError) -> ObjectGraphError {
        guard error.userInfoValue(forKey: ErrorUserInfoKey.filePath) == nil, file != nil || entity != nil else { return error }
        // Whatever went wrong inside a model file makes it an invalid model.
        var e = self.error(error.message)
        for item in error.userInfo where e.userInfoValue(forKey: item.key) == nil { e.userInfo.append(item) }
        return e
    }
}
