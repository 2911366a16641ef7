/// Parses XML 1.0 documents of the kind model files and property lists are: elements,
/// attributes, character data, comments, CDATA, the XML declaration and a DOCTYPE (skipped).
/// Iterative, so deep nesting cannot exhaust the stack; every error names the line.
struct XMLDocumentParser {
    struct Failure: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    static let maxDepth = 256
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1

    static func parse(_ bytes: [UInt8]) throws(Failure) -> XMLTag {
        var p = XMLDocumentParser(bytes: bytes)
        return try p.document()
    }

    private init(bytes: [UInt8]) {
        var b = bytes
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }  // UTF-8 byte order mark
        self.bytes = b
    }

    private func fail(_ message: String) -> Failure { Failure(line: line, message: message) }

    private func peek(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return i + u.count <= bytes.count && Array(bytes[i..<i + u.count]) == u
    }

    private mutating func advance(_ n: Int = 1) {
        for _ in 0..<n where i < bytes.count {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
    }

    private mutating func skip(until end: String, what: String) throws(Failure) {
        let startLine = line
        while i < bytes.count && !peek(end) { advance() }
        guard i < bytes.count else { throw Failure(line: startLine, message: "unterminated \(what)") }
        advance(end.utf8.count)
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { advance() }
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D || b == 0x2E
            || b == 0x3A || b >= 0x80
    }

    private mutating func name() throws(Failure) -> String {
        let start = i
        while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
        guard i > start, !(bytes[start] >= 0x30 && bytes[start] <= 0x39), bytes[start] != 0x2D, bytes[start] != 0x2E else {
            throw fail("expected a name")
        }
        return try utf8(bytes[start..<i])
    }

    private func utf8(_ slice: ArraySlice<UInt8>) throws(Failure) -> String {
        guard let s = String(validating: slice, as: UTF8.self) else { throw fail("text is not valid UTF-8") }
        return s
    }

    /// Character data with references resolved, up to (not including) `stop`.
    private mutating func characterData(stop: UInt8) throws(Failure) -> String {
        var out: [UInt8] = []
        while i < bytes.count, bytes[i] != stop {
            let b = bytes[i]
            if b == 0x3C && stop != 0x3C { throw fail("'<' is not allowed in an attribute value") }
            if b == 0x26 {  // &
                let start = i
                while i < bytes.count, bytes[i] != 0x3B, i - start < 12 { i += 1 }
                guard i < bytes.count, bytes[i] == 0x3B else { throw fail("unterminated character reference") }
                let ref = try utf8(bytes[(start + 1)..<i])
                i += 1
                out += Array(try resolve(ref).utf8)
                continue
            }
            out.append(b)
            advance()
        }
        return try utf8(out[...])
    }

    private func resolve(_ ref: String) throws(Failure) -> String {
        switch ref {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            var code: UInt32?
            if ref.hasPrefix("#x") { code = UInt32(ref.dropFirst(2), radix: 16) } else if ref.hasPrefix("#") { code = UInt32(ref.dropFirst(1)) }
            guard let c = code, let scalar = Unicode.Scalar(c) else { throw fail("unknown reference '&\(ref);'") }
            return String(Character(scalar))
        }
    }

    private mutating func document() throws(Failure) -> XMLTag {
        var root: XMLTag?
        var stack: [XMLTag] = []
        while i < bytes.count {
            if stack.isEmpty { skipSpace() }
            guard i < bytes.count else { break }
            if peek("<?") {
                try skip(until: "?>", what: "processing instruction")
            } else if peek("<!--") {
                try skip(until: "-->", what: "comment")
            } else if peek("<![CDATA[") {
                guard let top = stack.last else { throw fail("CDATA outside the root element") }
                advance(9)
                let start = i
                try skip(until: "]]>", what: "CDATA section")
                top.text += try utf8(bytes[start..<(i - 3)])
            } else if peek("<!DOCTYPE") {
                guard root == nil else { throw fail("DOCTYPE after the root element") }
                var depth = 0
                while i < bytes.count {
                    if bytes[i] == 0x5B { depth += 1 } else if bytes[i] == 0x5D { depth -= 1 } else if bytes[i] == 0x3E && depth <= 0 { break }
                    advance()
                }
                guard i < bytes.count else { throw fail("unterminated DOCTYPE") }
                advance()
            } else if peek("</") {
                advance(2)
                let n = try name()
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3E else { throw fail("expected '>' after '</\(n)'") }
                advance()
                guard let open = stack.popLast() else { throw fail("closing tag </\(n)> without an opening tag") }
                guard open.name == n else { throw fail("closing tag </\(n)> does not match <\(open.name)> (line \(open.line))") }
            } else if bytes[i] == 0x3C {
                advance()
                guard root == nil || !stack.isEmpty else { throw fail("a second root element") }
                let element = XMLTag(name: try name(), line: line)
                while true {
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated tag <\(element.name)>") }
                    if bytes[i] == 0x3E || peek("/>") { break }
                    let attribute = try name()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x3D else { throw fail("attribute '\(attribute)' of <\(element.name)> has no value") }
                    advance()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { throw fail("attribute '\(attribute)' needs a quoted value") }
                    let quote = bytes[i]
                    advance()
                    let value = try characterData(stop: quote)
                    guard i < bytes.count else { throw fail("unterminated value of attribute '\(attribute)'") }
                    advance()
                    guard element[attribute] == nil else { throw fail("attribute '\(attribute)' repeated in <\(element.name)>") }
                    element.attributes.append((attribute, value))
                }
                if let parent = stack.last { parent.children.append(element) } else { root = element }
                if peek("/>") { advance(2) } else {
                    advance()
                    // Deeper trees than any model needs would only cost stack when freed.
                    guard stack.count < Self.maxDepth else { throw fail("elements nested more than \(Self.maxDepth) deep") }
                    stack.append(element)
                }
            } else {
                guard let top = stack.last else { throw fail("text outside the root element") }
                top.text += try characterData(stop: 0x3C)
            }
        }
        if let open = stack.last { throw fail("element <\(open.name)> (line \(open.line)) is not closed") }
        guard let root else { throw fail("the document has no root element") }
        return root
    }
}

/// Writes an element tree as indented XML, the way Xcode lays out model files.
enum XMLDocumentWriter {
    static func write(_ root: XMLTag, declaration: String = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#) -> String {
        var out = declaration + "\n"
        write(root, indent: 0, into: &out)
        return out
    }

    private static func write(_ e: XMLTag, indent: Int, into out: inout String) {
        out += String(repeating: "    ", count: indent) + "<" + e.name
        for a in e.attributes { out += " \(a.name)=\"\(escape(a.value, attribute: true))\"" }
        let text = e.text.allSatisfy(\.isWhitespace) ? "" : e.text
        if e.children.isEmpty && text.isEmpty {
            out += "/>\n"
            return
        }
        out += ">"
        if !text.isEmpty { out += escape(text, attribute: false) }
        if !e.children.isEmpty {
            out += "\n"
            for c in e.children { write(c, indent: indent + 1, into: &out) }
            out += String(repeating: "    ", count: indent)
        }
        out += "</\(e.name)>\n"
    }

    static func escape(_ s: String, attribute: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
