import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// Many contexts: merge policies and conflicts (og_context_*merge_policy, og_error_conflict_*),
// merging saves (og_changes_*, og_context_merge_*), staleness, and child contexts.

/// An og_changes record: the IDs of one save, or URIs gathered by the caller.
final class ChangesBox: HandleBox {
    static let kindName = "an og_changes"
    /// Set for a record made from a notification: IDs of its coordinator.
    let saved: SavedChanges?
    /// The URIs under each og_change_kind.
    var uris: [[String]]
    lazy var cURIs: [[CString]] = uris.map { $0.map(CString.init) }

    init(saved: SavedChanges?) {
        self.saved = saved
        uris = saved.map(Self.uris) ?? [[], [], []]
    }

    /// A record of changes given as IDs of this process (not mergeable as a save).
    init(ids changes: SavedChanges) {
        saved = nil
        uris = Self.uris(changes)
    }

    private static func uris(_ changes: SavedChanges) -> [[String]] {
        [changes.inserted, changes.updated, changes.deleted].map { $0.map(\.uriRepresentation) }
    }

    /// The IDs for a context of `coordinator`: URIs of stores it does not have are skipped.
    func remote(for coordinator: PersistentStoreCoordinator) -> SavedChanges {
        let lists = uris.map { $0.compactMap { coordinator.managedObjectID(forURIRepresentation: $0) } }
        return SavedChanges(inserted: lists[0], updated: lists[1], deleted: lists[2])
    }
}

func kindIndex(_ kind: Int32) throws(ObjectGraphError) -> Int {
    guard (0...2).contains(kind) else { throw .invalidArgument("\(kind) is not an og_change_kind") }
    return Int(kind)
}

// MARK: Merge policies

@_cdecl("og_context_merge_policy")
public func og_context_merge_policy(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        try required(out, "out").pointee = Int32(x.mergePolicy.mergeType.rawValue)
        return OG_OK
    }
}

@_cdecl("og_context_set_merge_policy")
public func og_context_set_merge_policy(_ c: OpaquePointer?, _ policy: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        x.mergePolicy = MergePolicy.shared(try cEnum(policy))
        return OG_OK
    }
}

// MARK: Conflicts of a failed save

func conflicts(_ e: OpaquePointer?) -> [MergeConflict] {
    (try? handles.get(e, ErrorBox.self))?.error.conflicts ?? []
}

func conflict(_ e: OpaquePointer?, _ index: Int) throws(ObjectGraphError) -> MergeConflict {
    let all = try handles.get(e, ErrorBox.self).error.conflicts
    guard index >= 0, index < all.count else { throw .invalidArgument("conflict \(index) is out of range (there are \(all.count))") }
    return all[index]
}

func snapshot(_ c: MergeConflict, _ which: Int32) -> [String: SnapshotValue]? {
    switch which {
    case 0: c.objectSnapshot
    case 1: c.cachedSnapshot
    case 2: c.persistedSnapshot
    default: nil
    }
}

/// The sorted snapshot keys of conflict `index`, kept with the error box.
func keys(_ e: OpaquePointer?, _ index: Int) -> [CString] {
    guard let box = try? handles.get(e, ErrorBox.self) else { return [] }
    let all = box.conflictKeys
    guard index >= 0, index < all.count else { return [] }
    return all[index]
}

/// A NEW og_value holding an object ID (OG_VALUE_OBJECT_ID), which reads as its URI.
func objectIDValue(_ id: ManagedObjectID) -> OpaquePointer {
    handles.make(ValueBox(content: .object(id)))
}

// MARK: Merging saves

@_cdecl("og_context_merge_changes")
public func og_context_merge_changes(_ c: OpaquePointer?, _ h: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        let box = try handles.get(h, ChangesBox.self)
        if let saved = box.saved {
            try x.mergeChanges(from: saved)
        } else {
            try x.checkThread()
            try x.mergeChanges(from: box.remote(for: x.persistentStoreCoordinator))
        }
        return OG_OK
    }
}

@_cdecl("og_context_merge_remote_changes")
public func og_context_merge_remote_changes(_ h: OpaquePointer?, _ contexts: UnsafePointer<OpaquePointer?>?, _ count: Int,
                                            _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, ChangesBox.self)
        guard count >= 0 else { throw .invalidArgument("count is negative") }
        guard count == 0 || contexts != nil else { throw .invalidArgument("contexts is NULL") }
        var targets: [ManagedObjectContext] = []
        for i in 0..<count { targets.append(try context(contexts![i])) }
        for target in targets {
            try ManagedObjectContext.mergeChanges(fromRemoteContextSave: box.remote(for: target.persistentStoreCoordinator), into: [target])
        }
        return OG_OK
    }
}

@_cdecl("og_context_automatically_merges_changes_from_parent")
public func og_context_automatically_merges_changes_from_parent(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        try required(out, "out").pointee = x.automaticallyMergesChangesFromParent
        return OG_OK
    }
}

@_cdecl("og_context_set_automatically_merges_changes_from_parent")
public func og_context_set_automatically_merges_changes_from_parent(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        x.automaticallyMergesChangesFromParent = on
        return OG_OK
    }
}

// MARK: Staleness and faults

@_cdecl("og_context_staleness_interval")
public func og_context_staleness_interval(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        try required(out, "out").pointee = x.stalenessInterval
        return OG_OK
    }
}

@_cdecl("og_context_set_staleness_interval")
public func og_context_set_staleness_interval(_ c: OpaquePointer?, _ seconds: Double, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        guard !seconds.isNaN else { throw .invalidArgument("the staleness interval is NaN") }
        x.stalenessInterval = seconds
        return OG_OK
    }
}

@_cdecl("og_context_should_delete_inaccessible_faults")
public func og_context_should_delete_inaccessible_faults(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        try required(out, "out").pointee = x.shouldDeleteInaccessibleFaults
        return OG_OK
    }
}

@_cdecl("og_context_set_should_delete_inaccessible_faults")
public func og_context_set_should_delete_inaccessible_faults(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        x.shouldDeleteInaccessibleFaults = on
        return OG_OK
    }
}

@_cdecl("og_context_refresh_all_objects")
public func og_context_refresh_all_objects(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try context(c).refreshAllObjects()
        return OG_OK
    }
}

// MARK: Child contexts

@_cdecl("og_context_new_child")
public func og_context_new_child(_ parent: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let kind: ManagedObjectContext.ConcurrencyType = try cEnum(type)
        let p = try context(parent)
        return ContextHandles.make(ManagedObjectContext(parent: p, concurrencyType: kind))
    }
}

@_cdecl("og_context_has_parent")
public func og_context_has_parent(_ c: OpaquePointer?) -> Bool {
    (try? context(c))?.parentContext != nil
}
