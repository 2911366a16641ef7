/// Requests that write to a store directly, without objects: Core Data's batch insert,
/// update and delete (`NSBatchInsertRequest`, `NSBatchUpdateRequest`,
/// `NSBatchDeleteRequest`). A context runs them with `execute(_:)`; each is one transaction.

/// What a batch request returns (`NSBatchInsertRequestResultType` and the others).
public enum BatchResultType: Int, Sendable {
    /// Whether it succeeded.
    case statusOnly = 0
    /// The permanent IDs of the rows it wrote or deleted.
    case objectIDs = 1
    /// How many rows it wrote or deleted.
    case count = 2
}

/// The result of a batch request, as its `resultType` asks.
public enum BatchResult: Equatable {
    case status(Bool)
    case objectIDs([ManagedObjectID])
    case count(Int)
}

/// Inserts rows of one entity (`NSBatchInsertRequest`): each a dictionary of attribute
/// names to values; attributes left out take the model's defaults.
public final class BatchInsertRequest {
    public let entityName: String
    public var resultType: BatchResultType = .statusOnly
    /// The rows, when given at once.
    public var objects: [[String: AttributeValue]]
    /// Apple's dictionary handler: fills the dictionary it is given with the next row and
    /// returns false, or returns true when there are no more rows (the dictionary is then
    /// ignored). Runs before anything is written.
    public var dictionaryHandler: ((inout [String: AttributeValue]) throws(ObjectGraphError) -> Bool)?
    public let requestType = PersistentStoreRequestType.batchInsert

    public init(entityName: String, objects: [[String: AttributeValue]]) {
        self.entityName = entityName
        self.objects = objects
    }

    public init(entityName: String, dictionaryHandler: @escaping (inout [String: AttributeValue]) throws(ObjectGraphError) -> Bool) {
        self.entityName = entityName
        self.objects = []
        self.dictionaryHandler = dictionaryHandler
    }

    /// Rows given column by column, the bulk form of C and Python (no dictionary per row):
    /// `rowCount` rows of the attributes `columns`; `value(row, column)` is a row's value
    /// in a column, or nil when the row leaves the attribute out (its default applies).
    public struct Columns {
        public let names: [String]
        public let rowCount: Int
        public let value: (_ row: Int, _ column: Int) -> AttributeValue?
        /// The columns as arrays, when they were given so: a store may then write them
        /// without making a value per row.
        public let arrays: [ColumnValues]?

        public init(names: [String], rowCount: Int, value: @escaping (_ row: Int, _ column: Int) -> AttributeValue?) {
            self.names = names
            self.rowCount = rowCount
            self.value = value
            arrays = nil
        }

        /// Columns of 64-bit integers or doubles, at least `rowCount` values each, every row
        /// holding a value in every column. 140002 when names and arrays do not pair up.
        public init(names: [String], arrays: [ColumnValues], rowCount: Int) throws(ObjectGraphError) {
            guard names.count == arrays.count, rowCount >= 0, arrays.allSatisfy({ $0.count >= rowCount }) else {
                throw .invalidArgument("columns need one array of at least \(rowCount) values per name (\(names.count) names, \(arrays.count) arrays)")
            }
            self.names = names
            self.rowCount = rowCount
            self.arrays = arrays
            value = { row, column in arrays[column][row] }
        }
    }

    /// Rows read column by column, before `objects` and the dictionary handler's.
    public var columns: Columns?

    public init(entityName: String, columns: Columns) {
        self.entityName = entityName
        self.objects = []
        self.columns = columns
    }
}

/// Sets attributes of every row of one entity that a predicate matches
/// (`NSBatchUpdateRequest`); the rows' versions move on, so contexts holding them see a
/// conflict or refresh them.
public final class BatchUpdateRequest {
    public let entityName: String
    public var predicate: ObjectPredicate?
    /// Attribute names and their new values.
    public var propertiesToUpdate: [String: AttributeValue]
    /// Also the rows of subentities (default true).
    public var includesSubentities = true
    public var resultType: BatchResultType = .statusOnly
    public let requestType = PersistentStoreRequestType.batchUpdate

    public init(entityName: String, predicate: ObjectPredicate? = nil, propertiesToUpdate: [String: AttributeValue] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes the rows a fetch request matches, or the rows of given object IDs
/// (`NSBatchDeleteRequest`). No delete rule runs: a many-to-many's pairs go with their
/// rows (the store keeps its join tables), but a to-one pointing at a deleted row keeps
/// its key, and reading it fails until the referring objects are changed or deleted.
public final class BatchDeleteRequest {
    public let fetchRequest: FetchRequest?
    public let objectIDs: [ManagedObjectID]?
    public var resultType: BatchResultType = .statusOnly
    public let requestType = PersistentStoreRequestType.batchDelete

    public init(fetchRequest: FetchRequest) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
    }

    public init(objectIDs: [ManagedObjectID]) {
        self.fetchRequest = nil
        self.objectIDs = objectIDs
    }

    /// The entity whose rows it deletes (the fetch request's, or the first ID's).
    public var entityName: String? { fetchRequest?.entityName ?? objectIDs?.first?.entity.name }
}
