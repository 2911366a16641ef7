import FoundationEssentials

/// Apple's binary property-list format (`bplist00`): the one reader and writer of it.
/// Core Data keeps store metadata in it (`Z_METADATA.Z_PLIST`), the Binary store file is
/// one, and a compiled model (`.mom`) is an NSKeyedArchiver archive in it.
///
/// Reading treats the bytes as untrusted: every integer taken from them (trailer fields,
/// offsets, object references, counts, lengths, sizes, UIDs) is checked before it is
/// used, and arithmetic on them cannot overflow, so a damaged or hostile file gives a
/// `FormatError`, never a trap.
enum BinaryPropertyList {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    /// One object as the file stores it: UIDs (keyed archives' references) and nulls are
    /// kept, dates are seconds since 2001-01-01.
    indirect enum Object: Equatable {
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
    }

    // MARK: Writing

    private enum Node {
        case leaf([UInt8])  // an encoded object with no references
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    static func encode(_ value: PropertyListValue) -> [UInt8] {
        encode(object(of: value), uniquing: false)
    }

    private static func object(of value: PropertyListValue) -> Object {
        switch value {
        case .string(let s): .string(s)
        case .integer(let i): .int(i)
        case .real(let d): .real(d)
        case .boolean(let b): .bool(b)
        case .date(let d): .date(d.timeIntervalSinceReferenceDate)
        case .data(let d): .data(d)
        case .array(let items): .array(items.map(object(of:)))
        case .dictionary(let d): .dict(d.mapValues(object(of:)))
        }
    }

    /// Writes `top` with dictionary keys sorted. With `uniquing`, equal strings, numbers,
    /// dates and data are written once and shared, as Apple's writer does (UIDs are not).
    static func encode(_ top: Object, uniquing: Bool) -> [UInt8] {
        var nodes: [Node] = []
        var shared: [[UInt8]: Int] = [:]
        func add(_ v: Object) -> Int {
            let index = nodes.count
            switch v {
            case .array(let items):
                nodes.append(.array([]))
                let refs = items.map(add)
                nodes[index] = .array(refs)
            case .dict(let dict):
                nodes.append(.array([]))
                let sorted = dict.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                nodes[index] = .dictionary(keys: keys, values: values)
            default:
                let bytes = encodeLeaf(v)
                if case .uid = v {} else if uniquing {
                    if let known = shared[bytes] { return known }
                    shared[bytes] = index
                }
                nodes.append(.leaf(bytes))
            }
            return index
        }
        _ = add(top)
        let refSize = byteCount(UInt64(nodes.count))
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for node in nodes {
            offsets.append(UInt64(out.count))
            switch node {
            case .leaf(let bytes):
                out += bytes
            case .array(let refs):
                out += marker(0xA, refs.count)
                for r in refs { out += bigEndian(UInt64(r), size: refSize) }
            case .dictionary(let keys, let values):
                out += marker(0xD, keys.count)
                for r in keys + values { out += bigEndian(UInt64(r), size: refSize) }
            }
        }
        let tableOffset = UInt64(out.count)
        let offsetSize = byteCount(tableOffset)
        for o in offsets { out += bigEndian(o, size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += bigEndian(UInt64(nodes.count), size: 8)
        out += bigEndian(0, size: 8)
        out += bigEndian(tableOffset, size: 8)
        return out
    }

    private static func encodeLeaf(_ v: Object) -> [UInt8] {
        switch v {
        case .null: return [0x00]
        case .bool(let b): return [b ? 0x09 : 0x08]
        case .int(let i):
            if i >= 0 && i <= 0xFF { return [0x10, UInt8(i)] }
            if i >= 0 && i <= 0xFFFF { return [0x11] + bigEndian(UInt64(i), size: 2) }
            if i >= 0 && i <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(i), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: i), size: 8)
        case .real(let d): return [0x23] + bigEndian(d.bitPattern, size: 8)
        case .date(let t): return [0x33] + bigEndian(t.bitPattern, size: 8)
        case .data(let bytes): return marker(0x4, bytes.count) + bytes
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return marker(0x5, s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            var out = marker(0x6, units.count)
            for u in units { out += [UInt8(u >> 8), UInt8(u & 0xFF)] }
            return out
        case .uid(let u):
            // Keyed archives' references: 1, 2 or 4 big-endian bytes (Apple's reader takes no more).
            let size = byteCount(UInt64(u))
            return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(u), size: size)
        case .array, .dict: return []
        }
    }

    private static func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0xF] + encodeLeaf(.int(Int64(count)))
    }

    private static func byteCount(_ max: UInt64) -> Int {
        max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64((size - 1 - $0) * 8)) }
    }

    // MARK: Reading

    /// Decodes a property list into plain values (a UID reads as its integer, a null as "").
    static func decode(_ bytes: [UInt8]) throws(FormatError) -> PropertyListValue {
        value(of: try decodeObjects(bytes))
    }

    private static func value(of object: Object) -> PropertyListValue {
        switch object {
        case .null: return .string("")
        case .bool(let b): return .boolean(b)
        case .int(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .date(let t): return .date(Date(timeIntervalSinceReferenceDate: t))
        case .data(let d): return .data(d)
        case .string(let s): return .string(s)
        case .uid(let u): return .integer(Int64(u))
        case .array(let items): return .array(items.map(value(of:)))
        case .dict(let d): return .dictionary(d.mapValues(value(of:)))
        }
    }

    /// Nesting deeper than this is refused (the formats we read nest a handful of levels).
    static let maximumDepth = 64

    /// Decodes a property list into its objects as stored (UIDs and nulls kept).
    static func decodeObjects(_ bytes: [UInt8]) throws(FormatError) -> Object {
        var reader = try Reader(bytes)
        return try reader.object(reader.top, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let count: Int  // objects in the offset table
        let top: Int
        let offsetSize: Int
        let refSize: Int
        let table: Int  // where the offset table starts; objects lie before it
        /// Objects left to build. References may share a collection, and a few shared
        /// collections nested deeply would build an exponentially large tree; Apple's
        /// writer never shares collections, so a file holds fewer objects than bytes.
        var budget: Int

        init(_ bytes: [UInt8]) throws(FormatError) {
            guard bytes.count >= 40, bytes.starts(with: Array("bplist0".utf8)) else {
                throw FormatError(description: "not a binary property list")
            }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
                throw FormatError(description: "bad trailer: offset size \(offsetSize), reference size \(refSize)")
            }
            let count = Self.read(bytes, trailer + 8, 8)
            let top = Self.read(bytes, trailer + 16, 8)
            let table = Self.read(bytes, trailer + 24, 8)
            // Every comparison below is on UInt64 values already known to be small, so no
            // conversion or multiplication can overflow.
            guard table >= 9, table < UInt64(trailer) else { throw FormatError(description: "bad trailer: offset table at \(table)") }
            guard count > 0, count <= (UInt64(trailer) - table) / UInt64(offsetSize) else {
                throw FormatError(description: "bad trailer: \(count) objects")
            }
            guard top < count else { throw FormatError(description: "bad trailer: top object \(top) of \(count)") }
            self.count = Int(count)
            self.top = Int(top)
            self.table = Int(table)
            budget = 2 * bytes.count + 64
        }

        /// `size` (1...8) big-endian bytes at `at`, which the caller has checked.
        static func read(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }

        /// Checks that `n` bytes start at `at`, all before the offset table (where objects lie).
        func need(_ at: Int, _ n: Int) throws(FormatError) {
            guard at >= 0, n >= 0, at <= table, n <= table - at else {
                throw FormatError(description: "truncated: \(n) bytes needed at \(at)")
            }
        }

        /// The byte count of `n` items of `size` bytes, checked to fit before the offset table.
        func span(_ n: Int, _ size: Int, at: Int) throws(FormatError) -> Int {
            let (total, overflow) = n.multipliedReportingOverflow(by: size)
            guard !overflow, at <= table, total <= table - at else {
                throw FormatError(description: "truncated: \(n) items of \(size) bytes at \(at)")
            }
            return total
        }

        func offset(of index: Int) throws(FormatError) -> Int {
            guard index >= 0, index < count else { throw FormatError(description: "bad object reference \(index) of \(count)") }
            let o = Self.read(bytes, table + index * offsetSize, offsetSize)
            guard o >= 8, o < UInt64(table) else { throw FormatError(description: "bad offset \(o) of object \(index)") }
            return Int(o)
        }

        /// The object reference at `at` (`refSize` bytes, within the file as checked by the caller).
        func reference(_ at: Int) throws(FormatError) -> Int {
            let r = Self.read(bytes, at, refSize)
            guard r < UInt64(count) else { throw FormatError(description: "bad object reference \(r) of \(count)") }
            return Int(r)
        }

        /// Reads a count that may follow a marker with 0xF in its low nibble.
        func length(_ marker: UInt8, at: inout Int) throws(FormatError) -> Int {
            let low = Int(marker & 0xF)
            if low != 0xF { return low }
            try need(at, 1)
            let intMarker = bytes[at]
            guard intMarker >> 4 == 0x1, intMarker & 0xF <= 3 else { throw FormatError(description: "bad count marker at \(at)") }
            let size = 1 << Int(intMarker & 0xF)
            try need(at + 1, size)
            let v = Self.read(bytes, at + 1, size)
            // No count can exceed the file's size; this also keeps it far below Int.max.
            guard v <= UInt64(bytes.count) else { throw FormatError(description: "bad count \(v) at \(at)") }
            at += 1 + size
            return Int(v)
        }

        mutating func object(_ index: Int, depth: Int) throws(FormatError) -> Object {
            guard depth < BinaryPropertyList.maximumDepth else { throw FormatError(description: "nested more than \(BinaryPropertyList.maximumDepth) levels") }
            guard budget > 0 else { throw FormatError(description: "too many objects (shared collections)") }
            budget -= 1
            var at = try offset(of: index)
            let m = bytes[at]
            at += 1
            switch m >> 4 {
            case 0x0:
                switch m {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: return .null
                }
            case 0x1:
                // 1, 2, 4, 8 bytes; 16-byte integers keep their low 8 bytes.
                guard m & 0xF <= 4 else { throw FormatError(description: "bad integer marker 0x\(String(m, radix: 16))") }
                let size = 1 << Int(m & 0xF)
                try need(at, size)
                let v = Self.read(bytes, at + max(0, size - 8), min(size, 8))
                return .int(Int64(bitPattern: v))
            case 0x2:
                let size = 1 << Int(m & 0xF & 0x7)
                guard m & 0xF == 2 || m & 0xF == 3 else { throw FormatError(description: "bad real marker 0x\(String(m, radix: 16))") }
                try need(at, size)
                if size == 4 { return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: Self.read(bytes, at, 4))))) }
                return .real(Double(bitPattern: Self.read(bytes, at, 8)))
            case 0x3:
                try need(at, 8)
                return .date(Double(bitPattern: Self.read(bytes, at, 8)))
            case 0x4:
                let n = try length(m, at: &at)
                try need(at, n)
                return .data(Array(bytes[at..<at + n]))
            case 0x5:
                let n = try length(m, at: &at)
                try need(at, n)
                return .string(String(decoding: bytes[at..<at + n], as: UTF8.self))
            case 0x6:
                let n = try length(m, at: &at)
                let size = try span(n, 2, at: at)
                var units: [UInt16] = []
                units.reserveCapacity(n)
                for i in stride(from: at, to: at + size, by: 2) { units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                // A UID: 1 to 8 bytes, unsigned; one that does not fit an Int is refused.
                let size = Int(m & 0xF) + 1
                guard size <= 8 else { throw FormatError(description: "bad UID size \(size)") }
                try need(at, size)
                let v = Self.read(bytes, at, size)
                guard v <= UInt64(Int.max) else { throw FormatError(description: "UID \(v) is too large") }
                return .uid(Int(v))
            case 0xA, 0xC:
                let n = try length(m, at: &at)
                _ = try span(n, refSize, at: at)
                var items: [Object] = []
                items.reserveCapacity(n)
                for i in 0..<n { items.append(try object(try reference(at + i * refSize), depth: depth + 1)) }
                return .array(items)
            case 0xD:
                let n = try length(m, at: &at)
                _ = try span(n, 2 * refSize, at: at)
                var dict: [String: Object] = [:]
                for i in 0..<n {
                    guard case .string(let k) = try object(try reference(at + i * refSize), depth: depth + 1) else {
                        throw FormatError(description: "dictionary key is not a string")
                    }
                    dict[k] = try object(try reference(at + (n + i) * refSize), depth: depth + 1)
                }
                return .dict(dict)
            default:
                throw FormatError(description: "unknown object type 0x\(String(m, radix: 16))")
            }
        }
    }
}
