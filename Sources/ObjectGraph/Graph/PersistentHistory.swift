import FoundationEssentials

/// Persistent history as applications read it (`NSPersistentHistoryTransaction`,
/// `NSPersistentHistoryChange`, `NSPersistentHistoryToken`, `NSPersistentHistoryChangeRequest`).

/// One saved transaction (`NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable {
    public let transactionNumber: Int64
    /// The UUID of the store it was written to (`storeID`).
    public let storeIdentifier: String
    public let timestamp: Date
    public let author: String?
    public let contextName: String?
    public let processID: String?
    public let bundleID: String?
    /// nil when only transactions were fetched.
    public internal(set) var changes: [PersistentHistoryChange]?

    /// The token of the history up to and including this transaction.
    public var token: PersistentHistoryToken { PersistentHistoryToken(transactionNumbers: [storeIdentifier: transactionNumber]) }

    /// The transaction's object IDs as a did-save's (`objectIDNotification`), to merge into
    /// a context with `mergeChanges(from:)` or `mergeChanges(fromRemoteContextSave:into:)`.
    public func objectIDNotification() -> SavedChanges {
        var changes = SavedChanges()
        for change in self.changes ?? [] {
            switch change.changeType {
            case .insert: changes.inserted.append(change.changedObjectID)
            case .update: changes.updated.append(change.changedObjectID)
            case .delete: changes.deleted.append(change.changedObjectID)
            }
        }
        return changes
    }

    /// The transaction without its changes: what each change refers back to.
    var header: PersistentHistoryTransaction {
        var h = self
        h.changes = nil
        return h
    }
}

/// One changed object (`NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable {
    public let changeID: Int64
    public let changeType: HistoryChangeType
    public let changedObjectID: ManagedObjectID
    /// For an update: the names of the properties that changed.
    public let updatedProperties: Set<String>?
    /// For a delete: the values of the attributes kept in history
    /// (`preservesValueInHistoryOnDeletion`), by name.
    public let tombstone: [String: AttributeValue]?
    /// Shared by the changes of one transaction: one reference per change, not a copy.
    let header: TransactionHeader

    /// The transaction it belongs to (without its changes).
    public var transaction: PersistentHistoryTransaction { header.transaction }

    init(changeID: Int64, changeType: HistoryChangeType, changedObjectID: ManagedObjectID, updatedProperties: Set<String>?,
         tombstone: [String: AttributeValue]?, header: TransactionHeader) {
        self.changeID = changeID
        self.changeType = changeType
        self.changedObjectID = changedObjectID
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.header = header
    }
}

/// A transaction without its changes, held once for all of them.
final class TransactionHeader: Sendable {
    let transaction: PersistentHistoryTransaction
    init(_ transaction: PersistentHistoryTransaction) { self.transaction = transaction }
}

/// Where a history request starts or a purge stops (`fetchHistoryAfterToken:` / `Date:` /
/// `Transaction:`).
public enum HistoryPoint: Sendable {
    case token(PersistentHistoryToken)
    case date(Date)
    case transaction(PersistentHistoryTransaction)
}

/// `NSPersistentHistoryResultType`, with Apple's numbers.
public enum HistoryResultType: Int, Sendable, CaseIterable {
    case statusOnly = 0
    case objectIDs = 1
    case count = 2
    case transactionsOnly = 3
    case changesOnly = 4
    case transactionsAndChanges = 5
}

/// `NSPersistentHistoryChangeRequest`: reads the history after a point, or (with `before`)
/// deletes the history before one. A `fetchRequest` on the entity `Transaction` or
/// `Change` (`transactionFetchRequest` / `changeFetchRequest`) filters what is read.
public final class HistoryChangeRequest: @unchecked Sendable {
    public var after: HistoryPoint?
    public var before: HistoryPoint?
    public var fetchRequest: FetchRequest?
    public var resultType: HistoryResultType

    public init(after: HistoryPoint? = nil, before: HistoryPoint? = nil, fetchRequest: FetchRequest? = nil,
                resultType: HistoryResultType = .transactionsAndChanges) {
        self.after = after
        self.before = before
        self.fetchRequest = fetchRequest
        self.resultType = resultType
    }

    /// A request deleting the history before `point` (`deleteHistoryBeforeToken:` …).
    public static func deleteHistory(before point: HistoryPoint) -> HistoryChangeRequest {
        HistoryChangeRequest(before: point, resultType: .statusOnly)
    }

    /// The entity name history fetch requests use for transactions.
    public static let transactionEntityName = "Transaction"
    /// The entity name history fetch requests use for changes.
    public static let changeEntityName = "Change"

    /// The keys a transaction fetch request's predicate may use.
    public static let transactionKeys = ["author", "bundleID", "contextName", "processID", "storeID", "timestamp", "transactionNumber"]
    /// The keys a change fetch request's predicate may use.
    public static let changeKeys = ["changeID", "changeType", "changedObjectID", "entityName"]

    /// `NSPersistentHistoryTransaction.fetchRequest`.
    public static func transactionFetchRequest(predicate: ObjectPredicate? = nil) -> FetchRequest {
        FetchRequest(entityName: transactionEntityName, predicate: predicate)
    }

    /// `NSPersistentHistoryChange.fetchRequest`.
    public static func changeFetchRequest(predicate: ObjectPredicate? = nil) -> FetchRequest {
        FetchRequest(entityName: changeEntityName, predicate: predicate)
    }
}

/// What a history request returns, by its result type.
public enum HistoryResult: Sendable {
    case status(Bool)
    case count(Int)
    case objectIDs([ManagedObjectID])
    case transactions([PersistentHistoryTransaction])
    case changes([PersistentHistoryChange])
}
