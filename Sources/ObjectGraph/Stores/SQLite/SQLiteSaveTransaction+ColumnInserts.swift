/// Rows given by column, bound straight from their arrays (`ColumnInsertingTransaction`):
/// the entity's INSERT with the other slots' values bound once, then per row only the key
/// and the columns' values.
extension SQLiteSaveTransaction: ColumnInsertingTransaction {
    func insertColumns(of entity: EntityDescription, firstKey: Int64, count: Int, columns: [(slot: Int, values: ColumnValues)],
                       constants: [AttributeValue]) throws(ObjectGraphError) -> Bool
    {
        try checkStored(entity)
        let plan = store.writePlan(entity)
        // Rows whose derived attributes or entity columns are filled in afterwards go one by one.
        guard plan.derivation == nil, !plan.needsEntityFixup else { return false }
        let s = try db.prepare(plan.insertSQL)
        s.bind(2, Int64(plan.number))
        s.bind(3, Int64(1))
        var integers: [(Int32, [Int64])] = [], doubles: [(Int32, [Double])] = []
        for (i, slot) in plan.slots.enumerated() {
            let parameter = Int32(i + 4)
            switch columns.first(where: { $0.slot == slot })?.values {
            case .int64(let a)?: integers.append((parameter, a))
            case .double(let a)?: doubles.append((parameter, a))
            case nil: s.bind(parameter, storing: constants[slot])  // stays bound: run() keeps bindings
            }
        }
        // Row-major copies, read through buffer pointers: the loop below retains nothing.
        let ints = Self.rowMajor(integers.map(\.1), count), reals = Self.rowMajor(doubles.map(\.1), count)
        let intParameters = integers.map(\.0), realParameters = doubles.map(\.0)
        try ints.withUnsafeBufferPointer { (ints) throws(ObjectGraphError) in
            try reals.withUnsafeBufferPointer { (reals) throws(ObjectGraphError) in
                var i = 0, d = 0
                for r in 0..<count {
                    s.bind(1, firstKey + Int64(r))
                    for parameter in intParameters { s.bind(parameter, ints[i]); i += 1 }
                    for parameter in realParameters { s.bind(parameter, double: reals[d]); d += 1 }
                    try s.run()
                }
            }
        }
        return true
    }

    /// The first `count` values of each column, row after row.
    private static func rowMajor<T: Numeric>(_ columns: [[T]], _ count: Int) -> ContiguousArray<T> {
        var out = ContiguousArray<T>(repeating: 0, count: columns.count * count)
        for (c, column) in columns.enumerated() {
            for r in 0..<count { out[r * columns.count + c] = column[r] }
        }
        return out
    }
}
