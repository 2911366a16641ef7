import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_notification_* functions that go with context merging: this handle family's part of that concern.

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
