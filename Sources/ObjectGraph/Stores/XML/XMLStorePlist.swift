import FoundationEssentials

/// The metadata of an XML store: an XML property list inside `<metadata>`, read from the
/// parsed elements and written with the store's indentation.
enum XMLStorePlist {
    static func value(_ e: XMLTag, path: String) throws(ObjectGraphError) -> PropertyListValue {
        func bad(_ why: String) -> ObjectGraphError { XMLStoreErrors.damaged(path, line: e.line, "metadata: \(why)") }
        let compact = e.text.filter { !$0.isWhitespace }
        switch e.name {
        case "string": return .string(e.text)
        case "integer":
            guard let i = Int64(compact) else { throw bad("'\(compact)' is not an integer") }
            return .integer(i)
        case "real":
            guard let d = Double(compact) else { throw bad("'\(compact)' is not a number") }
            return .real(d)
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "date":
            guard let d = ValueText.date(compact) else { throw bad("'\(compact)' is not a date") }
            return .date(d)
        case "data":
            guard let d = Data(base64Encoded: compact) else { throw bad("<data> does not hold base64") }
            return .data(Array(d))
        case "array":
            var items: [PropertyListValue] = []
            for c in e.children { items.append(try value(c, path: path)) }
            return .array(items)
        case "dict":
            var out: [String: PropertyListValue] = [:]
            var key: String?
            for c in e.children {
                if c.name == "key" {
                    guard key == nil else { throw XMLStoreErrors.damaged(path, line: c.line, "metadata: two keys in a row") }
                    key = c.text
                } else {
                    guard let k = key else { throw XMLStoreErrors.damaged(path, line: c.line, "metadata: a value without a key") }
                    out[k] = try value(c, path: path)
                    key = nil
                }
            }
            guard key == nil else { throw bad("a key without a value") }
            return .dictionary(out)
        default: throw bad("<\(e.name)> is not a property list element")
        }
    }

    /// `value` as property list elements, one per line, indented by `depth` levels.
    static func write(_ value: PropertyListValue, depth: Int, into out: inout String) {
        let pad = String(repeating: "    ", count: depth)
        func leaf(_ name: String, _ text: String) { out += "\(pad)<\(name)>\(XMLStoreText.escape(text))</\(name)>\n" }
        switch value {
        case .string(let s): leaf("string", s)
        case .integer(let i): leaf("integer", String(i))
        case .real(let d): leaf("real", XMLStoreText.number(d))
        case .boolean(let b): out += "\(pad)<\(b ? "true" : "false")/>\n"
        case .date(let d): leaf("date", ValueText.iso8601(d))
        case .data(let d): leaf("data", Data(d).base64EncodedString())
        case .array(let a):
            if a.isEmpty { out += "\(pad)<array></array>\n"; return }
            out += "\(pad)<array>\n"
            for v in a { write(v, depth: depth + 1, into: &out) }
            out += "\(pad)</array>\n"
        case .dictionary(let d):
            if d.isEmpty { out += "\(pad)<dict></dict>\n"; return }
            out += "\(pad)<dict>\n"
            for k in d.keys.sorted() {
                out += "\(pad)    <key>\(XMLStoreText.escape(k))</key>\n"
                write(d[k]!, depth: depth + 1, into: &out)
            }
            out += "\(pad)</dict>\n"
        }
    }
}
