import FoundationEssentials

/// Decodes an NSKeyedArchiver binary property list (what a compiled `.mom` is) into
/// its object table, so the model reader can follow `$class` and UID references.
struct KeyedArchive {
    /// The archive's objects as the binary property list stores them.
    typealias Object = BinaryPropertyList.Object

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let objects: [Object]
    let root: Int

    init(_ bytes: [UInt8]) throws(Failure) {
        let top: Object
        do { top = try BinaryPropertyList.decodeObjects(bytes) } catch {
            throw Failure(description: "malformed binary property list: \(error)")
        }
        guard case .dict(let d) = top, case .string("NSKeyedArchiver")? = d["$archiver"],
            case .array(let objects)? = d["$objects"], case .dict(let t)? = d["$top"], let root = t["root"]?.uid
        else { throw Failure(description: "not an NSKeyedArchiver archive") }
        guard root < objects.count else { throw Failure(description: "the root UID \(root) is not one of the \(objects.count) objects") }
        self.objects = objects
        self.root = root
    }

    /// The object a reference points at (a UID), or the value itself.
    func resolve(_ o: Object?) -> Object? {
        guard let o else { return nil }
        if let u = o.uid { return u > 0 && u < objects.count ? objects[u] : nil }
        if case .string("$null") = o { return nil }
        return o
    }

    func className(_ o: Object?) -> String? {
        guard let d = resolve(o)?.dict, let c = resolve(d["$class"])?.dict, case .string(let name)? = c["$classname"] else { return nil }
        return name
    }

    func string(_ o: Object?) -> String? {
        switch resolve(o) {
        case .string(let s)?: return s == "$null" ? nil : s
        // One step only: an NS.string that refers back to its own object must not recurse.
        case .dict(let d)?: if case .string(let s)? = resolve(d["NS.string"]) { return s } else { return nil }
        default: return nil
        }
    }

    /// The members of an archived array, set or ordered set.
    func array(_ o: Object?) -> [Object] {
        guard let d = resolve(o)?.dict, case .array(let items)? = d["NS.objects"] else { return [] }
        return items
    }

    /// The entries of an archived dictionary (plain or Core Data's known-keys kind), values unresolved.
    func dictionary(_ o: Object?) -> [(String, Object)] {
        guard let d = resolve(o)?.dict else { return [] }
        if className(o) == "NSKnownKeysDictionary1" {
            guard let mapping = resolve(d["searchMapping"])?.dict else { return [] }
            let keys = array(mapping["keys"]).map { string($0) ?? "" }
            let values = array(d["values"])
            return Array(zip(keys, values))
        }
        guard case .array(let keys)? = d["NS.keys"], case .array(let values)? = d["NS.objects"] else { return [] }
        return zip(keys, values).map { (string($0) ?? "", $1) }
    }

    func stringDictionary(_ o: Object?) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in dictionary(o) { if let s = string(v) { out[k] = s } }
        return out
    }
}

extension BinaryPropertyList.Object {
    var uid: Int? { if case .uid(let u) = self { u } else { nil } }
    var dict: [String: Self]? { if case .dict(let d) = self { d } else { nil } }
    var int: Int64? {
        switch self {
        case .int(let i): i
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }
    var bool: Bool? {
        switch self {
        case .bool(let b): b
        case .int(let i): i != 0
        default: nil
        }
    }
}
