import FoundationEssentials

/// Writes a mapping model as the `xcmapping.xml` of an `.xcmappingmodel`, in the layout
/// Xcode writes (a Core Data XML-store document of its editing objects), so that
/// XcodeMappingReader reads every field back. Xcode also keeps archived copies of the two
/// models, in classes of its own that this library cannot produce; `previous` (the file
/// being replaced) supplies them, and the models' paths, when it has them.
enum XcodeMappingWriter {
    typealias Kind = XcodeMappingDocument.Kind

    static let typeNames: [EntityMappingKind: String] = [
        .undefined: "Undefined", .custom: "Custom", .add: "Add", .remove: "Remove", .copy: "Copy", .transform: "Transform",
    ]

    /// The version hashes of the entities of Xcode's own mapping-model schema, as every
    /// `xcmapping.xml` records them in its metadata: Xcode checks them when it opens the file.
    static let schemaHashes: [(String, String)] = [
        ("XDDevAttributeMapping", "0plcXXRN7XHKl5CcF+fwriFmUpON3ZtcI/AfK748aWc="),
        ("XDDevEntityMapping", "qeN1Ym3TkWN1G6dU9RfX6Kd2ccEvcDVWHpd3LpLgboI="),
        ("XDDevMappingModel", "EqtMzvRnVZWkXwBHu4VeVGy8UyoOe+bi67KC79kphlQ="),
        ("XDDevPropertyMapping", "XN33V44TTGY4JETlMoOB5yyTKxB+u4slvDIinv0rtGA="),
        ("XDDevRelationshipMapping", "akYY9LhehVA/mCb4ATLWuI9XGLcjpm14wWL1oEBtIcs="),
    ]

    /// The mapping-model attributes carried over from the replaced file (Xcode's model copies).
    static let carried: [(name: String, type: String)] = [
        ("sourcemodelpath", "string"), ("sourcemodeldata", "binary"), ("destinationmodelpath", "string"), ("destinationmodeldata", "binary"),
    ]

    static func write(_ model: MappingModel, previous: [UInt8]? = nil) -> String {
        var out = ""
        var next = 101
        func id() -> String {
            defer { next += 1 }
            return "z\(next)"
        }
        let modelID = id()
        var entityIDs: [String] = []
        for (index, m) in model.entityMappings.enumerated() {
            let mappingID = id()
            entityIDs.append(mappingID)
            var propertyObjects = ""
            var refs: (attributes: [String], relationships: [String]) = ([], [])
            for (list, type) in [(m.attributeMappings, Kind.attributeMapping), (m.relationshipMappings, Kind.relationshipMapping)] {
                for p in list {
                    let pid = id()
                    if type == Kind.attributeMapping { refs.attributes.append(pid) } else { refs.relationships.append(pid) }
                    var body = attribute("name", "string", p.name)
                    body += expression(p.valueExpression, data: "valueexpressiondata", text: "valueexpressionstring")
                    body += userInfo(p.userInfo)
                    body += relationship("entitymapping", "1/1", Kind.entityMapping, [mappingID])
                    propertyObjects += object(type, pid, body)
                }
            }
            var body = ""
            if m.name != XcodeMappingReader.defaultName(source: m.sourceEntityName, destination: m.destinationEntityName) {
                body += attribute("name", "string", m.name)
            }
            if let policy = m.migrationPolicyName { body += attribute("migrationpolicyclassname", "string", policy) }
            if let s = m.sourceEntityName { body += attribute("sourcename", "string", s) }
            if let h = m.sourceEntityVersionHash { body += attribute("sourceentityversionhash", "binary", XcodeMappingDocument.base64Lines(h)) }
            if let h = m.destinationEntityVersionHash { body += attribute("destinationentityversionhash", "binary", XcodeMappingDocument.base64Lines(h)) }
            let generated = m.sourceEntityName.map { m.sourceExpression == EntityMapping.defaultSourceExpression(forEntityNamed: $0) } ?? false
            if !generated { body += expression(m.sourceExpression, data: "sourceexpressiondata", text: "sourceexpressionstring") }
            body += userInfo(m.userInfo)
            body += attribute("mappingtypename", "string", typeNames[m.kind]!)
            body += attribute("mappingnumber", "int16", String(index + 1))
            if let d = m.destinationEntityName { body += attribute("destinationname", "string", d) }
            if generated { body += attribute("autogenerateexpression", "bool", "1") }
            body += relationship("mappingmodel", "1/1", Kind.mappingModel, [modelID])
            body += relationship("attributemappings", "0/0", Kind.attributeMapping, refs.attributes)
            body += relationship("relationshipmappings", "0/0", Kind.relationshipMapping, refs.relationships)
            out += object(Kind.entityMapping, mappingID, body) + propertyObjects
        }
        var body = ""
        if let previous, let kept = try? XcodeMappingDocument(previous, at: MappingLocation(file: "")).objects(ofType: Kind.mappingModel).first {
            for (name, type) in carried {
                if let value = kept.attributes[name] { body += attribute(name, type, value) }
            }
        }
        body += relationship("entitymappings", "0/0", Kind.entityMapping, entityIDs)
        out += object(Kind.mappingModel, modelID, body)
        return header(uuid: uuid(of: out), nextObjectID: next) + out + "</database>\n"
    }

    /// A store UUID that depends only on the contents, so that saving twice writes the same file.
    private static func uuid(of text: String) -> String {
        let h = SHA256.hash(Array(text.utf8))
        let hex = MappingJSONFormat.hex(Array(h.prefix(16))).uppercased()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// An expression: archived as Xcode keeps it, with its text alongside when the archive
    /// would not give back the same text (or when it cannot be archived at all).
    private static func expression(_ text: String?, data: String, text textKey: String) -> String {
        guard let text else { return "" }
        guard let archived = ArchivedExpressionWriter.archive(text) else { return attribute(textKey, "string", text) }
        var out = attribute(data, "binary", XcodeMappingDocument.base64Lines(archived))
        if (try? ArchivedExpressionReader.format(archiveBytes: archived)) != text { out += attribute(textKey, "string", text) }
        return out
    }

    private static func userInfo(_ info: [String: String]) -> String {
        guard !info.isEmpty else { return "" }
        var w = MappingArchiveBuilder()
        let root = w.add(dictionary: info)
        return attribute("userinfodata", "binary", XcodeMappingDocument.base64Lines(w.archive(root: root)))
    }

    private static func object(_ type: String, _ id: String, _ body: String) -> String {
        "    <object type=\"\(type)\" id=\"\(id)\">\n" + body + "    </object>\n"
    }

    private static func attribute(_ name: String, _ type: String, _ value: String) -> String {
        "        <attribute name=\"\(name)\" type=\"\(type)\">\(XMLDocumentWriter.escape(value, attribute: false))</attribute>\n"
    }

    private static func relationship(_ name: String, _ type: String, _ destination: String, _ ids: [String]) -> String {
        "        <relationship name=\"\(name)\" type=\"\(type)\" destination=\"\(destination)\" idrefs=\"\(ids.joined(separator: " "))\"></relationship>\n"
    }

    private static func header(uuid: String, nextObjectID: Int) -> String {
        var hashes = ""
        for (entity, hash) in schemaHashes {
            hashes += "                        <key>\(entity)</key>\n                        <data>\n\t\t\(hash)\n\t\t</data>\n"
        }
        return """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>\(uuid)</UUID>
                    <nextObjectID>\(nextObjectID)</nextObjectID>
                    <metadata>
                        <plist version="1.0">
                            <dict>
                                <key>NSPersistenceFrameworkVersion</key>
                                <integer>866</integer>
                                <key>NSStoreModelVersionHashes</key>
                                <dict>

            """ + hashes + """
                                </dict>
                                <key>NSStoreModelVersionHashesVersion</key>
                                <integer>3</integer>
                                <key>NSStoreModelVersionIdentifiers</key>
                                <array>
                                    <string></string>
                                </array>
                            </dict>
                        </plist>
                    </metadata>
                </databaseInfo>

            """
    }
}
