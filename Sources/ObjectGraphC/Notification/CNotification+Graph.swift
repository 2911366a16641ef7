import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_notification_* functions that go with graph: this handle family's part of that concern.

@_cdecl("og_notification_kind_of")
public func og_notification_kind_of(_ n: OpaquePointer?) -> Int32 {
    guard let box = try? notification(n) else { return -1 }
    return Int32(box.notification.name.rawValue)
}

@_cdecl("og_notification_count")
public func og_notification_count(_ n: OpaquePointer?, _ key: Int32) -> Int {
    guard let box = try? notification(n) else { return 0 }
    return list(box.notification, key)?.count ?? 0
}

@_cdecl("og_notification_object_at")
public func og_notification_object_at(_ n: OpaquePointer?, _ key: Int32, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try notification(n)
        guard let objects = list(box.notification, key) else { throw .invalidArgument("\(key) is not an og_notification_key") }
        guard index >= 0, index < objects.count else { throw .invalidArgument("index \(index) is out of range (there are \(objects.count))") }
        return try lendObject(objects[index], from: box.contextHandle)
    }
}

@_cdecl("og_notification_invalidated_all")
public func og_notification_invalidated_all(_ n: OpaquePointer?) -> Bool {
    (try? notification(n))?.notification.invalidatedAll ?? false
}
