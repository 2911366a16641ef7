import ObjectGraph

// og_entity_*fetch_index*: an entity's fetch indexes, read one part at a time and set
// all at once from an array of og_fetch_index (include/objectgraph.h).

/// og_fetch_index_element's layout.
struct CFetchIndexElement {
    var property: UnsafePointer<CChar>?
    var collation: Int32
    var ascending: Bool
}

/// og_fetch_index's layout.
struct CFetchIndex {
    var name: UnsafePointer<CChar>?
    var elements: UnsafePointer<CFetchIndexElement>?
    var elementCount: Int
    var partialPredicate: UnsafePointer<CChar>?
}


func fetchIndex(_ e: OpaquePointer?, _ index: Int) throws(ObjectGraphError) -> FetchIndexDescription {
    let all = try entity(e).fetchIndexes
    guard index >= 0, index < all.count else { throw .invalidArgument("fetch index \(index) is out of range (there are \(all.count))") }
    return all[index]
}

/// og_index_collation's values, NSFetchIndexElementType's numbers.
func collation(_ raw: Int32) throws(ObjectGraphError) -> FetchIndexDescription.Collation {
    switch raw {
    case 0: return .binary
    case 1: return .rtree
    default: throw .invalidArgument("\(raw) is not an index collation (OG_INDEX_BINARY or OG_INDEX_RTREE)")
    }
}

@_cdecl("og_entity_fetch_index_count")
public func og_entity_fetch_index_count(_ e: OpaquePointer?) -> Int { (try? entity(e))?.fetchIndexes.count ?? 0 }

@_cdecl("og_entity_fetch_index_name")
public func og_entity_fetch_index_name(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try fetchIndex(e, index).name }
}

@_cdecl("og_entity_fetch_index_partial_predicate")
public func og_entity_fetch_index_partial_predicate(_ e: OpaquePointer?, _ index: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    text(err) { () throws(ObjectGraphError) in try fetchIndex(e, index).partialPredicate }
}

@_cdecl("og_entity_fetch_index_element_count")
public func og_entity_fetch_index_element_count(_ e: OpaquePointer?, _ index: Int) -> Int {
    (try? fetchIndex(e, index))?.elements.count ?? 0
}

@_cdecl("og_entity_fetch_index_element_at")
public func og_entity_fetch_index_element_at(
    _ e: OpaquePointer?, _ index: Int, _ element: Int, _ property: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ collationOut: UnsafeMutablePointer<Int32>?, _ ascending: UnsafeMutablePointer<Bool>?, _ err: ErrorOut
) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let elements = try fetchIndex(e, index).elements
        guard element >= 0, element < elements.count else {
            throw .invalidArgument("element \(element) is out of range (fetch index \(index) has \(elements.count))")
        }
        let out = (try required(property, "property"), try required(collationOut, "collation"), try required(ascending, "ascending"))
        let el = elements[element]
        out.1.pointee = el.collation == .rtree ? 1 : 0
        out.2.pointee = el.ascending
        out.0.pointee = ownedString(el.property)
    }
}

@_cdecl("og_entity_set_fetch_indexes")
public func og_entity_set_fetch_indexes(_ e: OpaquePointer?, _ indexes: UnsafeRawPointer?, _ count: Int, _ err: ErrorOut) -> Int32 {
    setter(err) { () throws(ObjectGraphError) in
        let x = try entity(e)
        guard count >= 0 else { throw .invalidArgument("the count \(count) is negative") }
        guard count == 0 || indexes != nil else { throw .invalidArgument("indexes is NULL but the count is \(count)") }
        var list: [FetchIndexDescription] = []
        for i in 0..<count {
            let raw = indexes!.assumingMemoryBound(to: CFetchIndex.self)[i]
            let name = try string(raw.name, "indexes[\(i)].name")
            guard raw.elementCount > 0 else { throw .invalidArgument("fetch index '\(name)' has no elements") }
            guard let elements = raw.elements else { throw .invalidArgument("indexes[\(i)].elements is NULL") }
            var parsed: [FetchIndexDescription.Element] = []
            for j in 0..<raw.elementCount {
                let el = elements[j]
                parsed.append(.init(
                    property: try string(el.property, "indexes[\(i)].elements[\(j)].property"), ascending: el.ascending,
                    collation: try collation(el.collation)))
            }
            list.append(FetchIndexDescription(name: name, elements: parsed, partialPredicate: try optionalString(raw.partialPredicate, "indexes[\(i)].partial_predicate")))
        }
        try x.setFetchIndexes(list)
    }
}
