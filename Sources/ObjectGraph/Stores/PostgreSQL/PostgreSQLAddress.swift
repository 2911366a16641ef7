/// Where a PostgreSQL store lives: a libpq connection string (a `postgresql://` URI or
/// `key=value` pairs) and the schema holding its tables. `redacted` is the string with
/// any password removed and everything else kept: what a store's `path`, its errors and
/// its log lines show.
struct PostgreSQLAddress: Sendable, Hashable {
    let connection: String
    let schema: String

    static let defaultSchema = "public"

    init(_ connection: String, schema: String?) throws(ObjectGraphError) {
        let schema = schema ?? Self.defaultSchema
        guard Self.isIdentifier(schema) else {
            throw .invalidArgument(
                "'\(schema)' is not a PostgreSQL schema name this store takes: letters, digits and underscores, starting with a letter or underscore, at most 63 bytes")
        }
        guard !connection.utf8.contains(0) else { throw .invalidArgument("a PostgreSQL connection string cannot hold a NUL character") }
        self.connection = connection
        self.schema = schema
    }

    /// A plain identifier: what a schema option may name (it is still always quoted).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63 else { return false }
        func letter(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || b == 95 }
        return letter(first) && name.utf8.allSatisfy { letter($0) || ($0 >= 48 && $0 <= 57) }
    }

    var isURI: Bool { connection.hasPrefix("postgresql://") || connection.hasPrefix("postgres://") }

    /// The connection string without its password (a URI's `user:password@` and
    /// `password=` parameter, or a `password=` pair).
    var redacted: String { isURI ? Self.redactURI(connection) : Self.redactPairs(connection) }

    private static func redactURI(_ uri: String) -> String {
        guard let schemeEnd = uri.firstRange(of: "://")?.upperBound else { return uri }
        var rest = String(uri[schemeEnd...])
        var query = ""
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: q)...])
            rest = String(rest[..<q])
        }
        // The authority ends at the first "/"; its user information at the last "@".
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        let path = String(rest[authorityEnd...])
        if let at = authority.lastIndex(of: "@") {
            var user = String(authority[..<at])
            if let colon = user.firstIndex(of: ":") { user = String(user[..<colon]) }
            authority = user + authority[at...]
        }
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { !$0.lowercased().hasPrefix("password=") }
        let q = kept.isEmpty || (kept.count == 1 && kept[0].isEmpty) ? "" : "?" + kept.joined(separator: "&")
        return String(uri[..<schemeEnd]) + authority + path + q
    }

    /// Drops `password = value` from key=value pairs, a value quoted with '' included.
    private static func redactPairs(_ text: String) -> String {
        let chars = Array(text)
        var out = "", i = 0
        while i < chars.count {
            // One pair: key, optional spaces, '=', optional spaces, value.
            let start = i
            while i < chars.count, chars[i] == " " { i += 1 }
            var key = ""
            while i < chars.count, chars[i] != "=", chars[i] != " " { key.append(chars[i]); i += 1 }
            while i < chars.count, chars[i] == " " { i += 1 }
            if i < chars.count, chars[i] == "=" { i += 1 }
            while i < chars.count, chars[i] == " " { i += 1 }
            if i < chars.count, chars[i] == "'" {
                i += 1
                while i < chars.count, chars[i] != "'" { if chars[i] == "\\" { i += 1 }; i += 1 }
                i += 1
            } else {
                while i < chars.count, chars[i] != " " { if chars[i] == "\\" { i += 1 }; i += 1 }
            }
            if key.lowercased() != "password" {
                let pair = String(chars[start..<min(i, chars.count)]).trimmingCharacters(in: " ")
                if !pair.isEmpty { out += (out.isEmpty ? "" : " ") + pair }
            }
        }
        return out
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
