/// Storage for many `RowSnapshot`s in one allocation: a store reading a thousand rows makes
/// a few blocks, not a thousand objects, and the rows it hands up are places in them.
///
/// A row in a block is a 32-byte header — its `RowCellTable`, its entity (not retained: the
/// block's `entities` holds every entity its rows name), primary key and version — followed
/// by its kinds and cells (`RowCells`). Rows are written once, by a `RowBlockWriter`, and
/// never change; the block frees what its cells hold when the last row of it goes.
final class RowBlock: ManagedBuffer<RowBlock.Header, UInt64> {
    struct Header {
        /// Bytes of the elements holding finished rows.
        var used: Int
        /// Bytes of the elements there is room for.
        let capacity: Int
        /// Every entity a row of the block names, held for the rows.
        var entities: [EntityDescription]
    }

    static let cellsOffset = 0
    static let entityOffset = 8
    static let primaryKeyOffset = 16
    static let versionOffset = 24
    /// The bytes before a row's values.
    static let rowHeaderBytes = 32

    /// `ManagedBuffer`'s layout: the object header (two words), the block's header, then the
    /// elements at the next word. `RowSnapshotTests` checks this against the buffer's own answer.
    @inline(__always)
    static var elementsOffset: Int { (2 * MemoryLayout<Int>.size + MemoryLayout<Header>.size + 7) & ~7 }

    /// The address of the block's first row, taken without retaining the block (which the
    /// caller holds).
    @inline(__always)
    static func elements(of block: RowBlock) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(block).toOpaque()) + elementsOffset
    }

    @inline(__always)
    static func cells(ofRowAt row: UnsafeRawPointer) -> RowCellTable {
        RowCellTable(p: row.load(fromByteOffset: cellsOffset, as: UnsafePointer<Int32>.self))
    }

    @inline(__always)
    static func entity(ofRowAt row: UnsafeRawPointer) -> EntityDescription {
        Unmanaged<EntityDescription>.fromOpaque(row.load(fromByteOffset: entityOffset, as: UnsafeRawPointer.self)).takeUnretainedValue()
    }

    deinit {
        withUnsafeMutablePointers { header, words in
            let start = UnsafeMutableRawPointer(words)
            var offset = 0
            while offset < header.pointee.used {
                let row = start + offset
                let cells = Self.cells(ofRowAt: row)
                let values = row + Self.rowHeaderBytes
                for slot in 0..<cells.count {
                    let kind = RowCellTable.kind(slot, of: values)
                    if kind >= RowCell.boxed { RowCell.destroy(values + cells.offset(slot), kind) }
                }
                offset += Self.rowHeaderBytes + cells.bytes
            }
        }
    }
}

/// Makes rows into blocks: each block holds as many rows as fit, and the next one is made
/// twice as large (up to 64 KiB), so a read of one row allocates one small block and a read
/// of a million a few hundred.
struct RowBlockWriter {
    private var block: RowBlock?
    /// How many rows of the current size the next block holds.
    private var rowsPerBlock: Int
    private static let largestBlock = 65_536

    /// `rowsPerBlock`: the room of the first block, in rows.
    init(rowsPerBlock: Int = 1) {
        self.rowsPerBlock = max(1, rowsPerBlock)
    }

    /// A row laid out as `cells` whose values `fill` sets; slots it leaves alone are null.
    @inline(__always)
    mutating func make(entity: EntityDescription, primaryKey: Int64, version: Int64, cells: RowCellTable,
                       fill: (RowCellWriter) -> Void) -> RowSnapshot {
        let bytes = RowBlock.rowHeaderBytes + cells.bytes
        if block == nil || block.unsafelyUnwrapped.header.used + bytes > block.unsafelyUnwrapped.header.capacity {
            startBlock(rowBytes: bytes)
        }
        let current = block.unsafelyUnwrapped
        let offset = current.header.used
        let row = UnsafeMutableRawPointer(mutating: RowBlock.elements(of: current)) + offset
        row.storeBytes(of: cells.p, toByteOffset: RowBlock.cellsOffset, as: UnsafePointer<Int32>.self)
        row.storeBytes(of: UnsafeRawPointer(Unmanaged.passUnretained(entity).toOpaque()), toByteOffset: RowBlock.entityOffset,
                       as: UnsafeRawPointer.self)
        row.storeBytes(of: primaryKey, toByteOffset: RowBlock.primaryKeyOffset, as: Int64.self)
        row.storeBytes(of: version, toByteOffset: RowBlock.versionOffset, as: Int64.self)
        let values = row + RowBlock.rowHeaderBytes
        values.initializeMemory(as: UInt8.self, repeating: RowCell.null, count: RowCellTable.kindBytes(cells.count))
        fill(RowCellWriter(row: values, table: cells))
        current.withUnsafeMutablePointerToHeader { header in
            // The entity is held before the row counts as written (a block's deinit reads only written rows).
            if header.pointee.entities.last !== entity && !header.pointee.entities.contains(where: { $0 === entity }) {
                header.pointee.entities.append(entity)
            }
            header.pointee.used = offset + bytes
        }
        return RowSnapshot(block: current, offset: offset)
    }

    /// A row holding `values` (its entity's layout when they are one per slot, else word-wide cells).
    mutating func make(entity: EntityDescription, primaryKey: Int64, version: Int64, values: [AttributeValue]) -> RowSnapshot {
        let layout = entity.layout.cells.table
        let cells = layout.count == values.count ? layout : RowCells.narrow(values.count).table
        return make(entity: entity, primaryKey: primaryKey, version: version, cells: cells) { row in
            for (slot, value) in values.enumerated() { row.set(slot, value) }
        }
    }

    private mutating func startBlock(rowBytes: Int) {
        let capacity = max(rowBytes, rowBytes * rowsPerBlock)
        let made = RowBlock.create(minimumCapacity: capacity / 8) { _ in
            RowBlock.Header(used: 0, capacity: capacity, entities: [])
        }
        block = unsafeDowncast(made, to: RowBlock.self)
        rowsPerBlock = min(rowsPerBlock * 2, max(1, Self.largestBlock / rowBytes))
    }
}
