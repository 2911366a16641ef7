import FoundationEssentials

/// A checked view of an Xcode 3 `elements` file: an NSKeyedArchiver archive of Xcode's
/// own UML classes (`XDPMModel`, `XDPMEntity`, `XDPMAttribute`, ...), decoded by
/// KeyedArchive. A model reader needs three things from it: an object's class, its
/// fields, and the Core Data settings its stereotypes keep (Xcode3Settings).
///
/// The file is untrusted input, so every lookup checks what it finds (a reference points
/// at an archived object, a dictionary has keys and values of one length, a flag is a
/// Boolean) and throws an invalid-model error naming the file, the element and the key.
/// Nothing here follows references recursively, so reference cycles cannot loop.
struct Xcode3Archive {
    typealias Object = KeyedArchive.Object

    /// One archived object, by its index in `$objects`. The archive shares objects (an
    /// inverse is also a property of its own entity, a parent also an entry of the
    /// package), so the index is the object's identity.
    struct Ref: Hashable {
        let index: Int
    }

    let archive: KeyedArchive
    let file: ModelLocation

    init(_ bytes: [UInt8], file: ModelLocation) throws(ObjectGraphError) {
        do { archive = try KeyedArchive(bytes) } catch { throw file.error("not an Xcode 3 model archive: \(error)") }
        self.file = file
    }

    var root: Ref { Ref(index: archive.root) }

    /// The archived object `value` refers to; nil when it is nil (`$null`, UID 0, or no
    /// value). Anything else that is not a reference to an object with a class is an error.
    func object(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> Ref? {
        guard let value else { return nil }
        guard case .uid(let index) = value else {
            if case .string("$null") = value { return nil }
            throw at.error("\(what) is \(describe(value)), not a reference to an archived object")
        }
        if index == 0 { return nil }
        guard index < archive.objects.count else {
            throw at.error("\(what) refers to object #\(index), past the archive's \(archive.objects.count) objects")
        }
        guard archive.className(.uid(index)) != nil else {
            throw at.error("\(what) refers to object #\(index), which is \(describe(.uid(index))), not an archived object")
        }
        return Ref(index: index)
    }

    /// Like `object`, and the object must be of one of `classes`.
    func object(_ value: Object?, _ what: String, of classes: Set<String>, at: ModelLocation) throws(ObjectGraphError) -> Ref? {
        guard let r = try object(value, what, at: at) else { return nil }
        guard classes.contains(className(r)) else {
            throw at.error("\(what) is an \(className(r)) (object #\(r.index)), not an \(classes.sorted().joined(separator: " or "))")
        }
        return r
    }

    func className(_ r: Ref) -> String { archive.className(.uid(r.index)) ?? "?" }

    /// A field of an archived object, as stored (a reference stays a reference).
    func field(_ r: Ref, _ key: String) -> Object? { archive.objects[r.index].dict?[key] }

    func has(_ r: Ref, _ key: String) -> Bool { field(r, key) != nil }

    // MARK: Values

    /// The value a field holds, with one reference followed: the archive keeps strings,
    /// numbers and Booleans as objects of their own.
    func plain(_ value: Object?) -> Object? {
        guard let value else { return nil }
        if case .uid(let u) = value { return u > 0 && u < archive.objects.count ? archive.objects[u] : nil }
        if case .string("$null") = value { return nil }
        return value
    }

    func string(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> String? {
        try checkReference(value, what, at: at)
        switch plain(value) {
        case nil: return nil
        case .string(let s)?: return s
        case .dict?:  // NSString, NSMutableString
            guard let s = archive.string(value) else { throw at.error("\(what) is \(describe(value)), not a string") }
            return s
        case _?: throw at.error("\(what) is \(describe(value)), not a string")
        }
    }

    func bool(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> Bool? {
        try checkReference(value, what, at: at)
        switch plain(value) {
        case nil: return nil
        case .bool(let b)?: return b
        case .int(let i)? where i == 0 || i == 1: return i == 1
        case _?: throw at.error("\(what) is \(describe(value)), not a Boolean")
        }
    }

    /// An integer, stored as one or as an NSDecimalNumber (some counts are).
    func integer(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> Int? {
        try checkReference(value, what, at: at)
        switch plain(value) {
        case nil: return nil
        case .int(let i)?:
            guard let n = Int(exactly: i) else { throw at.error("\(what) \(i) is out of range") }
            return n
        case .dict?:
            guard ["NSDecimalNumberPlaceholder", "NSDecimalNumber"].contains(archive.className(value) ?? ""),
                case .decimal(let d)? = ArchivedValues.read(archive, value)
            else { throw at.error("\(what) is \(describe(value)), not an integer") }
            guard let n = Int(d.description) else { throw at.error("\(what) is the decimal number \(d), not an integer") }
            return n
        case _?: throw at.error("\(what) is \(describe(value)), not an integer")
        }
    }

    /// The entries of an archived dictionary (keys are strings), values as stored; empty
    /// for nil.
    func entries(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> [(key: String, value: Object)] {
        guard let r = try object(value, what, of: ["NSDictionary", "NSMutableDictionary"], at: at) else { return [] }
        guard case .array(let keys)? = field(r, "NS.keys"), case .array(let values)? = field(r, "NS.objects"), keys.count == values.count else {
            throw at.error("\(what) (object #\(r.index)) has no NS.keys and NS.objects of one length")
        }
        var out: [(key: String, value: Object)] = []
        for (k, v) in zip(keys, values) {
            guard let key = try string(k, "a key of \(what)", at: at) else { throw at.error("\(what) has a nil key") }
            out.append((key, v))
        }
        return out
    }

    /// The members of an archived array or set, as stored; empty for nil.
    func members(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) -> [Object] {
        let kinds: Set<String> = ["NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet"]
        guard let r = try object(value, what, of: kinds, at: at) else { return [] }
        guard case .array(let items)? = field(r, "NS.objects") else { throw at.error("\(what) (object #\(r.index)) has no NS.objects") }
        return items
    }

    /// Whether a value is text: a string, or an archived NSString.
    func isText(_ value: Object?) -> Bool {
        if case .string(let s)? = plain(value) { return s != "$null" }
        return ["NSString", "NSMutableString"].contains(archive.className(value) ?? "")
    }

    /// A reference that points past the end of the archive is damage, not nil.
    func checkReference(_ value: Object?, _ what: String, at: ModelLocation) throws(ObjectGraphError) {
        if case .uid(let u)? = value, u >= archive.objects.count {
            throw at.error("\(what) refers to object #\(u), past the archive's \(archive.objects.count) objects")
        }
    }

    /// What a value is, for messages: "a string", "an NSMutableArray (object #12)".
    func describe(_ value: Object?) -> String {
        if case .uid(let u)? = value, let name = archive.className(.uid(u)) { return "an \(name) (object #\(u))" }
        switch plain(value) {
        case nil: return "nil"
        case .null?: return "a null"
        case .bool?: return "a Boolean"
        case .int?: return "an integer"
        case .real?: return "a real number"
        case .date?: return "a date"
        case .data?: return "data"
        case .string?: return "a string"
        case .uid?: return "a reference to a reference"
        case .array?: return "an array"
        case .dict?: return "a dictionary without a class"
        }
    }
}

/// The Core Data settings of one model element. Xcode 3 keeps none of them as fields of
/// the entity or property: each lives in a stereotype (`XD_PStereotype`,
/// `XD_PPropStereotype`, `XD_PAtt_Stereotype`, ...) whose owned attributes map a setting's
/// name to an `XDUMLPropertyImp`, and the setting's value is that object's `_default`.
/// Older files leave out settings never touched in the inspector: an absent setting
/// reads as nil, and the reader applies Core Data's default.
struct Xcode3Settings {
    let archive: Xcode3Archive
    let stereotype: String
    let at: ModelLocation
    private let values: [String: KeyedArchive.Object]

    /// The settings of stereotype `name` of element `r`; none when it has no such stereotype.
    init(_ archive: Xcode3Archive, of r: Xcode3Archive.Ref, stereotype name: String, at: ModelLocation) throws(ObjectGraphError) {
        self.archive = archive
        self.stereotype = name
        self.at = at
        var values: [String: KeyedArchive.Object] = [:]
        let stereotypes = try archive.entries(archive.field(r, "XDBucketForStereotypesstorage"), "the stereotypes", at: at)
        if let s = stereotypes.first(where: { $0.key == name }) {
            let st = try archive.object(s.value, "stereotype \(name)", of: ["XDUMLStereotypeImp"], at: at)
            for (key, p) in try archive.entries(st.flatMap { archive.field($0, "XDBucketForOwnedAttributesstorage") }, "the settings of \(name)", at: at) {
                guard let imp = try archive.object(p, "setting \(key)", of: ["XDUMLPropertyImp"], at: at) else { continue }
                values[key] = archive.field(imp, "_default") ?? .string("$null")
            }
        }
        self.values = values
    }

    /// Whether the setting is archived at all (nil counts as archived).
    func has(_ key: String) -> Bool { values[key] != nil }

    func string(_ key: String) throws(ObjectGraphError) -> String? { try archive.string(values[key], key, at: at) }

    func bool(_ key: String) throws(ObjectGraphError) -> Bool? { try archive.bool(values[key], key, at: at) }

    func integer(_ key: String) throws(ObjectGraphError) -> Int? { try archive.integer(values[key], key, at: at) }

    func object(_ key: String, of classes: Set<String>) throws(ObjectGraphError) -> Xcode3Archive.Ref? {
        try archive.object(values[key], key, of: classes, at: at)
    }

    func members(_ key: String) throws(ObjectGraphError) -> [KeyedArchive.Object] { try archive.members(values[key], key, at: at) }

    /// User info: string values are kept; others (Sync Services keeps arrays and
    /// dictionaries there) have no place in a model's string user info and are reported
    /// in `skipped`.
    func userInfo(_ key: String, skipped: inout [String]) throws(ObjectGraphError) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in try archive.entries(values[key], key, at: at) {
            let what = "user info '\(k)'"
            if archive.isText(v), let s = try archive.string(v, what, at: at) {
                out[k] = s
            } else {
                try archive.checkReference(v, what, at: at)
                skipped.append("\(at.prefix)\(what) is \(archive.describe(v)), not a string; skipped")
            }
        }
        return out
    }
}
