/// The primary keys a save hands its new objects, by object: an open-addressing table
/// hashed on the object's address (as `ObjectList` is). A save looks each new object up at
/// least twice (for its row, and for every to-one pointing at it); with a Dictionary each
/// lookup hashed the address with SipHash, which cost a save of 50,000 objects more than
/// handing out their keys.
struct NewPrimaryKeys {
    /// Object addresses, 0 for an empty entry; a power-of-two count, at most half full.
    private var addresses: [UInt] = []
    private var keys: [Int64] = []
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        if minimumCapacity > 0 { rebuild(capacity: Self.capacity(for: minimumCapacity)) }
    }

    var isEmpty: Bool { count == 0 }

    subscript(object: ManagedObject) -> Int64? {
        get {
            let (entry, found) = find(object)
            return found ? keys[entry] : nil
        }
        set {
            guard let newValue else { preconditionFailure("keys are only ever added") }
            if (count + 1) * 2 > addresses.count { rebuild(capacity: max(16, addresses.count * 2)) }
            let (entry, found) = find(object)
            if !found {
                addresses[entry] = Self.address(object)
                count += 1
            }
            keys[entry] = newValue
        }
    }

    private static func capacity(for n: Int) -> Int {
        var c = 16
        while c < n * 2 { c <<= 1 }
        return c
    }

    @inline(__always)
    private static func address(_ object: ManagedObject) -> UInt { UInt(bitPattern: ObjectIdentifier(object)) }

    @inline(__always)
    private func home(_ address: UInt) -> Int { addressHome(address, capacity: addresses.count) }

    /// The entry holding `object`, or the empty entry where it would go.
    @inline(__always)
    private func find(_ object: ManagedObject) -> (entry: Int, found: Bool) {
        guard !addresses.isEmpty else { return (0, false) }
        let wanted = Self.address(object)
        let mask = addresses.count - 1
        var i = home(wanted)
        return addresses.withUnsafeBufferPointer { entries in
            while entries[i] != 0 {
                if entries[i] == wanted { return (i, true) }
                i = (i + 1) & mask
            }
            return (i, false)
        }
    }

    private mutating func rebuild(capacity: Int) {
        let (oldAddresses, oldKeys) = (addresses, keys)
        addresses = Array(repeating: 0, count: capacity)
        keys = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        for (i, address) in oldAddresses.enumerated() where address != 0 {
            var j = home(address)
            while addresses[j] != 0 { j = (j + 1) & mask }
            addresses[j] = address
            keys[j] = oldKeys[i]
        }
    }
}
