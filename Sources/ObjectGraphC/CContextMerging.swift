import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// Many contexts: merge policies and conflicts (og_context_*merge_policy, og_error_conflict_*),
// merging saves (og_changes_*, og_context_merge_*), staleness, and child contexts.

private func contextOf(_ c: OpaquePointer?) throws(ObjectGraphError) -> ManagedObjectContext {
    try handles.get(c, ContextBox.self).context
}

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

private func kindIndex(_ kind: Int32) throws(ObjectGraphError) -> Int {
    guard (0...2).contains(kind) else { throw .invalidArgument("\(kind) is not an og_change_kind") }
    return Int(kind)
}

// MARK: Merge policies

@_cdecl("og_context_merge_policy")
public func og_context_merge_policy(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        try required(out, "out").pointee = Int32(x.mergePolicy.mergeType.rawValue)
        return OG_OK
    }
}

@_cdecl("og_context_set_merge_policy")
public func og_context_set_merge_policy(_ c: OpaquePointer?, _ policy: Int32, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        guard let type = MergePolicyType(rawValue: Int(policy)) else { throw .invalidArgument("\(policy) is not an og_merge_policy (0 to 4)") }
        x.mergePolicy = MergePolicy.shared(type)
        return OG_OK
    }
}

// MARK: Conflicts of a failed save

private func conflicts(_ e: OpaquePointer?) -> [MergeConflict] {
    (try? handles.get(e, ErrorBox.self))?.error.conflicts ?? []
}

private func conflict(_ e: OpaquePointer?, _ index: Int) throws(ObjectGraphError) -> MergeConflict {
    let all = try handles.get(e, ErrorBox.self).error.conflicts
    guard index >= 0, index < all.count else { throw .invalidArgument("conflict \(index) is out of range (there are \(all.count))") }
    return all[index]
}

@_cdecl("og_error_conflict_count")
public func og_error_conflict_count(_ e: OpaquePointer?) -> Int { conflicts(e).count }

@_cdecl("og_error_conflict_object")
public func og_error_conflict_object(_ e: OpaquePointer?, _ index: Int, _ c: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let found = try conflict(e, index)
        let x = try contextOf(c)
        try x.checkThread()
        guard found.sourceObject.managedObjectContext === x else {
            throw .invalidArgument("the conflict's object belongs to another context than the one given")
        }
        return try lendObject(found.sourceObject, from: c!)
    }
}

@_cdecl("og_error_conflict_object_uri")
public func og_error_conflict_object_uri(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) { return ownedString(try conflict(e, index).sourceObject.objectID.uriRepresentation) } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_error_conflict_versions")
public func og_error_conflict_versions(_ e: OpaquePointer?, _ index: Int, _ old: UnsafeMutablePointer<Int64>?,
                                       _ new: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let found = try conflict(e, index)
        try required(old, "old_version").pointee = found.oldVersionNumber
        try required(new, "new_version").pointee = found.newVersionNumber
        return OG_OK
    }
}

private func snapshot(_ c: MergeConflict, _ which: Int32) -> [String: SnapshotValue]? {
    switch which {
    case 0: c.objectSnapshot
    case 1: c.cachedSnapshot
    case 2: c.persistedSnapshot
    default: nil
    }
}

@_cdecl("og_error_conflict_has_snapshot")
public func og_error_conflict_has_snapshot(_ e: OpaquePointer?, _ index: Int, _ which: Int32) -> Bool {
    guard let c = try? conflict(e, index) else { return false }
    return snapshot(c, which) != nil
}

/// The sorted snapshot keys of conflict `index`, kept with the error box.
private func keys(_ e: OpaquePointer?, _ index: Int) -> [CString] {
    guard let box = try? handles.get(e, ErrorBox.self) else { return [] }
    let all = box.conflictKeys
    guard index >= 0, index < all.count else { return [] }
    return all[index]
}

/// A NEW og_value holding an object ID (OG_VALUE_OBJECT_ID), which reads as its URI.
func objectIDValue(_ id: ManagedObjectID) -> OpaquePointer {
    handles.make(ValueBox(content: .object(id)))
}

@_cdecl("og_error_conflict_key_count")
public func og_error_conflict_key_count(_ e: OpaquePointer?, _ index: Int) -> Int { keys(e, index).count }

@_cdecl("og_error_conflict_key_at")
public func og_error_conflict_key_at(_ e: OpaquePointer?, _ index: Int, _ keyIndex: Int) -> UnsafePointer<CChar>? {
    let all = keys(e, index)
    guard keyIndex >= 0, keyIndex < all.count else { return nil }
    return UnsafePointer(all[keyIndex].pointer)
}

@_cdecl("og_error_conflict_value")
public func og_error_conflict_value(_ e: OpaquePointer?, _ index: Int, _ which: Int32, _ key: UnsafePointer<CChar>?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let c = try conflict(e, index)
        guard (0...2).contains(which) else { throw .invalidArgument("\(which) is not an og_conflict_snapshot") }
        guard let values = snapshot(c, which) else { throw .invalidArgument("conflict \(index) has no snapshot \(which)") }
        let name = try string(key, "the key")
        guard let value = values[name] else { throw .unknownKey(name, entity: c.sourceObject.entity.name) }
        switch value {
        case .attribute(let a): return handles.make(ValueBox(a))
        case .object(nil): return handles.make(ValueBox(.null))
        case .object(let id?): return objectIDValue(id)
        }
    }
}

// MARK: Merging saves

@_cdecl("og_notification_changes")
public func og_notification_changes(_ n: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(n, NotificationBox.self)
        let notification = box.notification
        switch notification.name {
        case .didSave:
            return handles.make(ChangesBox(saved: notification.changes))
        case .objectsDidChange:
            let saved = SavedChanges(
                inserted: notification.inserted.map(\.objectID), updated: notification.updated.map(\.objectID),
                deleted: notification.deleted.map(\.objectID))
            return handles.make(ChangesBox(ids: saved))
        case .willSave:
            throw .invalidArgument("a will-save notification carries no objects")
        }
    }
}


@_cdecl("og_changes_new")
public func og_changes_new(_ err: ErrorOut) -> OpaquePointer? {
    handles.make(ChangesBox(saved: nil))
}

@_cdecl("og_changes_add")
public func og_changes_add(_ h: OpaquePointer?, _ kind: Int32, _ uri: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, ChangesBox.self)
        let k = try kindIndex(kind)
        let text = try string(uri, "the URI")
        guard box.saved == nil else { throw .invalidArgument("a record made from a notification cannot be changed") }
        guard text.hasPrefix("x-coredata://"), text.split(separator: "/").count >= 3 else {
            throw .invalidArgument("'\(text)' is not an object ID URI (x-coredata://<store UUID>/<Entity>/p<key>)")
        }
        box.uris[k].append(text)
        box.cURIs = box.uris.map { $0.map(CString.init) }
        return OG_OK
    }
}

@_cdecl("og_changes_count")
public func og_changes_count(_ h: OpaquePointer?, _ kind: Int32) -> Int {
    guard let box = try? handles.get(h, ChangesBox.self), let k = try? kindIndex(kind) else { return 0 }
    return box.uris[k].count
}

@_cdecl("og_changes_uri_at")
public func og_changes_uri_at(_ h: OpaquePointer?, _ kind: Int32, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(h, ChangesBox.self)
        let list = box.uris[try kindIndex(kind)]
        guard index >= 0, index < list.count else { throw ObjectGraphError.invalidArgument("index \(index) is out of range (there are \(list.count))") }
        return ownedString(list[index])
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_changes_release")
public func og_changes_release(_ h: OpaquePointer?) {
    handles.release(h, ChangesBox.self)
}

@_cdecl("og_context_merge_changes")
public func og_context_merge_changes(_ c: OpaquePointer?, _ h: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
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
        for i in 0..<count { targets.append(try contextOf(contexts![i])) }
        for target in targets {
            try ManagedObjectContext.mergeChanges(fromRemoteContextSave: box.remote(for: target.persistentStoreCoordinator), into: [target])
        }
        return OG_OK
    }
}

@_cdecl("og_context_automatically_merges_changes_from_parent")
public func og_context_automatically_merges_changes_from_parent(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        try required(out, "out").pointee = x.automaticallyMergesChangesFromParent
        return OG_OK
    }
}

@_cdecl("og_context_set_automatically_merges_changes_from_parent")
public func og_context_set_automatically_merges_changes_from_parent(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        x.automaticallyMergesChangesFromParent = on
        return OG_OK
    }
}

// MARK: Staleness and faults

@_cdecl("og_context_staleness_interval")
public func og_context_staleness_interval(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        try required(out, "out").pointee = x.stalenessInterval
        return OG_OK
    }
}

@_cdecl("og_context_set_staleness_interval")
public func og_context_set_staleness_interval(_ c: OpaquePointer?, _ seconds: Double, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        guard !seconds.isNaN else { throw .invalidArgument("the staleness interval is NaN") }
        x.stalenessInterval = seconds
        return OG_OK
    }
}

@_cdecl("og_context_should_delete_inaccessible_faults")
public func og_context_should_delete_inaccessible_faults(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        try required(out, "out").pointee = x.shouldDeleteInaccessibleFaults
        return OG_OK
    }
}

@_cdecl("og_context_set_should_delete_inaccessible_faults")
public func og_context_set_should_delete_inaccessible_faults(_ c: OpaquePointer?, _ on: Bool, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try contextOf(c)
        try x.checkThread()
        x.shouldDeleteInaccessibleFaults = on
        return OG_OK
    }
}

@_cdecl("og_context_refresh_all_objects")
public func og_context_refresh_all_objects(_ c: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try contextOf(c).refreshAllObjects()
        return OG_OK
    }
}

// MARK: Child contexts

@_cdecl("og_context_new_child")
public func og_context_new_child(_ parent: OpaquePointer?, _ type: Int32, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        guard let kind = ManagedObjectContext.ConcurrencyType(rawValue: Int(type)) else {
            throw .invalidArgument("\(type) is not an og_concurrency_type")
        }
        let p = try contextOf(parent)
        return ContextHandles.make(ManagedObjectContext(parent: p, concurrencyType: kind))
    }
}

@_cdecl("og_context_has_parent")
public func og_context_has_parent(_ c: OpaquePointer?) -> Bool {
    (try? contextOf(c))?.parentContext != nil
}
