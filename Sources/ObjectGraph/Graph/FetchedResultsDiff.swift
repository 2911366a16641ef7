import FoundationEssentials

/// A controller's results: sections of objects, and where each object is.
struct ResultsLayout {
    struct Entry {
        let object: ManagedObject
        let section: String
    }

    private(set) var sections: [(name: String, objects: [ManagedObject])] = []
    private(set) var positions: [ObjectIdentifier: (section: Int, row: Int)] = [:]

    /// Sections in the order their first object comes; each gathers all objects of its name.
    init(_ entries: [Entry]) {
        var sectionOf: [String: Int] = [:]
        for e in entries {
            let s: Int
            if let known = sectionOf[e.section] {
                s = known
            } else {
                s = sections.count
                sectionOf[e.section] = s
                sections.append((e.section, []))
            }
            positions[ObjectIdentifier(e.object)] = (s, sections[s].objects.count)
            sections[s].objects.append(e.object)
        }
    }

    var objects: [ManagedObject] { sections.flatMap(\.objects) }
}

/// What a batch of context changes did to a controller's results, as the delegate hears it.
struct ResultsChanges {
    struct SectionChange {
        let type: FetchedResultsChangeType
        let index: Int
        let name: String
        let objects: [ManagedObject]
    }

    struct ObjectChange {
        let object: ManagedObject
        let type: FetchedResultsChangeType
        let old: IndexPath?
        let new: IndexPath?
    }

    var sections: [SectionChange] = []
    var objects: [ObjectChange] = []

    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }

    /// The changes from `old` to `new` in Core Data's terms. `touched` are the objects the
    /// context reported changed. Sections are matched by name; objects by identity. An
    /// object kept in the results is moved when its section changed, or when its place
    /// among the others changed: the fewest such moves, preferring objects that were
    /// touched, so an object that merely shifted because others came or went is not
    /// reported. A touched object that is not moved is updated. Order: section deletes,
    /// section inserts, then object deletes, inserts, moves and updates.
    static func between(_ old: ResultsLayout, _ new: ResultsLayout, touched: Set<ObjectIdentifier>) -> ResultsChanges {
        var out = ResultsChanges()
        let oldNames = Set(old.sections.map(\.name)), newNames = Set(new.sections.map(\.name))
        for (i, s) in old.sections.enumerated() where !newNames.contains(s.name) {
            out.sections.append(SectionChange(type: .delete, index: i, name: s.name, objects: s.objects))
        }
        for (i, s) in new.sections.enumerated() where !oldNames.contains(s.name) {
            out.sections.append(SectionChange(type: .insert, index: i, name: s.name, objects: s.objects))
        }

        func path(_ p: (section: Int, row: Int)) -> IndexPath { IndexPath(indexes: [p.section, p.row]) }
        var deletes: [ObjectChange] = [], inserts: [ObjectChange] = [], moves: [ObjectChange] = [], updates: [ObjectChange] = []
        // Objects in both, in their old order, with their place in the new order.
        var kept: [(object: ManagedObject, old: (section: Int, row: Int), new: (section: Int, row: Int), rank: Int, touched: Bool)] = []
        var newRank: [ObjectIdentifier: Int] = [:]
        for (rank, o) in new.objects.enumerated() { newRank[ObjectIdentifier(o)] = rank }
        for o in old.objects {
            let id = ObjectIdentifier(o)
            guard let from = old.positions[id] else { continue }
            guard let to = new.positions[id], let rank = newRank[id] else {
                deletes.append(ObjectChange(object: o, type: .delete, old: path(from), new: nil))
                continue
            }
            kept.append((o, from, to, rank, touched.contains(id)))
        }
        for o in new.objects where old.positions[ObjectIdentifier(o)] == nil {
            inserts.append(ObjectChange(object: o, type: .insert, old: nil, new: path(new.positions[ObjectIdentifier(o)]!)))
        }
        // Objects that changed section move; of the rest, the heaviest run in increasing
        // new order stays (untouched objects weigh more than all touched ones together).
        let heavy = kept.count + 1
        var candidates: [Int] = []
        for (i, k) in kept.enumerated() where old.sections[k.old.section].name == new.sections[k.new.section].name {
            candidates.append(i)
        }
        let staying = heaviestIncreasing(candidates.map { kept[$0].rank }, weights: candidates.map { kept[$0].touched ? 1 : heavy })
        var stays = Set<Int>()
        for j in staying { stays.insert(candidates[j]) }
        for (i, k) in kept.enumerated() {
            if !stays.contains(i) {
                moves.append(ObjectChange(object: k.object, type: .move, old: path(k.old), new: path(k.new)))
            } else if k.touched {
                updates.append(ObjectChange(object: k.object, type: .update, old: path(k.old), new: nil))
            }
        }
        out.objects = deletes + inserts + moves + updates
        return out
    }

    /// The positions (into `ranks`) of a strictly increasing subsequence of greatest total
    /// weight, in O(n log n) with a Fenwick tree of prefix maxima over the ranks.
    static func heaviestIncreasing(_ ranks: [Int], weights: [Int]) -> [Int] {
        guard let top = ranks.max() else { return [] }
        let m = top + 1
        var tree = [(weight: Int, at: Int)](repeating: (0, -1), count: m + 1)
        var best = [Int](repeating: 0, count: ranks.count)
        var previous = [Int](repeating: -1, count: ranks.count)
        for (i, r) in ranks.enumerated() {
            var q = r, found = (weight: 0, at: -1)  // the best run ending below rank r
            while q > 0 {
                if tree[q].weight > found.weight { found = tree[q] }
                q -= q & -q
            }
            best[i] = found.weight + weights[i]
            previous[i] = found.at
            var u = r + 1
            while u <= m {
                if best[i] > tree[u].weight { tree[u] = (best[i], i) }
                u += u & -u
            }
        }
        var end = best.indices.max(by: { best[$0] < best[$1] }) ?? -1
        var run: [Int] = []
        while end >= 0 {
            run.append(end)
            end = previous[end]
        }
        return run.reversed()
    }
}
