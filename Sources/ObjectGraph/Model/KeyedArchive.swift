import FoundationEssentials

/// Decodes an NSKeyedArchiver binary property list (what a compiled `.mom` is) into
/// its object table, so the model reader can follow `$class` and UID references.
struct KeyedArchive {
    indirect enum Object {
        case null
        case bool(Bool)
        case int(Int64)
        case real(Double)
        case date(Double)
        case data([UInt8])
        case string(String)
        case uid(Int)
        case array([Object])
        case dict([String: Object])

        var uid: Int? { if case .uid(let u) = self { u } else { nil } }
        var dict: [String: Object]? { if case .dict(let d) = self { d } else { nil } }
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

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let objects: [Object]
    let root: Int

    init(_ bytes: [UInt8]) throws(Failure) {
        let top = try BinaryPlistObjects.decode(bytes)
        guard case .dict(let d) = top, case .string("NSKeyedArchiver")? = d["$archiver"],
            case .array(let objects)? = d["$objects"], case .dict(let t)? = d["$top"], let root = t["root"]?.uid
        else { throw Failure(description: "not an NSKeyedArchiver archive") }
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
        case .dict(let d)?: if let s = d["NS.string"] { return string(s) } else { return nil }
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

/// A binary property list's object table, UIDs kept (the engine's own bplist reader
/// covers only what store metadata needs).
enum BinaryPlistObjects {
    static func decode(_ b: [UInt8]) throws(KeyedArchive.Failure) -> KeyedArchive.Object {
        func fail(_ m: String) -> KeyedArchive.Failure { KeyedArchive.Failure(description: "malformed binary property list: \(m)") }
        guard b.count >= 40, b.starts(with: Array("bplist00".utf8)) else { throw fail("no bplist00 header") }
        func uint(_ at: Int, _ size: Int) throws(KeyedArchive.Failure) -> Int {
            guard size > 0, size <= 8, at >= 0, at + size <= b.count else { throw fail("read past the end") }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(b[at + i]) }
            guard v < UInt64(Int.max) else { throw fail("value too large") }
            return Int(v)
        }
        let t = b.count - 32
        let offsetSize = Int(b[t + 6]), refSize = Int(b[t + 7])
        let count = try uint(t + 8, 8), top = try uint(t + 16, 8), table = try uint(t + 24, 8)
        guard count > 0, count < b.count, top < count, table + count * offsetSize <= t else { throw fail("bad trailer") }
        var offsets: [Int] = []
        for i in 0..<count { offsets.append(try uint(table + i * offsetSize, offsetSize)) }

        func length(_ marker: UInt8, _ at: inout Int) throws(KeyedArchive.Failure) -> Int {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return low }
            guard at < b.count, b[at] & 0xF0 == 0x10 else { throw fail("bad length") }
            let size = 1 << Int(b[at] & 0x0F)
            let n = try uint(at + 1, size)
            at += 1 + size
            return n
        }
        func object(_ index: Int, _ depth: Int) throws(KeyedArchive.Failure) -> KeyedArchive.Object {
            guard index < count, depth < 64 else { throw fail("bad reference") }
            var at = offsets[index]
            guard at < t else { throw fail("bad offset") }
            let marker = b[at]
            at += 1
            switch marker >> 4 {
            case 0x0: return marker == 0x09 ? .bool(true) : marker == 0x08 ? .bool(false) : .null
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8, at + size <= b.count else { throw fail("bad integer") }
                var v: UInt64 = 0
                for i in 0..<size { v = v << 8 | UInt64(b[at + i]) }
                return .int(Int64(bitPattern: v))
            case 0x2, 0x3:
                let size = 1 << Int(marker & 0x0F)
                let bits = UInt64(try uint(at, size == 8 ? 4 : size)) << (size == 8 ? 32 : 0) | (size == 8 ? UInt64(try uint(at + 4, 4)) : 0)
                let d = size == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
                return marker >> 4 == 0x3 ? .date(d) : .real(d)
            case 0x4:
                let n = try length(marker, &at)
                guard at + n <= b.count else { throw fail("bad data") }
                return .data(Array(b[at..<at + n]))
            case 0x5:
                let n = try length(marker, &at)
                guard at + n <= b.count else { throw fail("bad string") }
                return .string(String(decoding: b[at..<at + n], as: UTF8.self))
            case 0x6:
                let n = try length(marker, &at)
                guard at + 2 * n <= b.count else { throw fail("bad string") }
                let units = (0..<n).map { UInt16(b[at + 2 * $0]) << 8 | UInt16(b[at + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                return .uid(try uint(at, Int(marker & 0x0F) + 1))
            case 0xA, 0xC:
                let n = try length(marker, &at)
                var items: [KeyedArchive.Object] = []
                for i in 0..<n { items.append(try object(try uint(at + i * refSize, refSize), depth + 1)) }
                return .array(items)
            case 0xD:
                let n = try length(marker, &at)
                var d: [String: KeyedArchive.Object] = [:]
                for i in 0..<n {
                    guard case .string(let k) = try object(try uint(at + i * refSize, refSize), depth + 1) else { throw fail("non-string key") }
                    d[k] = try object(try uint(at + (n + i) * refSize, refSize), depth + 1)
                }
                return .dict(d)
            default: throw fail("unknown object type \(marker >> 4)")
            }
        }
        return try object(top, 0)
    }
}
