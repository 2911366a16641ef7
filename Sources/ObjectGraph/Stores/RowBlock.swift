import Synchronization

/// Storage for many `RowSnapshot`s in one allocation: a store reading a thousand rows makes
/// a few blocks, not a thousand objects, and the rows it hands up are places in them.
///
/// A row in a block is a 24-byte header — its `RowCellTable` (which names its entity, not
/// retained: the block's `entities` holds every entity its rows name), primary key and
/// version — followed by its kinds and cells (`RowCells`). Rows are written once, by a
/// `RowBlockWriter`, and never change; the block frees what its cells hold when the last
/// row of it goes.
final class RowBlock {
    /// The rows, `capacity` bytes; full-size storage comes from and goes back to `RowBlockPool`.
    let storage: UnsafeMutableRawPointer
    let capacity: Int
    /// Bytes of `storage` holding finished rows.
    private(set) var used = 0
    /// Every entity a row of the block names, held for the rows.
    private var entities: [EntityDescription] = []
    /// The last of `entities`, compared by address: rows come in runs of one entity, and
    /// reading `entities.last` would retain and release it once per row.
    private var lastEntity: UnsafeRawPointer? = nil

    static let cellsOffset = 0
    static let primaryKeyOffset = 8
    static let versionOffset = 16
    /// The bytes before a row's values.
    static let rowHeaderBytes = 24

    init(capacity: Int) {
        self.capacity = capacity
        storage = RowBlockPool.take(capacity) ?? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// Counts the row written at `used` as finished, naming `entity`.
    @inline(__always)
    func finishRow(bytes: Int, entity: EntityDescription) {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(entity).toOpaque())
        if address != lastEntity {
            if !entities.contains(where: { $0 === entity }) { entities.append(entity) }
            lastEntity = address
        }
        used += bytes
    }

    @inline(__always)
    static func cells(ofRowAt row: UnsafeRawPointer) -> RowCellTable {
        RowCellTable(p: row.load(fromByteOffset: cellsOffset, as: UnsafePointer<Int32>.self))
    }

    @inline(__always)
    static func entity(ofRowAt row: UnsafeRawPointer) -> EntityDescription {
        cells(ofRowAt: row).entity
    }

    deinit {
        var offset = 0
        while offset < used {
            let row = storage + offset
            let cells = Self.cells(ofRowAt: row)
            let values = row + Self.rowHeaderBytes
            for slot in 0..<cells.count {
                let kind = RowCellTable.kind(slot, of: values)
                if kind >= RowCell.boxed { RowCell.destroy(values + cells.offset(slot), kind) }
            }
            offset += Self.rowHeaderBytes + cells.bytes
        }
        if !RowBlockPool.give(storage, capacity) { storage.deallocate() }
    }
}

/// Full-size block storage given back by blocks that went, for the next reads to take: a
/// fetch repeated in a loop writes its rows into memory already mapped, where fresh storage
/// costs a page fault per 4 KiB (glibc returns large freed chunks to the system). At most
/// 4 MiB waits here.
enum RowBlockPool {
    /// The size of the storage the pool keeps: a `RowBlockWriter`'s largest block.
    static let size = 65_536
    private static let limit = 64
    /// Addresses of the storage kept (as integers: raw pointers are not `Sendable`).
    private static let free = Mutex<[UInt]>([])

    static func take(_ capacity: Int) -> UnsafeMutableRawPointer? {
        guard capacity == size else { return nil }
        return free.withLock { $0.popLast() }.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }

    /// Keeps `storage` for reuse (true) when it is full-size and the pool has room.
    static func give(_ storage: UnsafeMutableRawPointer, _ capacity: Int) -> Bool {
        guard capacity == size else { return false }
        let address = UInt(bitPattern: storage)
        return free.withLock { list in
            guard list.count < limit else { return false }
            list.append(address)
            return true
        }
    }

    /// Frees what the pool keeps (a context that dropped many objects hands memory back).
    static func drain() {
        let taken = free.withLock { list in
            let all = list
            list.removeAll()
            return all
        }
        for address in taken { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
    }
}

/// Makes rows into blocks: each block holds as many rows as fit, and the next one is made
/// twice as large, up to `RowBlockPool.size`, so a read of one row allocates one small
/// block and a read of a million a few hundred.
struct RowBlockWriter {
    private var block: RowBlock?
    /// How many rows of the current size the next block holds.
    private var rowsPerBlock: Int

    /// `rowsPerBlock`: the room of the first block, in rows.
    init(rowsPerBlock: Int = 1) {
        self.rowsPerBlock = max(1, rowsPerBlock)
    }

    /// A row laid out as `cells` (a layout of `entity`'s) whose values `fill` sets; slots it
    /// leaves alone are null.
    @inline(__always)
    mutating func make(entity: EntityDescription, primaryKey: Int64, version: Int64, cells: RowCellTable,
                       fill: (RowCellWriter) -> Void) -> RowSnapshot {
        assert(cells.entityAddress == UnsafeRawPointer(Unmanaged.passUnretained(entity).toOpaque()),
               "a row's layout must be one of its entity's")
        let bytes = RowBlock.rowHeaderBytes + cells.bytes
        if block == nil || block.unsafelyUnwrapped.used + bytes > block.unsafelyUnwrapped.capacity {
            startBlock(rowBytes: bytes)
        }
        let current = block.unsafelyUnwrapped
        let row = current.storage + current.used
        row.storeBytes(of: cells.p, toByteOffset: RowBlock.cellsOffset, as: UnsafePointer<Int32>.self)
        row.storeBytes(of: primaryKey, toByteOffset: RowBlock.primaryKeyOffset, as: Int64.self)
        row.storeBytes(of: version, toByteOffset: RowBlock.versionOffset, as: Int64.self)
        let values = row + RowBlock.rowHeaderBytes
        values.initializeMemory(as: UInt8.self, repeating: RowCell.null, count: RowCellTable.kindBytes(cells.count))
        fill(RowCellWriter(row: values, table: cells))
        // The entity is held before the row counts as written (a block's deinit reads only written rows).
        current.finishRow(bytes: bytes, entity: entity)
        return RowSnapshot(block: current, address: UnsafeRawPointer(row))
    }

    /// A row holding `values` (its entity's layout when they are one per slot, else word-wide cells).
    mutating func make(entity: EntityDescription, primaryKey: Int64, version: Int64, values: [AttributeValue]) -> RowSnapshot {
        let layout = entity.layout
        let cells = layout.cells.table.count == values.count ? layout.cells.table
            : values.isEmpty ? layout.identityCells.table : entity.rowCells(wide: RowCells.narrow(values.count)).table
        return make(entity: entity, primaryKey: primaryKey, version: version, cells: cells) { row in
            for (slot, value) in values.enumerated() { row.set(slot, value) }
        }
    }

    private mutating func startBlock(rowBytes: Int) {
        // Full-size once rows fill it at least twice over, so that the pool's storage fits.
        var capacity = max(rowBytes, rowBytes * rowsPerBlock)
        if capacity * 2 > RowBlockPool.size && rowBytes * 2 <= RowBlockPool.size { capacity = RowBlockPool.size }
        block = RowBlock(capacity: capacity)
        rowsPerBlock = min(rowsPerBlock * 2, max(1, RowBlockPool.size / rowBytes))
    }
}
