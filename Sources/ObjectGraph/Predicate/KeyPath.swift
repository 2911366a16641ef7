/// Key paths as text. They are split and inspected by Unicode scalar, not by Character:
/// a combining mark after "." or "@" must not merge with it into one character.
enum KeyPath {
    /// The components of a dotted key path.
    static func components(_ path: String) -> [String] {
        var out: [String] = []
        var current = String.UnicodeScalarView()
        for s in path.unicodeScalars {
            if s == "." {
                out.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(s)
            }
        }
        out.append(String(current))
        return out
    }

    /// Whether a component is a collection operator (`@count`, `@sum`, …).
    static func isCollectionOperator(_ component: String) -> Bool { component.unicodeScalars.first == "@" }
}
