import FoundationEssentials
import Synchronization

/// Where each value of a row lives inside a `RowSnapshot`: a 4-bit kind per slot (two to a
/// byte: ten kinds fit, and a row of ten slots spends 8 bytes on them, not 16), then one
/// cell per slot, 8 bytes wide for the slots whose values fit in a word (numbers, booleans,
/// dates, to-one keys) and 16 bytes for those that hold text, bytes or a UUID. An entity's
/// rows share one layout (`EntityDescription.Layout.cells`), so a row of ten integers takes
/// 88 bytes of values instead of ten 24-byte `AttributeValue`s.
///
/// Any value fits any cell: one that is not of its cell's width (a decimal, a transformable
/// value, or text in a number's column) is kept in a box the cell points at.
///
/// Each entity has its own layouts (`EntityDescription.rowCells(wide:)`), and its table
/// names the entity just before the offsets, so a row's header needs no word for its
/// entity. A layout lives as long as its entity, which the rows'
/// blocks hold, so a row points at its table without counting a reference, and a read
/// costs no retain.
final class RowCells: @unchecked Sendable {
    /// What rows read: `[count, offset of slot 0, …, offset of slot count-1, row bytes]`,
    /// offsets in bytes from the start of the row's values (the kinds come first), after
    /// the entity's address (`RowCellTable.entityAddress`).
    let table: RowCellTable

    /// A layout of `entity`'s rows (nil only for `unattached`), its slots `wide` as given.
    init(wide: [Bool], entity: EntityDescription?) {
        let base = UnsafeMutableRawPointer.allocate(byteCount: RowCellTable.entityBytes + 4 * (wide.count + 2),
                                                    alignment: MemoryLayout<UnsafeRawPointer>.alignment)
        base.storeBytes(of: entity.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) },
                        as: UnsafeRawPointer?.self)
        let p = (base + RowCellTable.entityBytes).bindMemory(to: Int32.self, capacity: wide.count + 2)
        p[0] = Int32(wide.count)
        var offset = (RowCellTable.kindBytes(wide.count) + 7) & ~7
        for (slot, isWide) in wide.enumerated() {
            p[1 + slot] = Int32(offset)
            offset += isWide ? 16 : 8
        }
        p[1 + wide.count] = Int32(offset)
        table = RowCellTable(p: UnsafePointer(p))
    }

    deinit { (UnsafeMutableRawPointer(mutating: table.p) - RowCellTable.entityBytes).deallocate() }

    /// Which slots of an entity's rows are 16 bytes wide, from what the slots hold.
    static func wide(kinds: [EntityDescription.SlotKind]) -> [Bool] {
        kinds.map { kind in
            guard case .attribute(let type) = kind else { return false }
            switch type {
            case .string, .uri, .binaryData, .transformable, .uuid: return RowCell.wideFits
            default: return false
            }
        }
    }

    /// The widths of `count` word-wide slots, for rows made without their entity's layout
    /// (identity-only rows have no values at all).
    static func narrow(_ count: Int) -> [Bool] { [Bool](repeating: false, count: count) }

    /// A table of no slots and no entity, for a variable that needs one before its first
    /// row's entity is known. No row is ever made with it.
    static let unattached = RowCells(wide: [], entity: nil)
}

/// A `RowCells` layout as rows read it: a pointer into its table.
struct RowCellTable {
    let p: UnsafePointer<Int32>

    /// The bytes before `p` that hold the entity's address.
    static var entityBytes: Int { MemoryLayout<UnsafeRawPointer>.size }

    /// The address of the entity whose rows this lays out (not retained).
    @inline(__always) var entityAddress: UnsafeRawPointer {
        UnsafeRawPointer(p).load(fromByteOffset: -Self.entityBytes, as: UnsafeRawPointer.self)
    }

    /// The entity whose rows this lays out; alive while any of its rows is.
    @inline(__always) var entity: EntityDescription {
        Unmanaged<EntityDescription>.fromOpaque(entityAddress).takeUnretainedValue()
    }

    @inline(__always) var count: Int { Int(p[0]) }
    @inline(__always) func offset(_ slot: Int) -> Int { Int(p[1 + slot]) }
    @inline(__always) func isWide(_ slot: Int) -> Bool { p[2 + slot] - p[1 + slot] == 16 }
    /// The bytes of a row's kinds and cells.
    @inline(__always) var bytes: Int { Int(p[1 + Int(p[0])]) }
    /// The 8-byte words a row of this layout takes.
    @inline(__always) var words: Int { bytes / 8 }

    /// The bytes that the kinds of `count` slots take, two to a byte.
    @inline(__always) static func kindBytes(_ count: Int) -> Int { (count + 1) / 2 }

    /// The kind of `slot` of the row whose values start at `row`.
    @inline(__always)
    static func kind(_ slot: Int, of row: UnsafeRawPointer) -> UInt8 {
        row.load(fromByteOffset: slot >> 1, as: UInt8.self) >> UInt8((slot & 1) << 2) & 0xF
    }

    /// Sets the kind of `slot`, which must still be null (0), of the row being made at `row`.
    @inline(__always)
    static func setKind(_ kind: UInt8, _ slot: Int, of row: UnsafeMutableRawPointer) {
        let byte = row.load(fromByteOffset: slot >> 1, as: UInt8.self)
        row.storeBytes(of: byte | kind << UInt8((slot & 1) << 2), toByteOffset: slot >> 1, as: UInt8.self)
    }
}

/// The kind of a cell (4 bits: fewer than 16 kinds), and how values go in and out of cells.
enum RowCell {
    static let null: UInt8 = 0
    static let integer: UInt8 = 1
    static let double: UInt8 = 2
    static let boolean: UInt8 = 3
    static let date: UInt8 = 4
    /// A retained `RowCellBox` in a word-wide cell.
    static let boxed: UInt8 = 5
    // Kinds stored in place in a 16-byte cell.
    static let string: UInt8 = 6
    static let uri: UInt8 = 7
    static let data: UInt8 = 8
    static let uuid: UInt8 = 9

    /// Whether text, `Data` and `UUID` each fit in a 16-byte cell on this platform.
    static let wideFits = MemoryLayout<String>.size <= 16 && MemoryLayout<Data>.size <= 16
        && MemoryLayout<UUID>.size <= 16 && MemoryLayout<Data>.alignment <= 8

    /// Reads the value of the cell at `cell` of kind `kind`.
    @inline(__always)
    static func read(_ cell: UnsafeRawPointer, _ kind: UInt8) -> AttributeValue {
        switch kind {
        case null: return .null
        case integer: return .integer(cell.load(as: Int64.self))
        case double: return .double(cell.load(as: Double.self))
        case boolean: return .boolean(cell.load(as: Bool.self))
        case date: return .date(Date(timeIntervalSinceReferenceDate: cell.load(as: Double.self)))
        case string: return .string(cell.assumingMemoryBound(to: String.self).pointee)
        case uri: return .uri(cell.assumingMemoryBound(to: String.self).pointee)
        case data: return .data(cell.assumingMemoryBound(to: Data.self).pointee)
        case uuid: return .uuid(cell.load(as: UUID.self))
        default: return Unmanaged<RowCellBox>.fromOpaque(cell.load(as: UnsafeRawPointer.self)).takeUnretainedValue().value
        }
    }

    /// Puts `value` in the cell at `cell` (`isWide` bytes wide), which holds nothing yet;
    /// returns its kind.
    @inline(__always)
    static func write(_ value: AttributeValue, to cell: UnsafeMutableRawPointer, isWide: Bool) -> UInt8 {
        switch value {
        case .null: return null
        case .integer(let n): cell.storeBytes(of: n, as: Int64.self); return integer
        case .double(let d): cell.storeBytes(of: d, as: Double.self); return double
        case .boolean(let b): cell.storeBytes(of: b, as: Bool.self); return boolean
        case .date(let t): cell.storeBytes(of: t.timeIntervalSinceReferenceDate, as: Double.self); return date
        case .string(let s) where isWide: cell.initializeMemory(as: String.self, repeating: s, count: 1); return string
        case .uri(let s) where isWide: cell.initializeMemory(as: String.self, repeating: s, count: 1); return uri
        case .data(let d) where isWide: cell.initializeMemory(as: Data.self, repeating: d, count: 1); return data
        case .uuid(let u) where isWide: cell.storeBytes(of: u, as: UUID.self); return uuid
        default:
            cell.storeBytes(of: UnsafeRawPointer(Unmanaged.passRetained(RowCellBox(value)).toOpaque()), as: UnsafeRawPointer.self)
            return boxed
        }
    }

    /// Ends the life of what the cell at `cell` of kind `kind` holds.
    @inline(__always)
    static func destroy(_ cell: UnsafeMutableRawPointer, _ kind: UInt8) {
        switch kind {
        case string, uri: cell.assumingMemoryBound(to: String.self).deinitialize(count: 1)
        case data: cell.assumingMemoryBound(to: Data.self).deinitialize(count: 1)
        case boxed: Unmanaged<RowCellBox>.fromOpaque(cell.load(as: UnsafeRawPointer.self)).release()
        default: break
        }
    }
}

/// A value that does not fit its cell (see `RowCells`).
final class RowCellBox {
    let value: AttributeValue
    init(_ value: AttributeValue) { self.value = value }
}

/// Fills the cells of a row being made; every slot starts out null (kinds first).
struct RowCellWriter {
    let row: UnsafeMutableRawPointer
    let table: RowCellTable

    /// Sets `slot`, which holds nothing yet, to `value`.
    @inline(__always)
    func set(_ slot: Int, _ value: AttributeValue) {
        RowCellTable.setKind(RowCell.write(value, to: row + table.offset(slot), isWide: table.isWide(slot)), slot, of: row)
    }

    @inline(__always)
    func setInteger(_ slot: Int, _ value: Int64) {
        (row + table.offset(slot)).storeBytes(of: value, as: Int64.self)
        RowCellTable.setKind(RowCell.integer, slot, of: row)
    }

    @inline(__always)
    func setDouble(_ slot: Int, _ value: Double) {
        (row + table.offset(slot)).storeBytes(of: value, as: Double.self)
        RowCellTable.setKind(RowCell.double, slot, of: row)
    }
}
