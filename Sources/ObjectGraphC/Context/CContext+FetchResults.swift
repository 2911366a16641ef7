import FoundationEssentials
import ObjectGraph

// og_context_* functions that go with fetch results: this handle family's part of that concern.

@_cdecl("og_context_fetch_object_ids")
public func og_context_fetch_object_ids(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let context = try handles.get(c, ContextBox.self).context
        return handles.make(ObjectIDsBox(try context.fetchObjectIDs(try fetchRequest(r))))
    }
}

@_cdecl("og_context_fetch_dictionaries")
public func og_context_fetch_dictionaries(_ c: OpaquePointer?, _ r: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let context = try handles.get(c, ContextBox.self).context
        let req = try fetchRequest(r)
        let rows = try context.fetchDictionaries(req)
        var keys = rows.first?.keys ?? []
        if rows.isEmpty { keys = try context.dictionaryKeys(for: req) }
        return handles.make(RowsBox(rows, keys: keys))
    }
}
