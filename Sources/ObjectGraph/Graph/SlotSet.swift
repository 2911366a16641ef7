/// A set of slot numbers as bits: how an object records which properties changed
/// without copying values.
struct SlotSet: Sendable, Equatable {
    /// Slots 0 to 63, one bit each.
    private(set) var low: UInt64 = 0
    /// Slots from 64 on, 64 to a word.
    private(set) var high: [UInt64] = []

    init() {}

    init(low: UInt64, high: [UInt64]) {
        self.low = low
        self.high = high
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ slot: Int) -> Bool {
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    mutating func insert(_ slot: Int) {
        if slot < 64 { low |= 1 << UInt64(slot); return }
        let word = slot / 64 - 1
        while high.count <= word { high.append(0) }
        high[word] |= 1 << UInt64(slot % 64)
    }

    mutating func removeAll() {
        low = 0
        high.removeAll()
    }
}
