/// Where a problem in a mapping model file is: the file, the entity mapping and the
/// property mapping. Errors name them in the message and in the user info, as model
/// files do (ModelLocation), so a malformed file is found without guessing.
struct MappingLocation {
    var file: String
    var entityMapping: String?
    var propertyMapping: String?

    func with(entityMapping: String?, propertyMapping: String? = nil) -> MappingLocation {
        MappingLocation(file: file, entityMapping: entityMapping, propertyMapping: propertyMapping)
    }

    var prefix: String {
        var parts = [file]
        if let entityMapping { parts.append("entity mapping '\(entityMapping)'") }
        if let propertyMapping { parts.append("property mapping '\(propertyMapping)'") }
        return parts.joined(separator: ", ") + ": "
    }

    /// A malformed file: error 140009, like a malformed model file.
    func error(_ message: String) -> ObjectGraphError {
        var e = ObjectGraphError.invalidModel(prefix + message)
        e.userInfo.append((ErrorUserInfoKey.filePath, file))
        if let entityMapping { e.userInfo.append((ErrorUserInfoKey.entityMapping, entityMapping)) }
        if let propertyMapping { e.userInfo.append((ErrorUserInfoKey.property, propertyMapping)) }
        return e
    }
}

extension ErrorUserInfoKey {
    /// The name of the entity mapping an error is about: in mapping-model file errors, as
    /// in migration errors. A property mapping goes under `property`.
    public static let entityMapping = "mapping"
}

/// Limits that keep a hostile file from exhausting memory or the stack.
enum MappingLimits {
    /// A mapping model file larger than this is refused before it is parsed.
    static let maximumFileBytes = 64 << 20
    /// How deeply an archived expression may nest.
    static let maximumExpressionDepth = 64
}
