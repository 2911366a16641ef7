import FoundationEssentials
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// og_incremental_store_type_register and the handles its callbacks use: incremental
// stores implemented in C (include/objectgraph.h, "Incremental stores").

typealias IncrementalCreate = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, ErrorOut) -> UnsafeMutableRawPointer?
typealias IncrementalLoadMetadata = @convention(c) (UnsafeMutableRawPointer?, ErrorOut) -> OpaquePointer?
typealias IncrementalFetch = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, ErrorOut) -> Int32
typealias IncrementalSave = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, ErrorOut) -> Int32
typealias IncrementalNewValues = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?, ErrorOut) -> Int32
typealias IncrementalRelationship = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?, ErrorOut) -> Int32
typealias IncrementalPermanentIDs = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<OpaquePointer?>?, Int, OpaquePointer?, ErrorOut) -> Int32

/// The layout of `og_incremental_store_callbacks`, version 1.
struct CIncrementalStoreCallbacks: CallbackTableLayout {
    var version: Int32
    var userdata: UnsafeMutableRawPointer?
    var create: IncrementalCreate?
    var loadMetadata: IncrementalLoadMetadata?
    var executeFetch: IncrementalFetch?
    var executeSave: IncrementalSave?
    var newValues: IncrementalNewValues?
    var newValueForRelationship: IncrementalRelationship?
    var obtainPermanentIDs: IncrementalPermanentIDs?
    var destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    var release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
}

/// A registered callback table; `release` runs when the type and its last store are gone.
typealias IncrementalCallbackTable = RegisteredCallbacks<CIncrementalStoreCallbacks>

extension RegisteredCallbacks<CIncrementalStoreCallbacks> {
    /// The error a callback reported (taken over), or one naming it when it set none.
    func failure(_ reported: OpaquePointer?, _ callback: String) -> ObjectGraphError {
        if let error = takeReported(reported) { return error }
        return ObjectGraphError(code: ErrorCode.storeOperation, message: "the \(callback) callback of the incremental store type '\(name)' failed without an error")
    }
}

/// An incremental store whose hooks are the C callbacks.
final class CallbackIncrementalStore: IncrementalStore, @unchecked Sendable {
    var table: IncrementalCallbackTable?
    var state: UnsafeMutableRawPointer?
    /// The store's handle, given to callbacks: made after `loadMetadata` (it carries the
    /// UUID), released when the store closes (the handle holds the store).
    private let handleLock = Mutex<OpaquePointer?>(nil)

    required init(setup: StoreSetup, type: String) { super.init(setup: setup, type: type) }

    deinit {
        if let table, let destroy = table.callbacks.destroy { destroy(state) }
    }

    override func close() {
        super.close()
        if let h = handleLock.withLock({ h -> OpaquePointer? in defer { h = nil }; return h }) { handles.release(h, StoreBox.self) }
    }

    private var handle: OpaquePointer {
        handleLock.withLock { h in
            if let h { return h }
            let made = handles.make(StoreBox(self))
            h = made
            return made
        }
    }

    private func callbacks() throws(ObjectGraphError) -> (IncrementalCallbackTable, CIncrementalStoreCallbacks) {
        guard let table else { throw hookMissing("its callbacks (the store was not made by its type)") }
        return (table, table.callbacks)
    }

    /// Runs a callback that answers through a result or node handle, released after it.
    private func call<Box: AnyObject>(_ box: Box, _ name: String, _ body: (OpaquePointer, ErrorOut) -> Int32) throws(ObjectGraphError) -> Box {
        let (table, _) = try callbacks()
        let h = handles.make(box)
        defer { handles.release(h, Box.self) }
        var reported: OpaquePointer? = nil
        guard body(h, &reported) == OG_OK else { throw table.failure(reported, name) }
        _ = takeReported(reported)  // set on success: dropped
        return box
    }

    private func contextHandle(_ context: ManagedObjectContext?) -> OpaquePointer? {
        context.flatMap { ContextHandles.handle(of: $0) }
    }

    override func loadMetadata() throws(ObjectGraphError) {
        let (table, c) = try callbacks()
        guard let load = c.loadMetadata else { throw hookMissing("load_metadata") }
        var reported: OpaquePointer? = nil
        guard let made = load(state, &reported) else { throw table.failure(reported, "load_metadata") }
        defer { handles.release(made, ValueBox.self) }
        guard let box = try? handles.get(made, ValueBox.self), case .dictionary(let d) = box.content else {
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "load_metadata of the incremental store type '\(table.name)' returned no dictionary value")
        }
        var metadata: [String: PropertyListValue] = [:]
        for (k, v) in d { metadata[k] = try plist(v) }
        self.metadata = metadata
    }

    override func execute(_ request: FetchRequest, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalFetchResult {
        let (_, c) = try callbacks()
        guard let fetch = c.executeFetch else { throw hookMissing("execute_fetch") }
        let requestHandle = handles.make(FetchRequestBox(request.copy()))
        defer { handles.release(requestHandle, FetchRequestBox.self) }
        let result = try call(IncrementalResultBox(store: self), "execute_fetch") { h, err in
            fetch(state, handle, requestHandle, contextHandle(context), h, err)
        }
        switch request.resultType {
        case .count: return .count(result.count ?? result.ids.count)
        case .dictionary: return .dictionaries(result.rows)
        default: return .objectIDs(result.ids)
        }
    }

    override func execute(_ request: SaveChangesRequest, context: ManagedObjectContext?) throws(ObjectGraphError) {
        let (table, c) = try callbacks()
        guard let save = c.executeSave else { throw hookMissing("execute_save") }
        let box = SaveChangesRequestBox(request, owner: contextHandle(context) ?? handle)
        let h = handles.make(box)
        defer { handles.release(h, SaveChangesRequestBox.self) }
        var reported: OpaquePointer? = nil
        guard save(state, handle, h, box.owner, &reported) == OG_OK else { throw table.failure(reported, "execute_save") }
        _ = takeReported(reported)  // set on success: dropped
    }

    override func newValues(forObjectWith id: ManagedObjectID, context: ManagedObjectContext?) throws(ObjectGraphError) -> IncrementalStoreNode {
        let (_, c) = try callbacks()
        guard let newValues = c.newValues else { throw hookMissing("new_values") }
        let node = try call(IncrementalNodeBox(store: self), "new_values") { h, err in
            id.uriRepresentation.withCString { newValues(state, handle, $0, contextHandle(context), h, err) }
        }
        return IncrementalStoreNode(objectID: id, values: node.values, version: node.version)
    }

    override func newValue(forRelationship relationship: RelationshipDescription, forObjectWith id: ManagedObjectID,
                           context: ManagedObjectContext?) throws(ObjectGraphError) -> [ManagedObjectID] {
        let (_, c) = try callbacks()
        guard let read = c.newValueForRelationship else { throw hookMissing("new_value_for_relationship") }
        let property = try handles.lend(relationship, from: handle) { PropertyBox(relationship) }
        return try call(IncrementalResultBox(store: self), "new_value_for_relationship") { h, err in
            id.uriRepresentation.withCString { read(state, handle, property, $0, contextHandle(context), h, err) }
        }.ids
    }

    override func obtainPermanentIDs(for objects: [ManagedObject]) throws(ObjectGraphError) -> [ManagedObjectID] {
        let (_, c) = try callbacks()
        guard let obtain = c.obtainPermanentIDs else { return try super.obtainPermanentIDs(for: objects) }
        let owner = objects.first?.managedObjectContext.flatMap { ContextHandles.handle(of: $0) } ?? handle
        let lent = try handles.lendObjects(objects, from: owner)
        return try call(IncrementalResultBox(store: self), "obtain_permanent_ids") { h, err in
            lent.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: OpaquePointer?.self) { obtain(state, handle, $0.baseAddress, $0.count, h, err) }
            }
        }.ids
    }

    /// A value C gave as an object ID of this store (an OG_VALUE_OBJECT_ID); nil for any other value.
    func objectID(_ content: PredicateValue) throws(ObjectGraphError) -> ManagedObjectID? {
        let uri: String
        switch content {
        case .object(let id as ManagedObjectID): uri = id.uriRepresentation
        case .object(let id as ObjectIDReference): uri = id.uriRepresentation
        default: return nil
        }
        guard let id = objectID(forURIRepresentation: uri) else {
            throw .invalidArgument("the incremental store '\(registeredType)' (\(identifier)) was given '\(uri)', which is not an object ID of this store")
        }
        return id
    }

    func objectID(uri: String) throws(ObjectGraphError) -> ManagedObjectID {
        guard let id = objectID(forURIRepresentation: uri) else {
            throw .invalidArgument("'\(uri)' is not an object ID of the incremental store '\(registeredType)' (\(identifier))")
        }
        return id
    }
}

/// Metadata values: what a property list holds.
func plist(_ v: PredicateValue) throws(ObjectGraphError) -> PropertyListValue {
    switch v {
    case .scalar(.string(let s)): return .string(s)
    case .scalar(.integer(let n)): return .integer(n)
    case .scalar(.double(let d)): return .real(d)
    case .scalar(.boolean(let b)): return .boolean(b)
    case .scalar(.date(let d)): return .date(d)
    case .scalar(.data(let d)): return .data(Array(d))
    case .collection(let items):
        var out: [PropertyListValue] = []
        for i in items { out.append(try plist(i)) }
        return .array(out)
    case .dictionary(let d):
        var out: [String: PropertyListValue] = [:]
        for (k, x) in d { out[k] = try plist(x) }
        return .dictionary(out)
    default:
        throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "a \(v.kindName) cannot be store metadata")
    }
}

/// What a fetch, relationship or permanent-IDs callback adds.
final class IncrementalResultBox: HandleBox {
    static let kindName = "an og_incremental_result"
    let store: CallbackIncrementalStore
    var ids: [ManagedObjectID] = []
    var rows: [[String: FetchedValue]] = []
    var count: Int?
    init(store: CallbackIncrementalStore) { self.store = store }
}

/// The values a new_values callback sets.
final class IncrementalNodeBox: HandleBox {
    static let kindName = "an og_incremental_node"
    let store: CallbackIncrementalStore
    var values: [String: IncrementalStoreNode.Value] = [:]
    var version: Int64 = 1
    init(store: CallbackIncrementalStore) { self.store = store }
}

/// A save request lent to execute_save; its objects are lent by `owner`.
final class SaveChangesRequestBox: HandleBox {
    static let kindName = "an og_save_changes_request"
    let request: SaveChangesRequest
    let owner: OpaquePointer
    init(_ request: SaveChangesRequest, owner: OpaquePointer) {
        self.request = request
        self.owner = owner
    }

    func objects(_ set: Int32) -> [ManagedObject] {
        switch set {
        case 1: request.insertedObjects ?? []
        case 2: request.updatedObjects ?? []
        case 3: request.deletedObjects ?? []
        case 4: request.lockedObjects ?? []
        default: []
        }
    }
}

func incrementalStore(_ s: OpaquePointer?) throws(ObjectGraphError) -> IncrementalStore {
    guard let store = try handles.get(s, StoreBox.self).store as? IncrementalStore else {
        throw .invalidArgument("the store is not an incremental store")
    }
    return store
}

@_cdecl("og_incremental_result_add_object_id")
public func og_incremental_result_add_object_id(_ r: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let result = try handles.get(r, IncrementalResultBox.self)
        result.ids.append(try result.store.objectID(uri: try string(id, "the object ID")))
        return OG_OK
    }
}

@_cdecl("og_incremental_result_add_row")
public func og_incremental_result_add_row(_ r: OpaquePointer?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let result = try handles.get(r, IncrementalResultBox.self)
        guard case .dictionary(let d) = try handles.get(v, ValueBox.self).content else {
            throw ObjectGraphError(code: ErrorCode.typeMismatch, message: "a dictionary row must be a dictionary value")
        }
        var row: [String: FetchedValue] = [:]
        for (key, value) in d {
            if let id = try result.store.objectID(value) { row[key] = .objectID(id); continue }
            switch value {
            case .scalar(let s): row[key] = .value(s)
            default: row[key] = .value(.transformable(try ValueBox.transformable(value)))
            }
        }
        result.rows.append(row)
        return OG_OK
    }
}

@_cdecl("og_incremental_result_set_count")
public func og_incremental_result_set_count(_ r: OpaquePointer?, _ n: Int64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        guard n >= 0 else { throw .invalidArgument("a count cannot be negative (\(n))") }
        try handles.get(r, IncrementalResultBox.self).count = Int(n)
        return OG_OK
    }
}

@_cdecl("og_incremental_node_set_value")
public func og_incremental_node_set_value(_ n: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ v: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let node = try handles.get(n, IncrementalNodeBox.self)
        let name = try string(key, "the property name")
        let box = try handles.get(v, ValueBox.self)
        if let id = try node.store.objectID(box.content) {
            node.values[name] = .destination(id)
        } else {
            node.values[name] = .attribute(try box.attributeValue())
        }
        return OG_OK
    }
}

@_cdecl("og_incremental_node_set_version")
public func og_incremental_node_set_version(_ n: OpaquePointer?, _ version: Int64, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try handles.get(n, IncrementalNodeBox.self).version = version
        return OG_OK
    }
}

@_cdecl("og_save_changes_request_count")
public func og_save_changes_request_count(_ r: OpaquePointer?, _ set: Int32) -> Int {
    (try? handles.get(r, SaveChangesRequestBox.self))?.objects(set).count ?? 0
}

@_cdecl("og_save_changes_request_object_at")
public func og_save_changes_request_object_at(_ r: OpaquePointer?, _ set: Int32, _ index: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let box = try handles.get(r, SaveChangesRequestBox.self)
        let objects = box.objects(set)
        guard index >= 0, index < objects.count else {
            throw .invalidArgument("object index \(index) is out of range (the set has \(objects.count))")
        }
        return try handles.lendObject(objects[index], from: box.owner)
    }
}
