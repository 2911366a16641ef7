import ObjectGraph

/// What the ObjectGraph (Swift) contenders of the batch workloads share: the requests'
/// items and the count a batch returns.
enum OGItemBatch {
    static let columns = Workload.attributeNames.map { "Z" + $0.uppercased() }

    /// A batch insert of the items `range` with main's values, fed row by row by its
    /// dictionary handler, returning the count.
    static func insert(_ range: Range<Int>) -> BatchInsertRequest {
        let names = Workload.attributeNames
        var next = range.lowerBound
        let request = BatchInsertRequest(entityName: "Item") { (row) throws(ObjectGraphError) -> Bool in
            guard next < range.upperBound else { return true }
            for k in 0..<Workload.attributeCount { row[names[k]] = .integer(Workload.value(next, k)) }
            next += 1
            return false
        }
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
