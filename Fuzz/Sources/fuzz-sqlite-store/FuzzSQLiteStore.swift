import Foundation
import FuzzSQLite
import FuzzSupport
import ObjectGraph

let model = fuzzModel()

/// An SQLite store with data, made once per process; each input starts from a copy.
let template = sqliteTemplateStore(model)

/// One input: an SQLite store file, in one of two forms chosen by the low bit of the
/// first byte.
///
/// - 0, files: `[u32 LE length of the database][database][WAL]`: the bytes of a store
///   file and of its `-wal` (none when empty). libFuzzer mutates pages, the schema, the
///   counters and WAL frames as bytes.
/// - 1, edits: a program of SQL-level edits applied to a store with data (`Edits`): cells
///   set to edge values, rows deleted or added bare, columns and tables dropped, added or
///   renamed, indexes made, the metadata replaced. This reaches what byte mutations rarely
///   make: a readable file whose schema, counters or values are not what the engine wrote.
///
/// The result is opened as the engine would (metadata without a stack, then added as a
/// store, with persistent history when bit 1 of the first byte is set) and used: fetch,
/// read, change and save (FuzzSupport.exercise), then its history read and purged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQLiteStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = inputBytes(data, size)
    let path = Scratch.directory + "/store.sqlite"
    Scratch.removeStore(path)
    if input[0] & 1 == 0 {
        guard input.count >= 5 else { return 0 }
        let length = Int(input[1]) | Int(input[2]) << 8 | Int(input[3]) << 16 | Int(input[4]) << 24
        let database = Array(input[5...].prefix(length))
        Scratch.write("store.sqlite", database)
        if length < input.count - 5 { Scratch.write("store.sqlite-wal", Array(input[(5 + length)...])) }
    } else {
        Scratch.write("store.sqlite", template)
        Edits(path: path).apply(input[1...])
    }
    _ = try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
    let history = input[0] & 2 != 0
    let options: [String: PropertyListValue] = history ? [StoreOptionKey.historyTracking: .boolean(true)] : [:]
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("add store", { try coordinator.addPersistentStore(type: StoreType.sqlite, configuration: nil, path: path, options: options) }) != nil {
        exercise(coordinator, seed: input.count > 1 ? input[1] : 0)
        // The template's history (and what the edits left of it) is read back and purged.
        let context = ManagedObjectContext(coordinator: coordinator)
        if let transactions = try? context.history() {
            for t in transactions { _ = (t.changes ?? []).map { ($0.changedObjectID, $0.updatedProperties, $0.tombstone) } }
            if let middle = transactions.dropFirst(transactions.count / 2).first {
                _ = try? context.history(after: .token(middle.token))
                if history { try? context.deleteHistory(before: .transaction(middle)) }
            }
        }
    }
    return 0
}

/// A program of edits, each an opcode byte and its operands (missing bytes read as 0):
///
///     0 SET    table column row value     one cell
///     1 DELETE table row                  one row
///     2 INSERT table value                a bare row with that Z_PK (all else NULL)
///     3 SCHEMA kind table column name     drop/add/rename column, drop/rename table,
///                                         create/drop index, create table
///     4 META   bytes…                     Z_METADATA.Z_PLIST = the rest (ends the program)
///     5 PRAGMA kind                       journal mode WAL/DELETE, user_version, VACUUM
///
/// value: a type byte, then 0 NULL | 1 int8 | 2 int64 LE | 3 an edge integer | 4 double LE
/// | 5 an edge double | 6 text (length byte, bytes: may be invalid UTF-8) | 7 blob (same).
/// Tables and columns are indexes into the file's own lists (modulo their counts).
struct Edits {
    let path: String

    static let edgeIntegers: [Int64] = [Int64.max, Int64.min, Int64.max - 1, -1, 0, 1, 1 << 31, 1 << 32, 1 << 53 + 1,
                                        Int64(Int32.max) + 1, Int64(Int16.max) + 1, 255, 65536]
    static let edgeDoubles: [Double] = [.infinity, -.infinity, .nan, -0.0, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                        9.3e18, -9.3e18, 1e300, 0.5]
    static let columnTypes = ["INTEGER", "VARCHAR", "FLOAT", "BLOB", "TIMESTAMP", "", "DECIMAL"]

    func apply(_ program: ArraySlice<UInt8>) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { sqlite3_close(db); return }
        defer { sqlite3_close(db) }
        var bytes = program.makeIterator()
        func next() -> UInt8 { bytes.next() ?? 0 }
        func name() -> String {
            let n = Int(next()) % 24
            let raw = (0..<n).map { _ in next() }
            return "Z" + String(decoding: raw, as: UTF8.self)
        }
        func quote(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        func tables() -> [String] { strings(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") }
        func columns(_ table: String) -> [String] { strings(db, "SELECT name FROM pragma_table_info(?)", table) }
        func pickTable() -> String? {
            let all = tables()
            let i = Int(next())
            return all.isEmpty ? nil : all[i % all.count]
        }
        var steps = 0
        while let opcode = bytes.next(), steps < 32 {
            steps += 1
            switch opcode % 6 {
            case 0:
                guard let table = pickTable() else { continue }
                let cols = columns(table)
                let c = Int(next()), row = Int(next())
                guard !cols.isEmpty else { continue }
                let sql = "UPDATE \(quote(table)) SET \(quote(cols[c % cols.count])) = ? WHERE rowid = (SELECT rowid FROM \(quote(table)) ORDER BY rowid LIMIT 1 OFFSET \(row % 16))"
                run(db, sql) { s in bindValue(s, &bytes) }
            case 1:
                guard let table = pickTable() else { continue }
                let row = Int(next())
                run(db, "DELETE FROM \(quote(table)) WHERE rowid = (SELECT rowid FROM \(quote(table)) ORDER BY rowid LIMIT 1 OFFSET \(row % 16))") { _ in }
            case 2:
                guard let table = pickTable() else { continue }
                run(db, "INSERT INTO \(quote(table))(rowid) VALUES (?)") { s in bindValue(s, &bytes) }
            case 3:
                let kind = next()
                guard let table = pickTable() else { continue }
                let cols = columns(table)
                let c = Int(next())
                let column = cols.isEmpty ? "Z_PK" : cols[c % cols.count]
                let newName = name()
                let sql: String
                switch kind % 8 {
                case 0: sql = "ALTER TABLE \(quote(table)) DROP COLUMN \(quote(column))"
                case 1: sql = "ALTER TABLE \(quote(table)) ADD COLUMN \(quote(newName)) \(Self.columnTypes[c % Self.columnTypes.count])"
                case 2: sql = "ALTER TABLE \(quote(table)) RENAME COLUMN \(quote(column)) TO \(quote(newName))"
                case 3: sql = "DROP TABLE \(quote(table))"
                case 4: sql = "ALTER TABLE \(quote(table)) RENAME TO \(quote(newName))"
                case 5: sql = "CREATE UNIQUE INDEX \(quote(newName)) ON \(quote(table))(\(quote(column)))"
                case 6: sql = "CREATE TABLE \(quote(newName))(Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER)"
                default:
                    let indexes = strings(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                    sql = indexes.isEmpty ? "SELECT 1" : "DROP INDEX \(quote(indexes[c % indexes.count]))"
                }
                sqlite3_exec(db, sql, nil, nil, nil)
            case 4:
                var rest: [UInt8] = []
                while let b = bytes.next() { rest.append(b) }
                run(db, "UPDATE Z_METADATA SET Z_PLIST = ?") { s in
                    _ = rest.withUnsafeBytes { sqlite3_bind_blob(s, 1, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sqliteTransient) }
                }
            default:
                let kind = next()
                let sql = ["PRAGMA journal_mode = WAL", "PRAGMA journal_mode = DELETE", "PRAGMA user_version = \(Int32(bitPattern: UInt32(kind) << 24 | 7))",
                           "VACUUM", "PRAGMA page_size = 512; VACUUM", "PRAGMA auto_vacuum = FULL; VACUUM"][Int(kind) % 6]
                sqlite3_exec(db, sql, nil, nil, nil)
            }
        }
    }

    /// Binds a value read from the program to parameter 1.
    func bindValue(_ s: OpaquePointer?, _ bytes: inout ArraySlice<UInt8>.Iterator) {
        func next() -> UInt8 { bytes.next() ?? 0 }
        func eight() -> UInt64 { (0..<8).reduce(UInt64(0)) { v, i in v | UInt64(next()) << (8 * UInt64(i)) } }
        switch next() % 8 {
        case 0: sqlite3_bind_null(s, 1)
        case 1: sqlite3_bind_int64(s, 1, Int64(Int8(bitPattern: next())))
        case 2: sqlite3_bind_int64(s, 1, Int64(bitPattern: eight()))
        case 3: sqlite3_bind_int64(s, 1, Self.edgeIntegers[Int(next()) % Self.edgeIntegers.count])
        case 4: sqlite3_bind_double(s, 1, Double(bitPattern: eight()))
        case 5: sqlite3_bind_double(s, 1, Self.edgeDoubles[Int(next()) % Self.edgeDoubles.count])
        case let kind:
            let n = Int(next())
            let raw = (0..<n).map { _ in next() }
            // One byte more, so an empty value still has an address (SQLite reads none of it).
            _ = (raw + [0]).withUnsafeBytes { p in
                kind == 6 ? sqlite3_bind_text(s, 1, p.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(n), sqliteTransient)
                    : sqlite3_bind_blob(s, 1, p.baseAddress!, Int32(n), sqliteTransient)
            }
        }
    }
}

private func strings(_ db: OpaquePointer?, _ sql: String, _ parameter: String? = nil) -> [String] {
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return [] }
    defer { sqlite3_finalize(s) }
    if let parameter { sqlite3_bind_text(s, 1, parameter, -1, sqliteTransient) }
    var out: [String] = []
    while sqlite3_step(s) == SQLITE_ROW {
        if let t = sqlite3_column_text(s, 0) { out.append(String(cString: t)) }
    }
    return out
}

private func run(_ db: OpaquePointer?, _ sql: String, bind: (OpaquePointer?) -> Void) {
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return }
    bind(s)
    _ = sqlite3_step(s)
    sqlite3_finalize(s)
}

/// Seeds: the engine's store files (after a checkpoint, and with the rows still in the
/// WAL), Apple's stores when present, and a few edit programs.
func makeSeeds(_ dir: String) throws {
    func container(_ database: [UInt8], _ wal: [UInt8]) -> [UInt8] {
        let n = database.count
        return [0, UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24 & 0xFF)] + database + wal
    }
    try writeSeed(dir, "sqlite-file-checkpointed", container(template, []))
    let path = Scratch.directory + "/seed.sqlite"
    Scratch.removeStore(path)
    let open = try makeSeedStore(type: StoreType.sqlite, path: path, model: model, objects: 3)
    try writeSeed(dir, "sqlite-file-with-wal", container(Scratch.read(path), Scratch.read(path + "-wal")))
    withExtendedLifetime(open) {}
    for store in files(under: appleStores, suffix: ".sqlite") {
        try writeSeed(dir, seedName(store, prefix: "sqlite-file"), container(Scratch.read(store), Scratch.read(store + "-wal")))
    }
    let programs: [(String, [UInt8])] = [
        ("set-text-invalid-utf8", [1, 0, 0, 1, 0, 6, 3, 0xFF, 0xC3, 0x28]),
        ("set-entity-number", [1, 0, 0, 1, 0, 1, 99]),
        ("set-real-infinity", [1, 0, 0, 4, 1, 5, 0]),
        ("insert-bare-row", [1, 2, 0, 1, 42]),
        ("delete-row", [1, 1, 0, 0]),
        ("drop-column", [1, 3, 0, 0, 3, 0]),
        ("rename-table", [1, 3, 4, 0, 0, 3, 0x58, 0x59, 0x5A]),
        ("metadata", [1, 4] + (sqliteBlob(Scratch.write("metadata.sqlite", template), "SELECT Z_PLIST FROM Z_METADATA") ?? [])),
        ("wal-mode", [1, 5, 0, 0, 1, 0, 1, 5]),
    ]
    for (name, program) in programs { try writeSeed(dir, "sqlite-edit-" + name, program) }
}

@_cdecl("fuzz_sqlite_store_main")
public func fuzzSQLiteStoreMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzSQLiteStore)
}
