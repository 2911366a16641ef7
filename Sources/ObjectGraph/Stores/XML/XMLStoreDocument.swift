import FoundationEssentials

/// An XML store file, parsed and checked for shape: its `<databaseInfo>` and its
/// `<object>` elements, not yet matched to a model. Errors name the line.
struct XMLStoreDocument {
    /// Apple's `<version>` (0x08040000), the only one known.
    static let formatVersion: Int64 = 134481920

    var version: Int64 = formatVersion
    var uuid: String
    /// `<nextObjectID>`: Apple records the largest number an object ID has used.
    var lastObjectID: Int64
    /// The metadata plist, without `NSStoreType` and `NSStoreUUID` (the type is implied
    /// and the UUID has its own element). Nil when `<metadata>` is empty.
    var metadata: [String: PropertyListValue]?
    var objects: [XMLTag]

    init(uuid: String, lastObjectID: Int64, metadata: [String: PropertyListValue]?, objects: [XMLTag]) {
        (self.uuid, self.lastObjectID, self.metadata, self.objects) = (uuid, lastObjectID, metadata, objects)
    }

    static func parse(_ bytes: [UInt8], path: String) throws(ObjectGraphError) -> XMLStoreDocument {
        try XMLStoreProlog.check(bytes, path: path)
        let root: XMLTag
        do { root = try XMLDocumentParser.parse(bytes) } catch {
            throw XMLStoreErrors.damaged(path, line: error.line, error.message)
        }
        guard root.name == "database" else { throw XMLStoreErrors.damaged(path, line: root.line, "the root element is <\(root.name)>, not <database>") }
        guard let info = root.children.first, info.name == "databaseInfo" else {
            throw XMLStoreErrors.damaged(path, line: root.line, "<database> does not start with <databaseInfo>")
        }
        func integer(_ name: String) throws(ObjectGraphError) -> Int64 {
            guard let e = info.child(name) else { throw XMLStoreErrors.damaged(path, line: info.line, "<databaseInfo> has no <\(name)>") }
            guard let n = Int64(e.text.filter { !$0.isWhitespace }), n >= 0 else {
                throw XMLStoreErrors.damaged(path, line: e.line, "<\(name)> does not hold a number")
            }
            return n
        }
        var document = XMLStoreDocument(uuid: "", lastObjectID: try integer("nextObjectID"), metadata: nil, objects: [])
        document.version = try integer("version")
        guard let uuid = info.child("UUID")?.text.filter({ !$0.isWhitespace }), !uuid.isEmpty else {
            throw XMLStoreErrors.damaged(path, line: info.line, "<databaseInfo> has no <UUID>")
        }
        document.uuid = uuid
        if let meta = info.child("metadata"), !meta.children.isEmpty {
            guard meta.children.count == 1, let plist = meta.children.first, plist.name == "plist", plist.children.count == 1 else {
                throw XMLStoreErrors.damaged(path, line: meta.line, "<metadata> holds no single property list")
            }
            guard case .dictionary(let d) = try XMLStorePlist.value(plist.children[0], path: path) else {
                throw XMLStoreErrors.damaged(path, line: plist.line, "the metadata is not a dictionary")
            }
            document.metadata = d
        }
        for object in root.children.dropFirst() {
            guard object.name == "object" else { throw XMLStoreErrors.damaged(path, line: object.line, "<\(object.name)> where an <object> belongs") }
            guard object["type"] != nil, object["id"] != nil else {
                throw XMLStoreErrors.damaged(path, line: object.line, "an <object> needs a type and an id")
            }
            for c in object.children {
                switch c.name {
                case "attribute":
                    guard c["name"] != nil, c["type"] != nil, c.children.isEmpty else {
                        throw XMLStoreErrors.damaged(path, line: c.line, "an <attribute> needs a name and a type, and holds only text")
                    }
                case "relationship":
                    guard c["name"] != nil, c.children.isEmpty else { throw XMLStoreErrors.damaged(path, line: c.line, "a <relationship> needs a name and holds nothing") }
                default:
                    throw XMLStoreErrors.damaged(path, line: c.line, "<\(c.name)> inside an <object>")
                }
            }
            document.objects.append(object)
        }
        return document
    }

    /// The file's text, laid out as Apple's Core Data writes it.
    func text() -> String {
        var out = #"<?xml version="1.0" standalone="yes"?>"# + "\n" + XMLStoreProlog.doctype + "\n\n<database>\n"
        out += "    <databaseInfo>\n"
        out += "        <version>\(version)</version>\n"
        out += "        <UUID>\(XMLStoreText.escape(uuid))</UUID>\n"
        out += "        <nextObjectID>\(lastObjectID)</nextObjectID>\n"
        if let metadata {
            out += "        <metadata>\n            <plist version=\"1.0\">\n"
            XMLStorePlist.write(.dictionary(metadata), depth: 4, into: &out)
            out += "            </plist>\n        </metadata>\n"
        } else {
            out += "        <metadata></metadata>\n"
        }
        out += "    </databaseInfo>\n"
        for object in objects {
            out += "    <object"
            for a in object.attributes { out += " \(a.name)=\"\(XMLStoreText.escape(a.value, attribute: true))\"" }
            out += ">\n"
            for c in object.children {
                out += "        <\(c.name)"
                for a in c.attributes { out += " \(a.name)=\"\(XMLStoreText.escape(a.value, attribute: true))\"" }
                out += ">\(XMLStoreText.escape(c.text))</\(c.name)>\n"
            }
            out += "    </object>\n"
        }
        out += "</database>\n"
        return out
    }
}
