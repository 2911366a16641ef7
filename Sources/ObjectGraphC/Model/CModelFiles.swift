import FoundationEssentials
import ObjectGraph

// og_model_* for model files, versions, configurations, templates and warnings.

/// An owned C string, or NULL (with no error) for nil.
func ownedOrNull(_ s: String?) -> UnsafeMutablePointer<CChar>? { s.map { ownedString($0) } }

/// Runs `body` for a getter that returns an owned string or NULL.
func text(_ err: ErrorOut, _ body: () throws(ObjectGraphError) -> String?) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedOrNull(try body()) } catch {
        report(error, err)
        return nil
    }
}

func item(_ list: [String], _ index: Int, _ what: String) throws(ObjectGraphError) -> String {
    guard index >= 0, index < list.count else { throw .invalidArgument("\(what) index \(index) is out of range (there are \(list.count))") }
    return list[index]
}

@_cdecl("og_model_load_version")
public func og_model_load_version(_ path: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let v = version == nil ? nil : try string(version, "the version")
        return handles.make(ModelBox(try ManagedObjectModel(contentsOf: try string(path, "the path"), version: v)))
    }
}

@_cdecl("og_model_write")
public func og_model_write(_ m: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try model(m).write(toPath: try string(path, "the path"))
        return OG_OK
    }
}

@_cdecl("og_model_copy")
public func og_model_copy(_ m: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(ModelBox(try model(m).copy())) }
}

@_cdecl("og_model_validate")
public func og_model_validate(_ m: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try model(m).validate()
        return OG_OK
    }
}

@_cdecl("og_model_version_identifier_count")
public func og_model_version_identifier_count(_ m: OpaquePointer?) -> Int { (try? model(m))?.versionIdentifiers.count ?? 0 }

@_cdecl("og_model_version_identifier_at")
public func og_model_version_identifier_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try model(m).versionIdentifiers, index, "version identifier") }
}

@_cdecl("og_model_configuration_count")
public func og_model_configuration_count(_ m: OpaquePointer?) -> Int { (try? model(m))?.configurations.count ?? 0 }

@_cdecl("og_model_configuration_at")
public func og_model_configuration_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try model(m).configurations, index, "configuration") }
}

@_cdecl("og_model_configuration_contains")
public func og_model_configuration_contains(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ entity: UnsafePointer<CChar>?,
                                            _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try model(m)
        let config = name == nil ? nil : try string(name, "the configuration")
        guard let members = x.entities(forConfiguration: config) else { throw .invalidArgument("the model has no configuration '\(config ?? "")'") }
        let e = try string(entity, "the entity name")
        try required(out, "out").pointee = members.contains { $0.name == e }
        return OG_OK
    }
}

@_cdecl("og_model_template_count")
public func og_model_template_count(_ m: OpaquePointer?) -> Int { (try? model(m))?.fetchRequestTemplatesByName.count ?? 0 }

@_cdecl("og_model_template_at")
public func og_model_template_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try model(m).fetchRequestTemplatesByName.keys.sorted(), index, "template") }
}

@_cdecl("og_model_template_entity")
public func og_model_template_entity(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in
        let n = try string(name, "the template name")
        guard let t = try model(m).fetchRequestTemplate(named: n) else { throw .invalidArgument("the model has no fetch request template named '\(n)'") }
        return t.entityName
    }
}

@_cdecl("og_model_template_substitute")
public func og_model_template_substitute(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                         _ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<OpaquePointer?>?,
                                         _ count: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in
        let n = try string(name, "the template name")
        var variables: [String: AttributeValue] = [:]
        if count > 0 {
            let k = try required(UnsafeMutablePointer(mutating: keys), "keys"), v = try required(UnsafeMutablePointer(mutating: values), "values")
            for i in 0..<count { variables[try string(k[i], "key \(i)")] = try handles.get(v[i], ValueBox.self).value }
        }
        return try model(m).fetchRequestFromTemplate(named: n, substitutionVariables: variables).predicateFormat ?? "TRUEPREDICATE"
    }
}

@_cdecl("og_model_warning_count")
public func og_model_warning_count(_ m: OpaquePointer?) -> Int { (try? model(m))?.loadWarnings.count ?? 0 }

@_cdecl("og_model_warning_at")
public func og_model_warning_at(_ m: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try item(try model(m).loadWarnings, index, "warning") }
}
