/// The steps of a fetch that run in memory, written once for every path that finishes a
/// fetch there: a context's objects and object IDs (pending changes laid over store rows,
/// a parent's objects, an inexact SQL result, several stores), and a store's rows for
/// dictionary results. They order and window results exactly as the SQLite store's
/// `ORDER BY …, Z_PK LIMIT … OFFSET …` does, so a result never depends on the path.
enum InMemoryFetch {
    /// Where a result goes among results with equal sort values: stored rows by primary
    /// key (SQL's trailing `Z_PK`; rows of several stores with one key by store), then
    /// objects not saved yet, in the order they were made.
    enum Tie: Comparable {
        case stored(primaryKey: Int64, store: String)
        case new(sequence: Int)
    }

    /// Compares the values of sort keys in order, as SQLite's `ORDER BY` does: strings by
    /// the key's comparison, everything else in `StoreOrder`; descending keys reversed.
    static func compare(_ a: [AttributeValue], _ b: [AttributeValue], _ keys: [SortKey]) -> Int {
        for (i, k) in keys.enumerated() {
            let c: Int
            if case .string(let x) = a[i], case .string(let y) = b[i] { c = k.comparison.compare(x, y) } else { c = StoreOrder.compare(a[i], b[i]) }
            if c != 0 { return k.ascending ? c : -c }
        }
        return 0
    }

    /// The value a sort key reads from a result: the scalar at its key path, nil for
    /// anything else (a to-many, a missing destination).
    static func sortValue(_ key: String, of item: any KeyValueReading) throws(ObjectGraphError) -> AttributeValue {
        if case .scalar(let v) = try PredicateEvaluator.read(key, from: .object(item)) { return v }
        return .null
    }

    /// `items` sorted by `keys`, ties broken by `tie` (given each item and its position in
    /// `items`): a total order, so the result does not depend on the sort being stable.
    /// `values` gives an item's value for each key, in order.
    static func sort<T>(
        _ items: [T], by keys: [SortKey], values: (T) throws(ObjectGraphError) -> [AttributeValue], tie: (T, Int) -> Tie
    ) throws(ObjectGraphError) -> [T] {
        var keyed: [(item: T, values: [AttributeValue], tie: Tie)] = []
        keyed.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { keyed.append((item, keys.isEmpty ? [] : try values(item), tie(item, i))) }
        keyed.sort { a, b in
            let c = compare(a.values, b.values, keys)
            return c != 0 ? c < 0 : a.tie < b.tie
        }
        return keyed.map(\.item)
    }

    /// The results a window keeps: `offset` skipped, then at most `limit` (0: no limit).
    static func window<T>(_ items: [T], offset: Int, limit: Int) -> [T] {
        if offset == 0 && (limit == 0 || items.count <= limit) { return items }
        let start = min(max(offset, 0), items.count)
        // Compared with what is left, not added to the start: a limit may be as large as Int.max.
        let end = limit > 0 && limit < items.count - start ? start + limit : items.count
        return Array(items[start..<end])
    }

    /// How many of `count` results a window keeps.
    static func window(count: Int, offset: Int, limit: Int) -> Int {
        let n = max(0, count - max(offset, 0))
        return limit > 0 ? min(n, limit) : n
    }
}
