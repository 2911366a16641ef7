import FoundationEssentials

/// Transformable values as Apple's `NSSecureUnarchiveFromDataTransformer` keeps them: an
/// NSKeyedArchiver binary property list of plist classes (strings, numbers and data
/// inline; dates, UUIDs, URLs, arrays, dictionaries and NSNull as objects), plus instances
/// of allowed classes with their fields as keyed values. Reading builds values only: a
/// class that is neither a plist class nor allowed is refused, never instantiated.
enum SecureArchive {
    typealias Object = BinaryPropertyList.Object

    /// The classes a secure unarchiver of plist types accepts, Apple's mutable variants included.
    static let plistClasses: Set<String> = [
        "NSString", "NSMutableString", "NSNumber", "NSData", "NSMutableData", "NSDate", "NSArray", "NSMutableArray",
        "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
        "NSUUID", "NSURL", "NSNull",
    ]

    // MARK: Writing

    static func encode(_ value: TransformableValue) -> Data {
        let archive = KeyedArchiveWriter()
        let root = write(value, archive)
        return Data(archive.finish(root: root))
    }

    static func write(_ v: TransformableValue, _ archive: KeyedArchiveWriter) -> Object {
        switch v {
        case .null: return archive.object(nil, "NSNull") { [] }
        case .boolean(let b): return archive.value(.bool(b))
        case .integer(let i): return archive.value(.int(i))
        case .double(let d): return archive.value(.real(d))
        case .string(let s): return archive.string(s)
        case .data(let d): return archive.value(.data(Array(d)))
        case .date(let d): return ArchivedValues.write(.date(d), archive)
        case .uuid(let u): return ArchivedValues.write(.uuid(u), archive)
        case .url(let u): return ArchivedValues.write(.uri(u), archive)
        case .array(let items): return archive.array("NSArray") { items.map { write($0, archive) } }
        case .dictionary(let d): return archive.dictionary("NSDictionary", keys: d.keys.sorted()) { write(d[$0]!, archive) }
        case .object(let o):
            // NSKeyedArchiver escapes keys that start with "$" by doubling it.
            return archive.object(nil, o.className) {
                o.fields.keys.sorted().map { ($0.hasPrefix("$") ? "$" + $0 : $0, write(o.fields[$0]!, archive)) }
            }
        }
    }

    // MARK: Reading

    /// The value an archive holds; `allows` says which non-plist class names may be read.
    static func decode(_ bytes: Data, allows: @escaping (String) -> Bool) throws(ObjectGraphError) -> TransformableValue {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(Array(bytes)) } catch { throw refused("the stored bytes are not a keyed archive: \(error.description)") }
        return try read(archive, Object.uid(archive.root), allows: allows)
    }

    /// The value `ref` refers to inside an archive (a default value in a compiled model).
    static func read(_ archive: KeyedArchive, _ ref: Object?, allows: @escaping (String) -> Bool) throws(ObjectGraphError) -> TransformableValue {
        var reader = Reader(archive: archive, allows: allows)
        return try reader.value(ref)
    }

    static func refused(_ message: String) -> ObjectGraphError {
        ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch, message: message)
    }

    /// How deeply archived objects may nest: deeper input is refused, not recursed into.
    static let maxDepth = 256

    /// Reads each archived object once (shared ones are remembered), refusing cycles.
    private struct Reader {
        let archive: KeyedArchive
        let allows: (String) -> Bool
        var done: [Int: TransformableValue] = [:]
        var open: Set<Int> = []

        mutating func value(_ ref: Object?) throws(ObjectGraphError) -> TransformableValue {
            guard let ref else { return .null }
            guard case .uid(let uid) = ref else { return try inline(ref) }
            guard uid < archive.objects.count else { throw refused("the archive refers to object \(uid) of \(archive.objects.count)") }
            if uid == 0 { return .null }
            if let known = done[uid] { return known }
            guard open.insert(uid).inserted else { throw refused("the archive's object \(uid) contains itself") }
            guard open.count <= SecureArchive.maxDepth else { throw refused("the archive nests objects more than \(SecureArchive.maxDepth) deep") }
            let v = try object(archive.objects[uid])
            open.remove(uid)
            done[uid] = v
            return v
        }

        func inline(_ o: Object) throws(ObjectGraphError) -> TransformableValue {
            switch o {
            case .bool(let b): return .boolean(b)
            case .int(let i): return .integer(i)
            case .real(let d): return .double(d)
            case .string(let s): return s == "$null" ? .null : .string(s)
            case .data(let d): return .data(Data(d))
            default: throw refused("the archive holds a value of no plist class")
            }
        }

        mutating func object(_ o: Object) throws(ObjectGraphError) -> TransformableValue {
            guard case .dict(let fields) = o else { return try inline(o) }
            guard let classRef = fields["$class"]?.uid, classRef < archive.objects.count,
                case .dict(let c) = archive.objects[classRef], case .string(let name)? = c["$classname"]
            else { throw refused("an archived object has no class") }
            switch name {
            case "NSString", "NSMutableString":
                guard case .string(let s)? = archive.resolve(fields["NS.string"]) else { throw malformed(name) }
                return .string(s)
            case "NSData", "NSMutableData":
                guard case .data(let d)? = archive.resolve(fields["NS.data"]) else { throw malformed(name) }
                return .data(Data(d))
            case "NSDate":
                switch fields["NS.time"] {
                case .real(let t)?: return .date(Date(timeIntervalSinceReferenceDate: t))
                case .int(let t)?: return .date(Date(timeIntervalSinceReferenceDate: Double(t)))
                default: throw malformed(name)
                }
            case "NSUUID":
                guard case .data(let b)? = archive.resolve(fields["NS.uuidbytes"]), b.count == 16 else { throw malformed(name) }
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            case "NSURL":
                guard case .string(let relative) = try value(fields["NS.relative"]) else { throw malformed(name) }
                guard case .url(let base) = try value(fields["NS.base"]) else { return .url(relative) }
                guard let u = URL(string: relative, relativeTo: URL(string: base)) else { throw malformed(name) }
                return .url(u.absoluteString)
            case "NSNull":
                return .null
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                guard case .array(let refs)? = fields["NS.objects"] else { throw malformed(name) }
                var items: [TransformableValue] = []
                items.reserveCapacity(refs.count)
                for r in refs { items.append(try value(r)) }
                return .array(items)
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"], keys.count == values.count
                else { throw malformed(name) }
                var d: [String: TransformableValue] = [:]
                for (k, v) in zip(keys, values) {
                    guard case .string(let key) = try value(k) else { throw refused("an archived dictionary has a key that is not a string") }
                    d[key] = try value(v)
                }
                return .dictionary(d)
            default:
                guard !SecureArchive.plistClasses.contains(name), allows(name) else {
                    throw refused("the archive holds an instance of '\(name)', which is neither a property-list class nor a class registered as archivable (register_archivable_class); it is not read")
                }
                var out: [String: TransformableValue] = [:]
                for (key, v) in fields where key != "$class" {
                    out[key.hasPrefix("$$") ? String(key.dropFirst()) : key] = try value(v)
                }
                return .object(ArchivedObject(className: name, fields: out))
            }
        }

        func malformed(_ name: String) -> ObjectGraphError { refused("an archived \(name) lacks its fields") }
    }
}
