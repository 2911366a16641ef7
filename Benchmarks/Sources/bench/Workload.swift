/// The workload every contender runs (DESIGN.md §9): an entity `Item` with ten Int64
/// attributes a0…a9; insert N objects and save once; fetch M objects and read every attribute.
enum Workload {
    static let attributeCount = 10
    static let attributeNames = (0..<attributeCount).map { "a\($0)" }

    /// The value of attribute `k` of object `i`: distinct across all objects and attributes.
    @inline(__always)
    static func value(_ i: Int, _ k: Int) -> Int64 { Int64(i &* 10 &+ k) }

    /// The sum of every attribute of `rows` objects: what a fetch must add up to.
    static func expectedSum(rows: Int) -> Int64 {
        let n = Int64(rows)
        return 50 * n * (n - 1) + 45 * n
    }

    /// The table of the raw SQLite and GRDB contenders (the same schema for both).
    static let createTableSQL =
        "CREATE TABLE item (id INTEGER PRIMARY KEY, "
        + attributeNames.map { "\($0) INTEGER" }.joined(separator: ", ") + ")"
}
