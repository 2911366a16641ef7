/// Values inside keyed archives that mapping models hold: strings taken literally, and
/// user-info dictionaries.
extension KeyedArchive {
    /// The string an archived reference points at, taken literally: a string object
    /// spelled `$null` is that text (only the reference 0 means nil), so a user-info value
    /// or a key path of that spelling survives.
    func literalString(_ o: Object?) -> String? {
        if case .uid(let u)? = o, u > 0, u < objects.count, case .string(let s) = objects[u] { return s }
        if case .string(let s)? = o { return s }
        return string(o)
    }
}

/// A user-info dictionary inside a keyed archive, as text values (numbers and booleans
/// become their text; any other value is an error).
enum ArchivedUserInfo {
    static func read(_ archive: KeyedArchive, _ ref: KeyedArchive.Object?, _ at: MappingLocation, _ what: String) throws(ObjectGraphError) -> [String: String] {
        guard let object = archive.resolve(ref)?.dict else {
            if archive.resolve(ref) == nil { return [:] }
            throw at.error("\(what) is not a dictionary")
        }
        let cls = archive.className(ref) ?? ""
        var pairs: [(String?, KeyedArchive.Object)] = []
        switch cls {
        case "NSDictionary", "NSMutableDictionary":
            guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"], keys.count == values.count else {
                throw at.error("\(what) is not a well-formed dictionary")
            }
            pairs = zip(keys, values).map { (archive.literalString($0), $1) }
        case "NSKnownKeysDictionary1":
            pairs = archive.dictionary(ref).map { ($0.0, $0.1) }
        default:
            throw at.error("\(what) is not a dictionary (\(cls.isEmpty ? "no class" : cls))")
        }
        var out: [String: String] = [:]
        for (key, value) in pairs {
            guard let key else { throw at.error("\(what) has a key that is not text") }
            switch archive.resolve(value) {
            case .int(let i)?: out[key] = String(i)
            case .real(let d)?: out[key] = String(d)
            case .bool(let b)?: out[key] = b ? "YES" : "NO"
            default:
                guard let s = archive.literalString(value) else { throw at.error("\(what): the value of '\(key)' is not text") }
                out[key] = s
            }
        }
        return out
    }
}
