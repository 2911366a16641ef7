import ObjectGraph

// og_context_* functions that go with s q l debug: this handle family's part of that concern.

@_cdecl("og_context_explain")
public func og_context_explain(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let context = try handles.get(c, ContextBox.self).context
        let request = try handles.get(r, FetchRequestBox.self).request
        return ownedString(try context.explain(request).map(\.description).joined(separator: "\n\n"))
    } catch {
        report(error, err)
        return nil
    }
}
