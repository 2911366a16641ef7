import FoundationEssentials

/// Persistent history at the store layer (`NSPersistentHistoryTrackingKey`): what a save
/// records and what a store gives back. The object graph turns these rows into
/// transactions, changes and tokens (Graph/PersistentHistory.swift).

/// `NSPersistentHistoryChangeType`, with Apple's numbers (`ACHANGE.ZCHANGETYPE`).
public enum HistoryChangeType: Int, Sendable, CaseIterable {
    case insert = 0
    case update = 1
    case delete = 2

    /// The name Python and the docs use.
    public var name: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

/// One changed row, as a save hands it to the store.
public struct HistoryChangeWrite {
    public var type: HistoryChangeType
    public var entity: EntityDescription
    public var primaryKey: Int64
    /// For an update: the slots (of `entity`) that changed.
    public var updatedSlots: [Int]
    /// For a delete: the stored values of the attributes that keep theirs in history
    /// (`preservesValueInHistoryOnDeletion`), by slot.
    public var tombstone: [(slot: Int, value: AttributeValue)]

    public init(type: HistoryChangeType, entity: EntityDescription, primaryKey: Int64,
                updatedSlots: [Int] = [], tombstone: [(slot: Int, value: AttributeValue)] = []) {
        self.type = type
        self.entity = entity
        self.primaryKey = primaryKey
        self.updatedSlots = updatedSlots
        self.tombstone = tombstone
    }
}

/// Who wrote a transaction: the context's `transactionAuthor` and `name`, and the process.
public struct HistoryAuthorship: Sendable, Equatable {
    public var author: String?
    public var contextName: String?
    public var processID: String?
    public var bundleID: String?

    public init(author: String? = nil, contextName: String? = nil, processID: String? = nil, bundleID: String? = nil) {
        self.author = author
        self.contextName = contextName
        self.processID = processID
        self.bundleID = bundleID
    }
}

/// A save transaction of a store that keeps persistent history.
public protocol HistoryRecordingTransaction {
    /// True when the store was added with history tracking on: the save records its changes.
    var recordsHistory: Bool { get }
    /// Records one history transaction holding `changes`, inside the save's transaction
    /// (it commits or rolls back with the rows). Returns its transaction number.
    func recordHistory(_ changes: [HistoryChangeWrite], by authorship: HistoryAuthorship, at timestamp: Date) throws(ObjectGraphError) -> Int64
}

/// A save transaction that can take over another store's history (a store copied to a
/// new file keeps its history).
public protocol HistoryCopyingTransaction: HistoryRecordingTransaction {
    /// Writes `transactions` with their numbers, makes new numbers continue above
    /// `highest`, and adds the schema migrator's marker transaction.
    func copyHistory(_ transactions: [StoredHistoryTransaction], highest: Int64) throws(ObjectGraphError)
}

/// A store that says the highest transaction number it ever gave (purged ones included).
public protocol HistoryCounting: HistoryKeepingStore {
    func highestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64
}

/// One stored change, as a store reads it back.
public struct StoredHistoryChange: Sendable {
    public var changeID: Int64
    public var type: HistoryChangeType
    /// nil when the entity number is not one of the model's (a row of an entity the model lost).
    public var entity: EntityDescription?
    public var primaryKey: Int64
    public var transactionNumber: Int64
    public var updatedProperties: [String]?
    /// For a delete: the attributes kept in history, by name.
    public var tombstone: [String: AttributeValue]?
}

/// One stored transaction.
public struct StoredHistoryTransaction: Sendable {
    public var number: Int64
    public var timestamp: Date
    public var authorship: HistoryAuthorship
    /// nil when only transactions were asked for.
    public var changes: [StoredHistoryChange]?
}

/// Where a history read starts or a purge stops: after (or before) a transaction number,
/// or a date.
public enum HistoryBoundary: Sendable, Equatable {
    case transaction(Int64)
    case date(Date)
}

/// A store that keeps persistent history and reads it back.
public protocol HistoryKeepingStore: PersistentStore {
    /// True when the store was added with `NSPersistentHistoryTrackingKey`.
    var tracksHistory: Bool { get }
    /// The transactions after `boundary` (exclusive; nil: all), oldest first, with their
    /// changes when `includingChanges`. A transaction number older than the oldest kept
    /// (purged) is 134301; one the store never wrote is 140002.
    func historyTransactions(after boundary: HistoryBoundary?, includingChanges: Bool) throws(ObjectGraphError) -> [StoredHistoryTransaction]
    /// Deletes the transactions before `boundary` (a transaction number's own transaction
    /// is kept) with their changes. Returns how many transactions went.
    func deleteHistory(before boundary: HistoryBoundary) throws(ObjectGraphError) -> Int
    /// The number of the newest transaction, nil when there is none.
    func lastHistoryTransactionNumber() throws(ObjectGraphError) -> Int64?
}

extension EntityDescription {
    /// The slots of the entity's stored properties in history order: by name, so that what
    /// history keeps by position (update bitmaps, tombstone columns) reads the same with
    /// any copy of the model, whatever order its properties were declared in.
    public var historySlots: [Int] {
        let properties = layout.properties
        return properties.indices.filter { !properties[$0].isTransient }.sorted { properties[$0].name < properties[$1].name }
    }

    /// The attribute slots whose values a delete keeps in history
    /// (`preservesValueInHistoryOnDeletion`), in history order: an SQLite store keeps the
    /// i-th in `ZTOMBSTONE<i>`.
    public var historyTombstoneSlots: [Int] {
        let properties = layout.properties
        return historySlots.filter { slot in (properties[slot] as? AttributeDescription)?.preservesValueInHistoryOnDeletion ?? false }
    }
}

/// Error 134301 (`NSPersistentHistoryTokenExpiredError`).
extension ObjectGraphError {
    static func historyTokenExpired(store: String, number: Int64, oldest: Int64?) -> ObjectGraphError {
        let kept = oldest.map { "the oldest transaction kept is \($0)" } ?? "no transaction is kept"
        return ObjectGraphError(
            code: ErrorCode.historyTokenExpired,
            message: "the history token names transaction \(number) of the store '\(store)', which was purged (\(kept)); read the history from the oldest transaction instead")
    }
}
