import ObjectGraph

/// What the ObjectGraph (Swift) contenders of the batch workloads share: the requests'
/// items and the count a batch returns.
enum OGItemBatch {
    static let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }

    /// A batch insert of the items `range` with main's values, given by column (the bulk
    /// form: one array of integers per attribute, filled by the caller, inside the timing),
    /// returning the count.
    static func insert(_ range: Range<Int>) throws -> BatchInsertRequest {
        let arrays = (0..<Workload.attributeCount).map { k in ColumnValues.int64(range.map { Workload.value($0, k) }) }
        let request = BatchInsertRequest(entityName: "Item", columns: try .init(names: Workload.attributeNames, arrays: arrays, rowCount: range.count))
        request.resultType = .count
        return request
    }

    /// `a0 >= 0`: every item.
    static var everyItem: ObjectPredicate {
        .compare(.key("a0"), .greaterThanOrEqual, .constant(.scalar(.integer(Sizes.batchLowerBound))))
    }

    /// The rows a batch wrote or deleted, from a `.count` result.
    static func count(_ result: BatchResult) throws -> Int {
        guard case .count(let rows) = result else { throw BenchError("a batch returned \(result), not a count") }
        return rows
    }
}
