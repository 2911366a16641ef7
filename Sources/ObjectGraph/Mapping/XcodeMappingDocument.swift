import FoundationEssentials

/// The objects of an `xcmapping.xml`: Xcode keeps a mapping model as a Core Data XML-store
/// document of its own editing objects (`<database>`, then one `<object type="…" id="…">`
/// per object, with `<attribute name="…" type="…">value</attribute>` and
/// `<relationship name="…" idrefs="id id…">` children). Shared by the reader and the
/// writer (which carries Xcode's copies of the two models over from the file it replaces).
struct XcodeMappingDocument {
    struct StoreObject {
        let type: String
        let id: String
        let line: Int
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]
    }

    /// The objects in file order.
    var objects: [StoreObject] = []
    var byID: [String: Int] = [:]

    enum Kind {
        static let mappingModel = "XDDEVMAPPINGMODEL"
        static let entityMapping = "XDDEVENTITYMAPPING"
        static let attributeMapping = "XDDEVATTRIBUTEMAPPING"
        static let relationshipMapping = "XDDEVRELATIONSHIPMAPPING"
    }

    init(_ bytes: [UInt8], at file: MappingLocation) throws(ObjectGraphError) {
        let root: XMLTag
        do { root = try XMLDocumentParser.parse(bytes) } catch { throw file.error("not well-formed XML: \(error)") }
        guard root.name == "database" else {
            throw file.error("the root element is <\(root.name)>, not <database>: not an Xcode mapping model")
        }
        for e in root.children where e.name == "object" {
            guard let type = e["type"], !type.isEmpty else { throw file.error("an <object> (line \(e.line)) has no type") }
            guard let id = e["id"], !id.isEmpty else { throw file.error("an <object> (line \(e.line)) has no id") }
            guard byID[id] == nil else { throw file.error("two objects have the id '\(id)' (line \(e.line))") }
            var o = StoreObject(type: type.uppercased(), id: id, line: e.line)
            for c in e.children {
                guard let name = c["name"], !name.isEmpty else {
                    throw file.error("an <\(c.name)> of object '\(id)' (line \(c.line)) has no name")
                }
                // The store's own names are lowercase; older files spell some in mixed case.
                let key = name.lowercased()
                switch c.name {
                case "attribute":
                    guard o.attributes[key] == nil else { throw file.error("object '\(id)' has the attribute '\(name)' twice (line \(c.line))") }
                    o.attributes[key] = c.text
                case "relationship":
                    guard o.relationships[key] == nil else { throw file.error("object '\(id)' has the relationship '\(name)' twice (line \(c.line))") }
                    o.relationships[key] = (c["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map(String.init)
                default:
                    continue
                }
            }
            byID[id] = objects.count
            objects.append(o)
        }
    }

    func object(_ id: String) -> StoreObject? { byID[id].map { objects[$0] } }

    func objects(ofType type: String) -> [StoreObject] { objects.filter { $0.type == type } }

    /// An XML-store bool: `1`/`0` as the store writes them (`YES`/`NO` accepted); nil when absent.
    static func bool(_ o: StoreObject, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> Bool? {
        guard let text = o.attributes[key] else { return nil }
        switch text.filter({ !$0.isWhitespace }).uppercased() {
        case "1", "YES", "TRUE": return true
        case "0", "NO", "FALSE", "": return false
        default: throw at.error("'\(key)' is \"\(text.prefix(40))\", not a bool (object '\(o.id)', line \(o.line))")
        }
    }

    static func integer(_ o: StoreObject, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> Int? {
        guard let text = o.attributes[key] else { return nil }
        guard let i = Int(text.filter({ !$0.isWhitespace })) else {
            throw at.error("'\(key)' is \"\(text.prefix(40))\", not an integer (object '\(o.id)', line \(o.line))")
        }
        return i
    }

    /// A binary attribute: base64, which Xcode wraps in lines.
    static func binary(_ o: StoreObject, _ key: String, _ at: MappingLocation) throws(ObjectGraphError) -> [UInt8]? {
        guard let text = o.attributes[key] else { return nil }
        let compact = String(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard let data = Data(base64Encoded: compact) else {
            throw at.error("'\(key)' is not base64 data (object '\(o.id)', line \(o.line))")
        }
        return Array(data)
    }

    /// Base64 in lines of 76 characters, as Xcode writes binary attributes.
    static func base64Lines(_ bytes: [UInt8]) -> String {
        let text = Data(bytes).base64EncodedString()
        var lines: [Substring] = []
        var rest = Substring(text)
        while rest.count > 76 {
            lines.append(rest.prefix(76))
            rest = rest.dropFirst(76)
        }
        lines.append(rest)
        return lines.joined(separator: "\n")
    }
}
