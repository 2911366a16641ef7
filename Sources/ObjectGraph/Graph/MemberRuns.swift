/// Where each owner's members sit in a `MemberRows`. Stores return them grouped by owner,
/// so each owner has one run of positions (one range per owner, no array of positions);
/// rows that come ungrouped are visited in owner order through a sorted permutation.
struct MemberRuns {
    private var runs: [Int64: Range<Int>] = [:]
    /// Positions in owner order, when the rows were not grouped by owner.
    private var order: [Int]?

    init(owners: [Int64]) {
        if let grouped = Self.runs(owners) {
            runs = grouped
        } else {
            let sorted = owners.indices.sorted { (owners[$0], $0) < (owners[$1], $1) }
            runs = Self.runs(sorted.map { owners[$0] })!
            order = sorted
        }
    }

    /// The runs of equal owners, or nil when an owner comes back after another's run.
    private static func runs(_ owners: [Int64]) -> [Int64: Range<Int>]? {
        var out: [Int64: Range<Int>] = [:]
        var start = 0
        while start < owners.count {
            var end = start + 1
            while end < owners.count && owners[end] == owners[start] { end += 1 }
            if out.updateValue(start..<end, forKey: owners[start]) != nil { return nil }
            start = end
        }
        return out
    }

    /// Calls `body` with the position of each member of `owner`, in the store's order.
    func forEach(of owner: Int64, _ body: (Int) -> Void) {
        guard let run = runs[owner] else { return }
        if let order { for i in run { body(order[i]) } } else { for i in run { body(i) } }
    }
}
