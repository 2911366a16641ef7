import FoundationEssentials
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A C copy of a Swift string, freed with its owner: the storage behind every borrowed
/// `const char *` the interface returns. Every byte of the UTF-8 is kept (embedded NULs
/// included, which `length` counts), followed by a NUL.
final class CString {
    let pointer: UnsafeMutablePointer<CChar>
    let length: Int
    init(_ s: String) {
        var n = 0
        pointer = withUnsafeMutablePointer(to: &n) { ownedString(s, length: $0) }
        length = n
    }
    deinit { free(pointer) }
}

final class ErrorBox: HandleBox {
    static let kindName = "an og_error"
    let error: ObjectGraphError
    lazy var domain = CString(error.domain)
    lazy var message = CString(error.message)
    lazy var userInfo: [(CString, CString)] = error.userInfo.map { (CString($0.key), CString($0.value)) }
    lazy var details: [ErrorBox] = error.details.map(ErrorBox.init)
    /// Each merge conflict's snapshot keys, sorted, lent for the error's lifetime.
    lazy var conflictKeys: [[CString]] = error.conflicts.map { c in
        var names = Set(c.objectSnapshot.keys)
        names.formUnion(c.cachedSnapshot?.keys ?? [:].keys)
        names.formUnion(c.persistedSnapshot?.keys ?? [:].keys)
        return names.sorted().map(CString.init)
    }
    /// Each uniqueness-constraint conflict's property names, lent for the error's lifetime.
    lazy var constraintNames: [[CString]] = error.constraintConflicts.map { $0.constraint.map(CString.init) }
    init(_ error: ObjectGraphError) { self.error = error }
}

final class ValueBox: HandleBox {
    static let kindName = "an og_value"
    /// A scalar, or a collection, dictionary or managed object for predicates.
    let content: PredicateValue
    /// The scalar (an object ID reads as its URI), or nil for a value that is not one.
    var value: AttributeValue {
        if case .scalar(let v) = content { return v }
        if let uri = objectIDURI { return .uri(uri) }
        return .null
    }
    /// The scalar; a collection, dictionary, object or entity is a type mismatch.
    func scalar() throws(ObjectGraphError) -> AttributeValue {
        if let uri = objectIDURI { return .uri(uri) }
        guard case .scalar(let v) = content else {
            throw ObjectGraphError(
                domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
                message: "the value is a \(content.kindName), not a single attribute value")
        }
        return v
    }
    lazy var keys: [String] = {
        if case .dictionary(let d) = content { return d.keys.sorted() }
        return fields?.map(\.0) ?? []
    }()
    lazy var cKeys: [CString] = keys.map(CString.init)
    lazy var text: CString? = {
        switch value {
        case .string(let s): CString(s)
        case .decimal(let d): CString(d.description)
        case .uri(let u): CString(u)
        default: nil
        }
    }()
    /// A stable copy of binary data, lent to C until the value is released.
    lazy var bytes: UnsafeMutableRawBufferPointer = {
        guard case .data(let d) = value, !d.isEmpty else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: d.count, alignment: 1)
        buffer.copyBytes(from: d)
        return buffer
    }()
    /// The context handle that lends the managed objects inside the value, if any.
    var owner: OpaquePointer?
    /// Set for an object ID (OG_VALUE_OBJECT_ID): its URI, which the value also reads as.
    private(set) var objectIDURI: String?
    lazy var objectID: CString? = objectIDURI.map(CString.init)
    /// A transformable value's arrays and dictionaries become collections and dictionaries;
    /// an archived object stays a scalar (OG_VALUE_ARCHIVED_OBJECT).
    init(_ value: AttributeValue) { content = Self.content(value) }

    static func content(_ value: AttributeValue) -> PredicateValue {
        guard case .transformable(let t) = value else { return .scalar(value) }
        switch t {
        case .array(let items): return .collection(items.map { content($0.attributeValue) })
        case .dictionary(let d): return .dictionary(d.mapValues { content($0.attributeValue) })
        default: return .scalar(t.attributeValue)
        }
    }

    /// A value C gave, as a transformable value: collections are arrays; objects and
    /// entities are none.
    static func transformable(_ p: PredicateValue) throws(ObjectGraphError) -> TransformableValue {
        switch p {
        case .scalar(let v):
            if let t = TransformableValue(v) { return t }
        case .collection(let items):
            var out: [TransformableValue] = []
            for i in items { out.append(try transformable(i)) }
            return .array(out)
        case .dictionary(let d):
            var out: [String: TransformableValue] = [:]
            for (k, v) in d { out[k] = try transformable(v) }
            return .dictionary(out)
        case .object(let o):
            if let id = o as? ManagedObjectID { return .url(id.uriRepresentation) }
            if let id = o as? ObjectIDReference { return .url(id.uriRepresentation) }
        }
        throw ObjectGraphError(domain: ObjectGraphError.objectGraphDomain, code: ErrorCode.typeMismatch,
                               message: "a \(p.kindName) is not a transformable value")
    }

    /// The value to set on an attribute: a scalar, or an array or dictionary as a
    /// transformable value.
    func attributeValue() throws(ObjectGraphError) -> AttributeValue {
        switch content {
        case .collection, .dictionary: return .transformable(try Self.transformable(content))
        default: return try scalar()
        }
    }

    /// An archived object's fields, sorted by name (what og_value_count and the item
    /// and key accessors walk).
    lazy var fields: [(String, PredicateValue)]? = {
        guard case .scalar(.transformable(.object(let o))) = content else { return nil }
        return o.fields.keys.sorted().map { ($0, Self.content(o.fields[$0]!.attributeValue)) }
    }()
    lazy var className: CString? = {
        guard case .scalar(.transformable(.object(let o))) = content else { return nil }
        return CString(o.className)
    }()
    init(content: PredicateValue, owner: OpaquePointer? = nil) {
        self.content = content
        self.owner = owner
        // An object ID is a predicate constant that matches its object.
        if case .object(let o) = content {
            if let id = o as? ManagedObjectID { objectIDURI = id.uriRepresentation }
            if let id = o as? ObjectIDReference { objectIDURI = id.uriRepresentation }
        }
    }
    deinit { if case .data = value, bytes.baseAddress != nil { bytes.deallocate() } }
}

final class ModelBox: HandleBox {
    static let kindName = "an og_model"
    let model: ManagedObjectModel
    init(_ model: ManagedObjectModel) { self.model = model }
}

final class EntityBox: HandleBox {
    static let kindName = "an og_entity"
    let entity: EntityDescription
    private let names = BorrowedName()
    var name: CString { names.current(entity.name) }
    init(_ entity: EntityDescription) { self.entity = entity }
}

final class PropertyBox: HandleBox {
    static let kindName = "an og_property"
    let property: PropertyDescription
    private let names = BorrowedName()
    var name: CString { names.current(property.name) }
    init(_ property: PropertyDescription) { self.property = property }
}

/// A text C borrows while its owner lives: a name (a model object may be renamed before
/// use) or a store's path (a store may move). A new text gets a new C string and the
/// earlier ones stay valid. Locked: handles of a shared model or coordinator reach here
/// from several threads at once.
final class BorrowedName: Sendable {
    private struct Kept {
        var text: String?
        var strings: [CString] = []
    }
    private let kept = Mutex(Kept())

    func current(_ name: String) -> CString {
        kept.withLock { kept in
            if let last = kept.strings.last, kept.text == name { return last }
            kept.text = name
            kept.strings.append(CString(name))
            return kept.strings[kept.strings.count - 1]
        }
    }
}

/// A C string made at first use, once, whichever threads ask at the same time.
final class MadeOnce: Sendable {
    private let made = Mutex<CString?>(nil)

    func get(_ make: () -> String) -> CString {
        made.withLock { made in
            if let made { return made }
            let string = CString(make())
            made = string
            return string
        }
    }
}

final class CoordinatorBox: HandleBox {
    static let kindName = "an og_coordinator"
    let coordinator: PersistentStoreCoordinator
    init(_ coordinator: PersistentStoreCoordinator) { self.coordinator = coordinator }
}

final class StoreBox: HandleBox {
    static let kindName = "an og_store"
    let store: PersistentStore
    // Made with the box: a store handle may be read from several threads at once.
    let type: CString
    let uuid: CString
    let configuration: CString?
    /// Every path the store had: a moved store's earlier paths stay valid for callers
    /// that still hold them, until the coordinator goes.
    private let paths = BorrowedName()
    var path: CString { paths.current(store.path) }
    init(_ store: PersistentStore) {
        self.store = store
        type = CString(store.type)
        uuid = CString(store.identifier)
        configuration = store.configurationName.map(CString.init)
    }
}

final class ContextBox: HandleBox {
    static let kindName = "an og_context"
    let context: ManagedObjectContext
    /// The closures C registered per entity, merged into one ObjectHooks each.
    var hooks: [String: ObjectHooks] = [:]
    /// The handle of the undo manager C set on the context (og_context_undo_manager lends it back).
    var undoManagerHandle: OpaquePointer?
    init(_ context: ManagedObjectContext) { self.context = context }
    deinit { ContextHandles.forget(context) }
}

/// The handle C holds for each context it made, so callbacks the library makes on a
/// context's behalf (an incremental store's) can hand C that context.
enum ContextHandles {
    private static let table = Mutex<[ObjectIdentifier: UInt]>([:])

    /// Makes the handle of a context C creates.
    static func make(_ context: ManagedObjectContext) -> OpaquePointer {
        let h = handles.make(ContextBox(context))
        table.withLock { $0[ObjectIdentifier(context)] = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h))) }
        return h
    }

    static func forget(_ context: ManagedObjectContext) {
        _ = table.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
    }

    /// The live handle C holds for `context`, or nil.
    static func handle(of context: ManagedObjectContext) -> OpaquePointer? {
        guard let raw = table.withLock({ $0[ObjectIdentifier(context)] }), let h = OpaquePointer(bitPattern: raw),
            (try? handles.get(h, ContextBox.self))?.context === context
        else { return nil }
        return h
    }
}

/// A notification lent to an observer callback for the duration of the call.
final class NotificationBox: HandleBox {
    static let kindName = "an og_notification"
    let notification: ContextNotification
    let contextHandle: OpaquePointer
    init(_ notification: ContextNotification, contextHandle: OpaquePointer) {
        self.notification = notification
        self.contextHandle = contextHandle
    }
}

final class FetchRequestBox: HandleBox {
    static let kindName = "an og_fetch_request"
    let request: FetchRequest
    /// The strings the request lent C (its entity name, sort keys), kept while it lives.
    private let strings = Mutex<[String: CString]>([:])
    init(_ request: FetchRequest) { self.request = request }

    /// `text` as a C string the request lends.
    func lent(_ text: String) -> CString {
        strings.withLock { made in
            if let known = made[text] { return known }
            let c = CString(text)
            made[text] = c
            return c
        }
    }
}

final class ResultsBox: HandleBox {
    static let kindName = "an og_results"
    let objects: [ManagedObject]
    /// The context handle that lends the objects.
    let contextHandle: OpaquePointer
    /// Whether every object was lent at once (`lendAll`), at the first `og_results_object_at`:
    /// each object then remembers its handle, so the result keeps no list of them (read and
    /// written under the handle table's lock).
    var lentAll = false
    init(_ objects: [ManagedObject], contextHandle: OpaquePointer) {
        self.objects = objects
        self.contextHandle = contextHandle
    }
}

/// An og_object handle holds its managed object itself, with no box around it: a read
/// through the handle then touches one allocation less.
extension ManagedObject: HandleBox {
    static var kindName: String { "an og_object" }
}

final class PredicateBox: HandleBox {
    static let kindName = "an og_predicate"
    let predicate: ObjectPredicate
    private let formatText = MadeOnce()
    /// Made at first use, once: a predicate may be shared by threads.
    var format: CString { formatText.get { predicate.predicateFormat } }
    init(_ predicate: ObjectPredicate) { self.predicate = predicate }
}
