/// One column of rows given by column (a batch insert's bulk form), in an array.
public enum ColumnValues: Sendable {
    case int64([Int64])
    case double([Double])

    public var count: Int {
        switch self {
        case .int64(let a): a.count
        case .double(let a): a.count
        }
    }

    /// Row `row`'s value.
    public subscript(row: Int) -> AttributeValue {
        switch self {
        case .int64(let a): .integer(a[row])
        case .double(let a): .double(a[row])
        }
    }
}

/// A save transaction that inserts rows given as arrays of columns straight from them,
/// with no value made per row.
public protocol ColumnInsertingTransaction {
    /// Inserts `count` rows of `entity` with keys from `firstKey` and version 1: each
    /// column's values from its array, every other slot its value in `constants`. False,
    /// writing nothing, when the store cannot (rows that need more than their values).
    func insertColumns(of entity: EntityDescription, firstKey: Int64, count: Int, columns: [(slot: Int, values: ColumnValues)],
                       constants: [AttributeValue]) throws(ObjectGraphError) -> Bool
}
