import ObjectGraph

/// What the ObjectGraph (Swift) contenders of the batch workloads share: the requests'
/// items and the count a batch returns.
enum OGItemBatch {
    static let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }

    /// A batch insert of the items `range` with main's values, given by column (the bulk
    /// form: each value made as the store reads it), returning the count.
    static func insert(_ range: Range<Int>) -> BatchInsertRequest {
        let first = range.lowerBound
        let request = BatchInsertRequest(entityName: "Item", columns: .init(names: Workload.attributeNames, rowCount: range.count) { row, column in
            .integer(Workload.value(first + row, column))
        })
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
