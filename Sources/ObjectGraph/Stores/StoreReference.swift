import FoundationEssentials
import Synchronization

/// What an incremental store names one of its objects by (Core Data's reference object):
/// a row's key in another database, a file name, a web service's identifier. Equal
/// references of one entity hierarchy in one store name the same object.
public enum StoreReference: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case data([UInt8])
    case uuid(UUID)

    /// The text Core Data writes for the reference: a string as it is, a number in
    /// decimal, bytes as `<01abff>` (a space after every fourth byte), a UUID in capitals.
    public var description: String {
        switch self {
        case .string(let s): return s
        case .integer(let n): return String(n)
        case .uuid(let u): return u.uuidString
        case .data(let bytes):
            var text = "<"
            for (i, b) in bytes.enumerated() {
                if i > 0 && i % 4 == 0 { text += " " }
                text += Self.hex(b, uppercase: false)
            }
            return text + ">"
        }
    }

    /// The reference's text as an object ID URI carries it after `p`, percent-escaped as
    /// a URL path is (`"key with/slash"` gives `key%20with/slash`).
    var uriText: String { Self.escape(description) }

    /// Two hex digits.
    private static func hex(_ b: UInt8, uppercase: Bool) -> String {
        let digits = String(b, radix: 16, uppercase: uppercase)
        return b < 16 ? "0" + digits : digits
    }

    /// Bytes a URL path keeps as they are: letters, digits and `-._~!$&'()*+,;=:@/`.
    private static let kept: Set<UInt8> = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/".utf8)

    static func escape(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            if kept.contains(b) { out.unicodeScalars.append(UnicodeScalar(b)) } else { out += "%" + hex(b, uppercase: true) }
        }
        return out
    }

    /// `text` with its `%XX` escapes decoded; nil when an escape is malformed or the
    /// result is not UTF-8.
    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let b = utf8.popFirst() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard utf8.count >= 2, let v = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(v)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The primary keys an incremental store gave its references: the engine keys objects by
/// (hierarchy, primary key), so each new reference of a hierarchy gets the next key, for
/// as long as the store is open. Safe to use from several threads.
final class StoreReferenceKeys: @unchecked Sendable {
    private struct Table {
        var keys: [ObjectIdentifier: [StoreReference: Int64]] = [:]
        /// Each key's reference and the entity it was first given for (the object's own).
        var references: [ObjectIdentifier: [Int64: (reference: StoreReference, entity: EntityDescription)]] = [:]
        /// Keys by their URI text: a URI names the object its text was first made for.
        var byURIText: [ObjectIdentifier: [String: Int64]] = [:]
    }

    private let table = Mutex(Table())
    /// The store's model, for URIs that name entities by name.
    weak var model: ManagedObjectModel?

    /// The key of `reference` in the hierarchy of `entity`, given now if it had none.
    func key(for reference: StoreReference, in entity: EntityDescription) -> Int64 {
        let root = ObjectIdentifier(entity.rootEntity)
        return table.withLock { t in
            if let known = t.keys[root]?[reference] { return known }
            let key = Int64(t.keys[root]?.count ?? 0) + 1
            t.keys[root, default: [:]][reference] = key
            t.references[root, default: [:]][key] = (reference, entity)
            if t.byURIText[root]?[reference.uriText] == nil { t.byURIText[root, default: [:]][reference.uriText] = key }
            return key
        }
    }

    /// The key of the object whose URI carries `text` after `p`: the reference it was made
    /// for, or else a new string reference of the unescaped text. nil for a malformed escape.
    func key(forURIText text: Substring, in entity: EntityDescription) -> Int64? {
        if let known = table.withLock({ $0.byURIText[ObjectIdentifier(entity.rootEntity)]?[String(text)] }) { return known }
        guard let unescaped = StoreReference.unescape(text) else { return nil }
        return key(for: .string(unescaped), in: entity)
    }

    /// The reference that was given `key` in the hierarchy of `entity`, and the entity
    /// it was given for.
    func reference(for key: Int64, in entity: EntityDescription) -> (reference: StoreReference, entity: EntityDescription)? {
        table.withLock { $0.references[ObjectIdentifier(entity.rootEntity)]?[key] }
    }
}

/// The reference tables of the open incremental stores by store UUID, so an object ID's
/// URI names its reference (`p<reference>`) as Core Data's does. Empty, and never
/// locked, until an incremental store opens.
enum StoreReferenceURIs {
    private static let stores = Mutex<[String: StoreReferenceKeys]>([:])
    private static let count = Atomic<Int>(0)
    /// URIs read without a coordinator (predicate arguments from C and Python) find their keys here.
    private static let installed: Void = ObjectURIKeys.install { store, entityName, text in
        guard let keys = keys(ofStore: String(store)), let entity = keys.model?.entity(named: String(entityName)) else { return nil }
        return keys.key(forURIText: text, in: entity)
    }

    static func attach(_ keys: StoreReferenceKeys, storeIdentifier: String) {
        _ = installed
        stores.withLock { s in
            if s.updateValue(keys, forKey: storeIdentifier) == nil { count.add(1, ordering: .relaxed) }
        }
    }

    /// Forgets `keys` (a store going away); a newer store with the same UUID stays.
    static func detach(_ keys: StoreReferenceKeys, storeIdentifier: String) {
        stores.withLock { s in
            guard let known = s[storeIdentifier], known === keys else { return }
            s.removeValue(forKey: storeIdentifier)
            count.subtract(1, ordering: .relaxed)
        }
    }

    static func keys(ofStore identifier: String?) -> StoreReferenceKeys? {
        guard let identifier, count.load(ordering: .relaxed) > 0 else { return nil }
        return stores.withLock { $0[identifier] }
    }

    /// What follows `p` in the URI of the object `primaryKey` of `entity`'s hierarchy in
    /// the store `identifier`: its reference's text for an incremental store; nil otherwise.
    static func uriText(store identifier: String?, entity: EntityDescription, primaryKey: Int64) -> String? {
        keys(ofStore: identifier)?.reference(for: primaryKey, in: entity)?.reference.uriText
    }
}
