/// A small XML element tree: what Xcode's model files and XML property lists need
/// (elements, attributes in order, text), without FoundationXML.
final class XMLTag: @unchecked Sendable, Equatable {
    let name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLTag] = []
    /// The element's text content (character data directly inside it, concatenated).
    var text: String = ""
    /// Line where the element starts, for messages.
    var line: Int

    init(name: String, attributes: [(name: String, value: String)] = [], line: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    subscript(attribute: String) -> String? {
        attributes.first(where: { $0.name == attribute })?.value
    }

    func set(_ attribute: String, _ value: String?) {
        attributes.removeAll { $0.name == attribute }
        if let value { attributes.append((attribute, value)) }
    }

    func child(_ name: String) -> XMLTag? { children.first { $0.name == name } }

    func children(_ name: String) -> [XMLTag] { children.filter { $0.name == name } }

    @discardableResult
    func add(_ name: String, _ attributes: [(name: String, value: String)] = []) -> XMLTag {
        let c = XMLTag(name: name, attributes: attributes)
        children.append(c)
        return c
    }

    static func == (a: XMLTag, b: XMLTag) -> Bool {
        a.name == b.name && a.text == b.text && a.children == b.children
            && a.attributes.map(\.name) == b.attributes.map(\.name) && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    /// A deep copy, so that a kept element is never shared between two models.
    func copy() -> XMLTag {
        let c = XMLTag(name: name, attributes: attributes, line: line)
        c.text = text
        c.children = children.map { $0.copy() }
        return c
    }
}

typealias XMLElement = XMLTag
