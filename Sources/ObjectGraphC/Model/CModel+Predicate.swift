import FoundationEssentials
import ObjectGraph

// og_model_* functions that go with predicate: this handle family's part of that concern.

@_cdecl("og_model_fetch_request_from_template")
public func og_model_fetch_request_from_template(_ m: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                                 _ values: UnsafePointer<OpaquePointer?>?, _ count: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let model = try handles.get(m, ModelBox.self).model
        let request = try model.fetchRequest(fromTemplateNamed: try string(name, "the template name"),
                                             substitutionVariables: try variables(keys, values, count))
        return handles.make(FetchRequestBox(request))
    }
}
