import FoundationEssentials

/// Apple's binary property-list format (`bplist00`), which Core Data uses for the
/// metadata in `Z_METADATA.Z_PLIST`. Reading checks every offset and length, so a
/// corrupt blob gives an error, never a crash.
enum BinaryPropertyList {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: Writing

    private enum Node {
        case leaf([UInt8])  // an encoded object with no references
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    static func encode(_ value: PropertyListValue) -> [UInt8] {
        var nodes: [Node] = []
        func add(_ v: PropertyListValue) -> Int {
            let index = nodes.count
            switch v {
            case .array(let items):
                nodes.append(.array([]))
                let refs = items.map(add)
                nodes[index] = .array(refs)
            case .dictionary(let dict):
                nodes.append(.array([]))
                let sorted = dict.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                nodes[index] = .dictionary(keys: keys, values: values)
            default:
                nodes.append(.leaf(encodeLeaf(v)))
            }
            return index
        }
        _ = add(value)
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

    private static func encodeLeaf(_ v: PropertyListValue) -> [UInt8] {
        switch v {
        case .boolean(let b): return [b ? 0x09 : 0x08]
        case .integer(let i):
            if i >= 0 && i <= 0xFF { return [0x10, UInt8(i)] }
            if i >= 0 && i <= 0xFFFF { return [0x11] + bigEndian(UInt64(i), size: 2) }
            if i >= 0 && i <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(i), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: i), size: 8)
        case .real(let d): return [0x23] + bigEndian(d.bitPattern, size: 8)
        case .date(let d): return [0x33] + bigEndian(d.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let bytes): return marker(0x4, bytes.count) + bytes
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return marker(0x5, s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            var out = marker(0x6, units.count)
            for u in units { out += [UInt8(u >> 8), UInt8(u & 0xFF)] }
            return out
        case .array, .dictionary: return []
        }
    }

    private static func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0xF] + encodeLeaf(.integer(Int64(count)))
    }

    private static func byteCount(_ max: UInt64) -> Int {
        max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64((size - 1 - $0) * 8)) }
    }

    // MARK: Reading

    static func decode(_ bytes: [UInt8]) throws -> PropertyListValue {
        guard bytes.count >= 40, bytes.starts(with: Array("bplist0".utf8)) else {
            throw FormatError(description: "not a binary property list")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw FormatError(description: "bad property list trailer")
        }
        let count = read(bytes, trailer + 8, 8)
        let top = read(bytes, trailer + 16, 8)
        let tableOffset = read(bytes, trailer + 24, 8)
        guard count > 0, count < UInt64(bytes.count), top < count,
            tableOffset < UInt64(trailer), tableOffset + count * UInt64(offsetSize) <= UInt64(trailer)
        else { throw FormatError(description: "bad property list offsets") }
        let reader = Reader(bytes: bytes, count: Int(count), offsetSize: offsetSize, refSize: refSize, table: Int(tableOffset))
        return try reader.object(Int(top), depth: 0)
    }

    private static func read(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
        return v
    }

    private struct Reader {
        let bytes: [UInt8]
        let count: Int
        let offsetSize: Int
        let refSize: Int
        let table: Int

        func need(_ at: Int, _ n: Int) throws {
            guard at >= 0, n >= 0, at <= bytes.count - n else { throw FormatError(description: "property list is truncated") }
        }

        func offset(of index: Int) throws -> Int {
            guard index >= 0, index < count else { throw FormatError(description: "bad object reference") }
            let o = read(bytes, table + index * offsetSize, offsetSize)
            guard o < UInt64(table) else { throw FormatError(description: "bad object offset") }
            return Int(o)
        }

        /// Reads a length that may follow a marker with 0xF in its low nibble.
        func length(_ marker: UInt8, at: inout Int) throws -> Int {
            let low = Int(marker & 0xF)
            if low != 0xF { return low }
            try need(at, 1)
            let intMarker = bytes[at]
            guard intMarker >> 4 == 0x1 else { throw FormatError(description: "bad length") }
            let size = 1 << Int(intMarker & 0xF)
            guard size <= 8 else { throw FormatError(description: "bad length") }
            try need(at + 1, size)
            let v = read(bytes, at + 1, size)
            at += 1 + size
            guard v < UInt64(bytes.count) * 2 + 16 else { throw FormatError(description: "bad length") }
            return Int(v)
        }

        func object(_ index: Int, depth: Int) throws -> PropertyListValue {
            guard depth < 64 else { throw FormatError(description: "property list nests too deeply") }
            var at = try offset(of: index)
            try need(at, 1)
            let m = bytes[at]
            at += 1
            switch m >> 4 {
            case 0x0:
                switch m {
                case 0x08: return .boolean(false)
                case 0x09: return .boolean(true)
                default: return .string("")
                }
            case 0x1:
                let size = 1 << Int(m & 0xF)
                guard size <= 16 else { throw FormatError(description: "bad integer") }
                try need(at, size)
                // 16-byte integers keep their low 8 bytes.
                let v = read(bytes, at + max(0, size - 8), min(size, 8))
                return .integer(size >= 8 ? Int64(bitPattern: v) : Int64(v))
            case 0x2:
                let size = 1 << Int(m & 0xF)
                try need(at, size)
                if size == 4 { return .real(Double(Float(bitPattern: UInt32(read(bytes, at, 4))))) }
                guard size == 8 else { throw FormatError(description: "bad real") }
                return .real(Double(bitPattern: read(bytes, at, 8)))
            case 0x3:
                try need(at, 8)
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: read(bytes, at, 8))))
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
                try need(at, n * 2)
                var units: [UInt16] = []
                units.reserveCapacity(n)
                for i in 0..<n { units.append(UInt16(bytes[at + 2 * i]) << 8 | UInt16(bytes[at + 2 * i + 1])) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(m & 0xF) + 1
                try need(at, size)
                return .integer(Int64(read(bytes, at, size)))
            case 0xA, 0xC:
                let n = try length(m, at: &at)
                try need(at, n * refSize)
                var items: [PropertyListValue] = []
                for i in 0..<n {
                    items.append(try object(Int(read(bytes, at + i * refSize, refSize)), depth: depth + 1))
                }
                return .array(items)
            case 0xD:
                let n = try length(m, at: &at)
                try need(at, 2 * n * refSize)
                var dict: [String: PropertyListValue] = [:]
                for i in 0..<n {
                    let key = try object(Int(read(bytes, at + i * refSize, refSize)), depth: depth + 1)
                    let value = try object(Int(read(bytes, at + (n + i) * refSize, refSize)), depth: depth + 1)
                    guard case .string(let k) = key else { throw FormatError(description: "dictionary key is not a string") }
                    dict[k] = value
                }
                return .dictionary(dict)
            default:
                throw FormatError(description: "unknown property list object 0x\(String(m, radix: 16))")
            }
        }
    }
}
