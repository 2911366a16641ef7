import FoundationEssentials

/// Reads and writes XML property lists (`.xccurrentversion`, `VersionInfo.plist` in
/// its XML form).
enum XMLPropertyList {
    static func decode(_ bytes: [UInt8]) throws(ObjectGraphError) -> PropertyListValue {
        let root: XMLTag
        do { root = try XMLDocumentParser.parse(bytes) } catch { throw .invalidArgument("not a property list: \(error)") }
        guard root.name == "plist", let top = root.children.first else { throw .invalidArgument("not a property list: no <plist> root") }
        return try value(top)
    }

    private static func value(_ e: XMLTag) throws(ObjectGraphError) -> PropertyListValue {
        let bad = ObjectGraphError.invalidArgument("property list, line \(e.line): malformed <\(e.name)>")
        switch e.name {
        case "string": return .string(e.text)
        case "integer":
            guard let i = Int64(e.text.filter { !$0.isWhitespace }) else { throw bad }
            return .integer(i)
        case "real":
            guard let d = Double(e.text.filter { !$0.isWhitespace }) else { throw bad }
            return .real(d)
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "date":
            guard let d = ValueText.date(e.text.filter { !$0.isWhitespace }) else { throw bad }
            return .date(d)
        case "data":
            guard let d = Data(base64Encoded: e.text.filter { !$0.isWhitespace }) else { throw bad }
            return .data(Array(d))
        case "array":
            var items: [PropertyListValue] = []
            for c in e.children { items.append(try value(c)) }
            return .array(items)
        case "dict":
            var out: [String: PropertyListValue] = [:]
            var key: String?
            for c in e.children {
                if c.name == "key" {
                    guard key == nil else { throw bad }
                    key = c.text
                } else {
                    guard let k = key else { throw bad }
                    out[k] = try value(c)
                    key = nil
                }
            }
            guard key == nil else { throw bad }
            return .dictionary(out)
        default: throw bad
        }
    }

    static func encode(_ value: PropertyListValue) -> String {
        let root = XMLTag(name: "plist", attributes: [("version", "1.0")])
        root.children = [element(value)]
        return XMLDocumentWriter.write(
            root,
            declaration: #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
                + #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#)
    }

    private static func element(_ v: PropertyListValue) -> XMLTag {
        func leaf(_ name: String, _ text: String) -> XMLTag {
            let e = XMLTag(name: name)
            e.text = text
            return e
        }
        switch v {
        case .string(let s): return leaf("string", s)
        case .integer(let i): return leaf("integer", String(i))
        case .real(let d): return leaf("real", String(d))
        case .boolean(let b): return XMLTag(name: b ? "true" : "false")
        case .date(let d): return leaf("date", ValueText.iso8601(d))
        case .data(let d): return leaf("data", Data(d).base64EncodedString())
        case .array(let a):
            let e = XMLTag(name: "array")
            e.children = a.map(element)
            return e
        case .dictionary(let d):
            let e = XMLTag(name: "dict")
            for k in d.keys.sorted() {
                e.children.append(leaf("key", k))
                e.children.append(element(d[k]!))
            }
            return e
        }
    }
}

extension PropertyListValue {
    /// Decodes a property list in binary (`bplist00`) or XML form.
    public static func decode(_ bytes: [UInt8]) throws(ObjectGraphError) -> PropertyListValue {
        guard bytes.starts(with: Array("bplist00".utf8)) else { return try XMLPropertyList.decode(bytes) }
        do { return try BinaryPropertyList.decode(bytes) } catch { throw .invalidArgument("not a property list: \(error)") }
    }
}
