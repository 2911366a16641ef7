/// The home entry of an object in an open-addressing table of `capacity` entries (a power
/// of two), hashed on the object's address: Fibonacci hashing of the address without its
/// low bits (always zero: objects are 16-byte aligned). Shared by the tables that look
/// objects up by identity (`ObjectList`, `NewPrimaryKeys`), where SipHash would cost more
/// than the lookup.
@inline(__always)
func addressHome(_ address: UInt, capacity: Int) -> Int {
    let bits = UInt64(capacity.trailingZeroBitCount)
    return Int(truncatingIfNeeded: ((UInt64(address) >> 4) &* 0x9E37_79B9_7F4A_7C15) >> (64 - bits))
}
