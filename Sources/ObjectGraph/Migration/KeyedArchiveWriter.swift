/// Builds an NSKeyedArchiver archive (a binary property list with UID references), the
/// form Xcode keeps expressions and user info in inside an `.xcmappingmodel`. The
/// engine's property-list writer has no UIDs, so the few lines of encoding live here.
struct KeyedArchiveWriter {
    typealias Object = BinaryPropertyList.Object

    /// `$objects`: index 0 is always `$null`, as NSKeyedArchiver writes it.
    private var objects: [Object] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// Adds an object of class `className` (with its superclasses, most derived first) and
    /// returns its reference.
    mutating func add(_ className: [String], _ fields: [String: Object]) -> Object {
        var d = fields
        d["$class"] = classReference(className)
        objects.append(.dict(d))
        return .uid(objects.count - 1)
    }

    /// Adds a string object (archived strings are shared by reference, never inline).
    mutating func add(string: String) -> Object {
        objects.append(.string(string))
        return .uid(objects.count - 1)
    }

    mutating func add(array: [Object]) -> Object {
        add(["NSArray", "NSObject"], ["NS.objects": .array(array)])
    }

    mutating func add(dictionary: [String: String]) -> Object {
        let keys = dictionary.keys.sorted()
        let keyRefs = keys.map { add(string: $0) }
        let valueRefs = keys.map { add(string: dictionary[$0]!) }
        return add(["NSDictionary", "NSObject"], ["NS.keys": .array(keyRefs), "NS.objects": .array(valueRefs)])
    }

    private mutating func classReference(_ names: [String]) -> Object {
        if let i = classes[names[0]] { return .uid(i) }
        objects.append(.dict(["$classname": .string(names[0]), "$classes": .array(names.map { .string($0) })]))
        classes[names[0]] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// The archive's bytes with `root` as its root object.
    func archive(root: Object) -> [UInt8] {
        let top: Object = .dict([
            "$version": .int(100000), "$archiver": .string("NSKeyedArchiver"), "$top": .dict(["root": root]),
            "$objects": .array(objects),
        ])
        return PlainBinaryPlist.encode(top)
    }
}

/// A binary property-list (`bplist00`) encoder for archive objects, UIDs included.
private enum PlainBinaryPlist {
    typealias Object = BinaryPropertyList.Object

    static func encode(_ root: Object) -> [UInt8] {
        // Flatten depth-first: each container's members get their own table entries.
        var encoded: [[UInt8]] = []
        var pending: [(index: Int, members: [Int], kind: UInt8)] = []
        func add(_ o: Object) -> Int {
            let index = encoded.count
            encoded.append([])
            switch o {
            case .array(let items):
                pending.append((index, items.map(add), 0xA))
            case .dict(let d):
                let sorted = d.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                pending.append((index, keys + values, 0xD))
            default:
                encoded[index] = leaf(o)
            }
            return index
        }
        _ = add(root)
        let refSize = byteCount(UInt64(encoded.count))
        for (index, members, kind) in pending {
            var bytes = marker(kind, kind == 0xD ? members.count / 2 : members.count)
            for m in members { bytes += bigEndian(UInt64(m), size: refSize) }
            encoded[index] = bytes
        }
        var out = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for e in encoded {
            offsets.append(UInt64(out.count))
            out += e
        }
        let tableOffset = UInt64(out.count)
        let offsetSize = byteCount(tableOffset)
        for o in offsets { out += bigEndian(o, size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += bigEndian(UInt64(encoded.count), size: 8) + bigEndian(0, size: 8) + bigEndian(tableOffset, size: 8)
        return out
    }

    private static func leaf(_ o: Object) -> [UInt8] {
        switch o {
        case .null: return [0x00]
        case .bool(let b): return [b ? 0x09 : 0x08]
        case .int(let i):
            if i >= 0 && i <= 0xFF { return [0x10, UInt8(i)] }
            if i >= 0 && i <= 0xFFFF { return [0x11] + bigEndian(UInt64(i), size: 2) }
            if i >= 0 && i <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(i), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: i), size: 8)
        case .real(let d): return [0x23] + bigEndian(d.bitPattern, size: 8)
        case .date(let d): return [0x33] + bigEndian(d.bitPattern, size: 8)
        case .data(let bytes): return marker(0x4, bytes.count) + bytes
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return marker(0x5, s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            var out = marker(0x6, units.count)
            for u in units { out += [UInt8(u >> 8), UInt8(u & 0xFF)] }
            return out
        case .uid(let u):
            let size = byteCount(UInt64(u))
            return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(u), size: size)
        case .array, .dict: return []
        }
    }

    private static func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0xF] + leaf(.int(Int64(count)))
    }

    private static func byteCount(_ max: UInt64) -> Int {
        max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64((size - 1 - $0) * 8)) }
    }
}
