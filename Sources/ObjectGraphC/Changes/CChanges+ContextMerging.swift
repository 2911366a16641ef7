import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_changes_* functions that go with context merging: this handle family's part of that concern.

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
