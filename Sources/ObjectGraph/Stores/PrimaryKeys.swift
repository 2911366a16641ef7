/// Primary keys run from 1 to `Int64.max` in each hierarchy, handed out upwards. The
/// counters come from files (`Z_PRIMARYKEY.Z_MAX`, a Binary store's rows, a custom
/// store's `newReferenceObjects`), so their arithmetic is checked: a hierarchy whose
/// keys are used up, or a counter that is not one, fails the save with 134030.
enum PrimaryKeys {
    /// The first of `count` keys after `largest`, the largest key handed out so far.
    static func first(after largest: Int64, count: Int, root: EntityDescription, store: String) throws(ObjectGraphError) -> Int64 {
        guard largest >= 0 else {
            throw ObjectGraphError(
                code: ErrorCode.storeSave,
                message: "the store '\(store)' is damaged: the primary-key counter of '\(root.rootEntity.name)' is \(largest)",
                userInfo: [(ErrorUserInfoKey.entity, root.rootEntity.name), (ErrorUserInfoKey.filePath, store)])
        }
        let (first, overflow) = largest.addingReportingOverflow(1)
        guard !overflow else { throw usedUp(root, count, largest, store) }
        _ = try last(first: first, count: count, root: root, store: store, largest: largest)
        return first
    }

    /// The last of `count` keys starting at `first`, when they are all keys.
    static func last(first: Int64, count: Int, root: EntityDescription, store: String, largest: Int64? = nil) throws(ObjectGraphError) -> Int64 {
        guard first >= 1, count >= 0 else {
            throw ObjectGraphError(
                code: ErrorCode.storeSave,
                message: "the store '\(store)' handed out primary key \(first) for '\(root.rootEntity.name)'; keys start at 1",
                userInfo: [(ErrorUserInfoKey.entity, root.rootEntity.name), (ErrorUserInfoKey.filePath, store)])
        }
        guard count > 0 else { return first - 1 }
        let (last, overflow) = first.addingReportingOverflow(Int64(count) - 1)
        guard !overflow else { throw usedUp(root, count, largest ?? first - 1, store) }
        return last
    }

    private static func usedUp(_ root: EntityDescription, _ count: Int, _ largest: Int64, _ store: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeSave,
            message: "the store '\(store)' has no primary keys left for \(count) new object(s) of '\(root.rootEntity.name)': the largest key handed out is \(largest) (the largest possible is \(Int64.max))",
            userInfo: [(ErrorUserInfoKey.entity, root.rootEntity.name), (ErrorUserInfoKey.filePath, store)])
    }
}

/// A store whose primary-key counters can be read, so a copy keeps them
/// (`migratePersistentStore`): IDs handed out once are never handed out again.
protocol KeyCounterReading {
    /// The largest primary key handed out in the hierarchy of `root`.
    func largestPrimaryKey(for root: EntityDescription) throws(ObjectGraphError) -> Int64
}

/// A save transaction that can raise a hierarchy's primary-key counter.
protocol KeyCounterWriting {
    func raiseKeyCounter(for root: EntityDescription, to key: Int64) throws(ObjectGraphError)
}
