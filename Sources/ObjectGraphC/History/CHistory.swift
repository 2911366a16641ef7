import FoundationEssentials
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

// og_history_* and og_history_token_*, with the og_context and og_coordinator functions that
// read, purge and locate persistent history (include/objectgraph.h, "History").

/// The transactions one history read returned, with their strings kept for lending and
/// their changes laid out flat, so that reading a change copies nothing.
final class HistoryBox: HandleBox {
    static let kindName = "an og_history"
    let transactions: [PersistentHistoryTransaction]
    /// Per transaction: author, context name, process ID, bundle ID, store UUID (og_history_field order).
    let strings: [[CString?]]
    /// Where each transaction's changes start in the flat arrays (one more entry: the end).
    private let starts: [Int]
    let kinds: [Int32]
    let changeIDs: [Int64]
    /// Per change, the changed object's primary key (no reference per change to copy).
    let keys: [Int64]
    /// Per change, the index of its entity in `entityList` (og_history_entity_name).
    let entityIndexes: [Int32]
    /// The entities the changes name, in the order first met.
    let entityList: [CString]
    /// The updated property names of the update changes, sorted, by flat index.
    let updated: [Int: [CString]]

    init(_ transactions: [PersistentHistoryTransaction]) {
        self.transactions = transactions
        strings = transactions.map { t in
            [t.author, t.contextName, t.processID, t.bundleID, t.storeIdentifier].map { $0.map(CString.init) }
        }
        let total = transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) }
        var starts: [Int] = [0], kinds: [Int32] = [], ids: [Int64] = [], keys: [Int64] = []
        var updated: [Int: [CString]] = [:]
        var indexes: [Int32] = [], entityList: [CString] = [], indexOf: [ObjectIdentifier: Int32] = [:]
        var last: (entity: EntityDescription, index: Int32)? = nil
        indexes.reserveCapacity(total)
        starts.reserveCapacity(transactions.count + 1)
        kinds.reserveCapacity(total)
        ids.reserveCapacity(total)
        keys.reserveCapacity(total)
        for t in transactions {
            for c in t.changes ?? [] {
                if let names = c.updatedProperties { updated[kinds.count] = names.sorted().map(CString.init) }
                kinds.append(Int32(c.changeType.rawValue))
                ids.append(c.changeID)
                keys.append(c.changedObjectID.primaryKey)
                let entity = c.changedObjectID.entity
                if last?.entity !== entity {
                    let index = indexOf[ObjectIdentifier(entity)] ?? Int32(entityList.count)
                    if index == Int32(entityList.count) {
                        entityList.append(CString(entity.name))
                        indexOf[ObjectIdentifier(entity)] = index
                    }
                    last = (entity, index)
                }
                indexes.append(last!.index)
            }
            starts.append(kinds.count)
        }
        self.starts = starts
        self.kinds = kinds
        changeIDs = ids
        self.keys = keys
        entityIndexes = indexes
        self.entityList = entityList
        self.updated = updated
    }

    /// The flat range of changes `first` ..< `first + count` of transaction `t`.
    func changes(_ t: Int, _ first: Int, _ count: Int) throws(ObjectGraphError) -> Range<Int> {
        _ = try transaction(t)
        let held = starts[t + 1] - starts[t]
        guard first >= 0, count >= 0, first <= held, count <= held - first else {
            throw .invalidArgument("changes \(first) to \(first + count - 1) are out of range (transaction \(t) holds \(held))")
        }
        return (starts[t] + first)..<(starts[t] + first + count)
    }

    func transaction(_ t: Int) throws(ObjectGraphError) -> PersistentHistoryTransaction {
        guard t >= 0, t < transactions.count else {
            throw .invalidArgument("transaction index \(t) is out of range (the history holds \(transactions.count))")
        }
        return transactions[t]
    }

    func changeCount(_ t: Int) -> Int {
        t >= 0 && t < transactions.count ? starts[t + 1] - starts[t] : 0
    }

    /// The flat index of change `c` of transaction `t`.
    func change(_ t: Int, _ c: Int) throws(ObjectGraphError) -> Int {
        _ = try transaction(t)
        let count = starts[t + 1] - starts[t]
        guard c >= 0, c < count else {
            throw .invalidArgument("change index \(c) is out of range (transaction \(t) holds \(count))")
        }
        return starts[t] + c
    }
}

/// og_history_field: the strings of a transaction, in the order HistoryBox keeps them.
enum HistoryField: Int {
    case author = 0, contextName, processID, bundleID, storeUUID
}

final class HistoryTokenBox: HandleBox {
    static let kindName = "an og_history_token"
    let token: PersistentHistoryToken
    init(_ token: PersistentHistoryToken) { self.token = token }
}

/// Seconds since 1970 (the C interface's dates) as a Date; NaN and infinities are refused.
private func date(_ seconds: Double) throws(ObjectGraphError) -> Date {
    guard seconds.isFinite else { throw .invalidArgument("the date must be a finite number of seconds since 1970") }
    return Date(timeIntervalSince1970: seconds)
}

private func read(_ c: OpaquePointer?, _ point: HistoryPoint?, _ filter: OpaquePointer?) throws(ObjectGraphError) -> OpaquePointer {
    let x = try context(c)
    let request = try filter.map { (r) throws(ObjectGraphError) in try fetchRequest(r) }
    return handles.make(HistoryBox(try x.history(after: point, fetchRequest: request)))
}

// MARK: og_context

@_cdecl("og_context_history")
public func og_context_history(_ c: OpaquePointer?, _ after: OpaquePointer?, _ filter: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        let point = try after.map { (t) throws(ObjectGraphError) in HistoryPoint.token(try handles.get(t, HistoryTokenBox.self).token) }
        return try read(c, point, filter)
    }
}

@_cdecl("og_context_history_after_date")
public func og_context_history_after_date(_ c: OpaquePointer?, _ seconds: Double, _ filter: OpaquePointer?, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in try read(c, .date(try date(seconds)), filter) }
}

@_cdecl("og_context_delete_history")
public func og_context_delete_history(_ c: OpaquePointer?, _ before: OpaquePointer?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.deleteHistory(before: .token(try handles.get(before, HistoryTokenBox.self).token))
        return OG_OK
    }
}

@_cdecl("og_context_delete_history_before_date")
public func og_context_delete_history_before_date(_ c: OpaquePointer?, _ seconds: Double, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.deleteHistory(before: .date(try date(seconds)))
        return OG_OK
    }
}

@_cdecl("og_context_transaction_author")
public func og_context_transaction_author(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        return nullable(try required(out, "out"), x.transactionAuthor.map { ownedString($0) })
    }
}

@_cdecl("og_context_set_transaction_author")
public func og_context_set_transaction_author(_ c: OpaquePointer?, _ author: UnsafePointer<CChar>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let x = try context(c)
        try x.checkThread()
        x.transactionAuthor = try author.map { p throws(ObjectGraphError) in try string(p, "the author") }
        return OG_OK
    }
}

// MARK: og_coordinator

@_cdecl("og_coordinator_current_history_token")
public func og_coordinator_current_history_token(_ c: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let coordinator = try handles.get(c, CoordinatorBox.self).coordinator
        let target = try required(out, "out")
        return nullable(target, try coordinator.currentPersistentHistoryToken().map { handles.make(HistoryTokenBox($0)) })
    }
}

// MARK: og_history

@_cdecl("og_history_count")
public func og_history_count(_ h: OpaquePointer?) -> Int {
    (try? handles.get(h, HistoryBox.self))?.transactions.count ?? 0
}

@_cdecl("og_history_transaction_number")
public func og_history_transaction_number(_ h: OpaquePointer?, _ t: Int, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try required(out, "out").pointee = try handles.get(h, HistoryBox.self).transaction(t).transactionNumber
        return OG_OK
    }
}

@_cdecl("og_history_transaction_timestamp")
public func og_history_transaction_timestamp(_ h: OpaquePointer?, _ t: Int, _ out: UnsafeMutablePointer<Double>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        try required(out, "out").pointee = try handles.get(h, HistoryBox.self).transaction(t).timestamp.timeIntervalSince1970
        return OG_OK
    }
}

@_cdecl("og_history_transaction_string")
public func og_history_transaction_string(_ h: OpaquePointer?, _ t: Int, _ field: Int32, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                          _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        _ = try box.transaction(t)
        let f = try cEnum(field, HistoryField.self).rawValue
        return nullable(try required(out, "out"), box.strings[t][f].map { UnsafePointer($0.pointer) })
    }
}

@_cdecl("og_history_transaction_token")
public func og_history_transaction_token(_ h: OpaquePointer?, _ t: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in handles.make(HistoryTokenBox(try handles.get(h, HistoryBox.self).transaction(t).token)) }
}

@_cdecl("og_history_transaction_changes")
public func og_history_transaction_changes(_ h: OpaquePointer?, _ t: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        handles.make(ChangesBox(ids: try handles.get(h, HistoryBox.self).transaction(t).objectIDNotification()))
    }
}

@_cdecl("og_history_change_count")
public func og_history_change_count(_ h: OpaquePointer?, _ t: Int) -> Int {
    (try? handles.get(h, HistoryBox.self))?.changeCount(t) ?? 0
}

@_cdecl("og_history_change_type")
public func og_history_change_type(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ out: UnsafeMutablePointer<Int32>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        try required(out, "out").pointee = box.kinds[try box.change(t, c)]
        return OG_OK
    }
}

@_cdecl("og_history_change_id")
public func og_history_change_id(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ out: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        try required(out, "out").pointee = box.changeIDs[try box.change(t, c)]
        return OG_OK
    }
}

@_cdecl("og_history_change_object_uri")
public func og_history_change_object_uri(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ err: ErrorOut) -> UnsafeMutablePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(h, HistoryBox.self)
        _ = try box.change(t, c)  // checks both indexes
        return ownedString(box.transactions[t].changes![c].changedObjectID.uriRepresentation)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_history_changes")
public func og_history_changes(_ h: OpaquePointer?, _ t: Int, _ first: Int, _ count: Int, _ kinds: UnsafeMutablePointer<Int32>?,
                               _ ids: UnsafeMutablePointer<Int64>?, _ keys: UnsafeMutablePointer<Int64>?,
                               _ entities: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        let range = try box.changes(t, first, count)
        for (i, c) in range.enumerated() {
            kinds?[i] = box.kinds[c]
            ids?[i] = box.changeIDs[c]
            keys?[i] = box.keys[c]
            entities?[i] = Int(box.entityIndexes[c])
        }
        return OG_OK
    }
}

@_cdecl("og_history_entity_name")
public func og_history_entity_name(_ h: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let box = try? handles.get(h, HistoryBox.self), index >= 0, Int(index) < box.entityList.count else { return nil }
    return UnsafePointer(box.entityList[Int(index)].pointer)
}

@_cdecl("og_history_change_object")
public func og_history_change_object(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ entity: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                     _ key: UnsafeMutablePointer<Int64>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        let i = try box.change(t, c)
        let outEntity = try required(entity, "entity"), outKey = try required(key, "primary_key")
        outEntity.pointee = UnsafePointer(box.entityList[Int(box.entityIndexes[i])].pointer)
        outKey.pointee = box.keys[i]
        return OG_OK
    }
}

@_cdecl("og_history_change_updated_count")
public func og_history_change_updated_count(_ h: OpaquePointer?, _ t: Int, _ c: Int) -> Int {
    guard let box = try? handles.get(h, HistoryBox.self), let i = try? box.change(t, c) else { return 0 }
    return box.updated[i]?.count ?? 0
}

@_cdecl("og_history_change_updated_at")
public func og_history_change_updated_at(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ i: Int, _ err: ErrorOut) -> UnsafePointer<CChar>? {
    do throws(ObjectGraphError) {
        let box = try handles.get(h, HistoryBox.self)
        let names = box.updated[try box.change(t, c)] ?? []
        guard i >= 0, i < names.count else { throw ObjectGraphError.invalidArgument("property index \(i) is out of range (the change updated \(names.count))") }
        return UnsafePointer(names[i].pointer)
    } catch {
        report(error, err)
        return nil
    }
}

@_cdecl("og_history_change_tombstone")
public func og_history_change_tombstone(_ h: OpaquePointer?, _ t: Int, _ c: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let box = try handles.get(h, HistoryBox.self)
        _ = try box.change(t, c)  // checks both indexes
        let change = box.transactions[t].changes![c]
        let target = try required(out, "out")
        return nullable(target, change.tombstone.map { handles.make(ValueBox(content: .dictionary($0.mapValues { .scalar($0) }))) })
    }
}

@_cdecl("og_history_release")
public func og_history_release(_ h: OpaquePointer?) {
    handles.release(h, HistoryBox.self)
}

// MARK: og_history_token

@_cdecl("og_history_token_archive")
public func og_history_token_archive(_ h: OpaquePointer?, _ bytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                     _ length: UnsafeMutablePointer<Int>?, _ err: ErrorOut) -> Int32 {
    status(err) { () throws(ObjectGraphError) in
        let archive = try handles.get(h, HistoryTokenBox.self).token.archived
        let outBytes = try required(bytes, "bytes"), outLength = try required(length, "length")
        let raw = malloc(max(archive.count, 1))!
        archive.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: archive.count) }
        outBytes.pointee = raw
        outLength.pointee = archive.count
        return OG_OK
    }
}

@_cdecl("og_history_token_from_archive")
public func og_history_token_from_archive(_ bytes: UnsafeRawPointer?, _ length: Int, _ err: ErrorOut) -> OpaquePointer? {
    handle(err) { () throws(ObjectGraphError) in
        guard length >= 0, bytes != nil || length == 0 else { throw .invalidArgument("the archive is NULL") }
        let archive = length == 0 ? [] : Array(UnsafeRawBufferPointer(start: bytes, count: length))
        return handles.make(HistoryTokenBox(try PersistentHistoryToken(archive: archive)))
    }
}

@_cdecl("og_history_token_equal")
public func og_history_token_equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
    guard let x = try? handles.get(a, HistoryTokenBox.self), let y = try? handles.get(b, HistoryTokenBox.self) else { return false }
    return x.token == y.token
}

@_cdecl("og_history_token_release")
public func og_history_token_release(_ h: OpaquePointer?) {
    handles.release(h, HistoryTokenBox.self)
}
