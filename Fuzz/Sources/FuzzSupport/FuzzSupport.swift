import Foundation
import FuzzSQLite
import ObjectGraph

// What the fuzz targets share: the libFuzzer driver, a scratch directory for the files
// an input becomes, a fixed model for the store targets, and `exercise`, which uses a
// store the way an application would (fetch, read, change, save).

// MARK: Driver

/// libFuzzer's entry point when the program has its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

/// Runs a fuzz target. `--make-seeds DIR` writes the target's generated seed inputs into
/// DIR (made with the engine itself, so they match the current formats) and exits;
/// anything else goes to libFuzzer.
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                     seeds: (String) throws -> Void,
                     target: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32 {
    if argc >= 3, let argv, let flag = argv[1], String(cString: flag) == "--make-seeds", let dir = argv[2] {
        let path = String(cString: dir)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try seeds(path)
        } catch {
            warn("making seeds failed: \(error)\n")
            return 1
        }
        return 0
    }
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, target)
}

/// Writes one seed file.
public func writeSeed(_ dir: String, _ name: String, _ bytes: [UInt8]) throws {
    guard FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) else {
        throw CocoaError(.fileWriteUnknown)
    }
}

/// The bytes of one fuzzing input.
public func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}


// MARK: Scratch files

nonisolated(unsafe) private var scratchToRemove = ""

/// A directory of this process's own (in /dev/shm when there is one: inputs become files
/// thousands of times a second), removed at exit.
public enum Scratch {
    public static let directory: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm"
            : (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        let dir = "\(base)/og-fuzz-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        scratchToRemove = dir
        atexit { try? FileManager.default.removeItem(atPath: scratchToRemove) }
        return dir
    }()

    /// `bytes` written to `name` in the scratch directory; returns the path.
    @discardableResult
    public static func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(path)")
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
        close(fd)
        return path
    }

    /// Removes a store file with its side files (journal, WAL, shared memory, temporaries).
    public static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        if let names = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            let base = (path as NSString).lastPathComponent
            for name in names where name.hasPrefix(base + ".tmp-") { unlink(directory + "/" + name) }
        }
    }

    public static func read(_ path: String) -> [UInt8] {
        (FileManager.default.contents(atPath: path)).map { Array($0) } ?? []
    }

    /// A copy of a store someone else owns (an Apple fixture) with its -wal, to open:
    /// even a read-only SQLite connection creates -wal and -shm beside a WAL database.
    public static func copyStore(_ path: String, as name: String) -> String {
        let copy = directory + "/" + name
        removeStore(copy)
        write(name, read(path))
        if FileManager.default.fileExists(atPath: path + "-wal") { write(name + "-wal", read(path + "-wal")) }
        return copy
    }
}

// MARK: The store targets' model

/// A model with every attribute type, inheritance, to-one, to-many, ordered and
/// many-to-many relationships: what the Binary, metadata and SQLite targets open stores with.
public func fuzzModel() -> ManagedObjectModel {
    do {
        let model = ManagedObjectModel()
        try model.setVersionIdentifiers(["fuzz"])
        let person = try model.addEntity(named: "Person")
        try person.addAttribute(named: "name", type: .string)
        try person.addAttribute(named: "age", type: .integer16, defaultValue: 1)
        try person.addAttribute(named: "mid", type: .integer32)
        try person.addAttribute(named: "big", type: .integer64)
        try person.addAttribute(named: "score", type: .double)
        try person.addAttribute(named: "ratio", type: .float)
        try person.addAttribute(named: "salary", type: .decimal)
        try person.addAttribute(named: "flag", type: .boolean)
        try person.addAttribute(named: "born", type: .date)
        try person.addAttribute(named: "photo", type: .binaryData)
        try person.addAttribute(named: "tag", type: .uuid)
        try person.addAttribute(named: "home", type: .uri)
        // Its keyed archive is untrusted input too: reading it must refuse, never crash.
        try person.addAttribute(named: "extra", type: .transformable)
        let pet = try model.addEntity(named: "Pet")
        try pet.addAttribute(named: "name", type: .string, optional: false, defaultValue: "pet")
        let dog = try model.addEntity(named: "Dog")
        try dog.setSuperentity(pet)
        try dog.addAttribute(named: "barks", type: .boolean, defaultValue: true)
        let pets = try person.addRelationship(named: "pets", destination: pet, toMany: true, deleteRule: .cascade)
        let owner = try pet.addRelationship(named: "owner", destination: person)
        try pets.setInverse(owner)
        let friends = try person.addRelationship(named: "friends", destination: person, toMany: true)
        try friends.setInverse(friends)
        let visits = try pet.addRelationship(named: "visits", destination: person, toMany: true)
        try visits.setOrdered(true)
        _ = try person.addRelationship(named: "favourite", destination: pet)
        return model
    } catch {
        fatalError("the fuzz model is invalid: \(error)")
    }
}

/// A store of `type` at `path` with a few objects of every entity, linked to each other,
/// saved in two saves (the second an update and a delete), so its file holds every kind
/// of row. Returns the coordinator, still open (an SQLite store's WAL is not yet
/// checkpointed).
public func makeSeedStore(type: String, path: String, model: ManagedObjectModel, objects: Int = 6,
                          options: [String: PropertyListValue] = [:]) throws -> PersistentStoreCoordinator {
    let coordinator = try PersistentStoreCoordinator(model: model)
    _ = try coordinator.addPersistentStore(type: type, configuration: nil, path: path, options: options)
    let context = ManagedObjectContext(coordinator: coordinator)
    var people: [ManagedObject] = []
    for i in 0..<objects {
        let p = try context.insertObject(entityName: "Person")
        try p.setValue(.string("person \(i) é"), forKey: "name")
        try p.setValue(.integer(Int64(i)), forKey: "age")
        try p.setValue(.integer(Int64(i) << 20), forKey: "mid")
        try p.setValue(.integer(Int64(i) << 40), forKey: "big")
        try p.setValue(.double(Double(i) / 3), forKey: "score")
        try p.setValue(.double(0.5), forKey: "ratio")
        try p.setValue(.decimal(Decimal(string: "12.5\(i)")!), forKey: "salary")
        try p.setValue(.boolean(i % 2 == 0), forKey: "flag")
        try p.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(i) * 86400)), forKey: "born")
        try p.setValue(.data(Data(repeating: UInt8(i), count: i * 10)), forKey: "photo")
        try p.setValue(.uuid(UUID()), forKey: "tag")
        try p.setValue(.uri(URL(string: "https://example.com/\(i)")!), forKey: "home")
        try p.setValue(.transformable(["tags": ["a", .integer(Int64(i))], "at": .date(Date(timeIntervalSinceReferenceDate: Double(i))),
                                       "id": .uuid(UUID()), "link": .url("https://example.com/\(i)"), "none": [.null]]), forKey: "extra")
        let pet = try context.insertObject(entityName: i % 2 == 0 ? "Dog" : "Pet")
        try pet.setValue(.string("pet \(i)"), forKey: "name")
        try pet.setObject(p, forKey: "owner")
        if let first = people.first {
            try p.addObject(first, forKey: "friends")
            try pet.addObject(first, forKey: "visits")
        }
        try p.setObject(pet, forKey: "favourite")
        people.append(p)
    }
    try context.save()
    try people[0].setValue(.string("changed"), forKey: "name")
    try context.delete(people[people.count - 1])
    try context.save()
    return coordinator
}

// MARK: Using a store

/// Uses the stores of `coordinator` as an application would: fetches every entity (plain,
/// sorted, filtered, counted), reads every attribute and relationship of what comes back,
/// changes, inserts and deletes a little, and saves. Errors are expected (the store may
/// be damaged); only crashes are findings.
public func exercise(_ coordinator: PersistentStoreCoordinator, seed: UInt8 = 0) {
    let model = coordinator.managedObjectModel
    let context = ManagedObjectContext(coordinator: coordinator)
    var fetched: [ManagedObject] = []
    for entity in model.entities {
        let attributes = entity.properties.compactMap { $0 as? AttributeDescription }
        var requests = [FetchRequest(entityName: entity.name)]
        if let a = attributes.first {
            requests.append(FetchRequest(entityName: entity.name, sortKeys: [SortKey(a.name, ascending: seed & 1 == 0)]))
            if let p = try? ObjectPredicate(format: "\(a.name) != nil") {
                requests.append(FetchRequest(entityName: entity.name, predicate: p))
            }
        }
        for request in requests {
            guard let objects = try? context.fetch(request) else { continue }
            for object in objects.prefix(20) { read(object) }
            fetched += objects.prefix(20)
        }
        _ = try? context.count(for: FetchRequest(entityName: entity.name))
    }
    // Change, insert, delete, save.
    if let object = fetched.first(where: { !$0.isDeleted }) {
        for case let a as AttributeDescription in object.entity.properties where !a.isTransient {
            _ = try? object.setValue(sample(a.attributeType, seed), forKey: a.name)
            break
        }
    }
    for entity in model.entities where !entity.isAbstract {
        guard let object = try? context.insertObject(entityName: entity.name) else { continue }
        for case let a as AttributeDescription in entity.properties where !a.isOptional && !a.isTransient {
            _ = try? object.setValue(sample(a.attributeType, seed), forKey: a.name)
        }
        if let other = fetched.first(where: { !$0.isDeleted }) {
            for case let r as RelationshipDescription in entity.properties where !r.isTransient {
                if r.isToMany { _ = try? object.addObject(other, forKey: r.name) } else { _ = try? object.setObject(other, forKey: r.name) }
            }
        }
    }
    if let victim = fetched.last(where: { !$0.isDeleted }) { _ = try? context.delete(victim) }
    _ = attempt("save") { try context.save() }
    // What was saved reads back in a fresh context.
    let again = ManagedObjectContext(coordinator: coordinator)
    for entity in model.entities {
        for object in ((try? again.fetch(FetchRequest(entityName: entity.name))) ?? []).prefix(20) { read(object) }
    }
}

/// Reads every attribute and (non-transient) relationship of `object`, firing its fault.
/// Transient to-many relationships of SQLite objects are left out: reading one traps
/// (issue 17, item 2, fixed elsewhere), and they hold nothing a file could have damaged.
public func read(_ object: ManagedObject) {
    for property in object.entity.properties {
        if let r = property as? RelationshipDescription {
            if r.isTransient { continue }
            if r.isToMany {
                for other in ((try? object.objects(forKey: r.name)) ?? []).prefix(5) { _ = try? other.value(forKey: "name") }
            } else if let other = try? object.object(forKey: r.name) {
                _ = try? other.value(forKey: "name")
            }
        } else {
            _ = try? object.value(forKey: property.name)
        }
    }
}

/// A value of `type`, chosen by `seed`, including the edges of each range.
public func sample(_ type: AttributeType, _ seed: UInt8) -> AttributeValue {
    let pick = Int(seed >> 1)
    switch type {
    case .integer16: return .integer([0, -1, Int64(Int16.max), Int64(Int16.min), 7][pick % 5])
    case .integer32: return .integer([0, -1, Int64(Int32.max), Int64(Int32.min), 7][pick % 5])
    case .integer64: return .integer([0, -1, Int64.max, Int64.min, 7][pick % 5])
    case .double, .float: return .double([0, -0.0, 1e308, -1e-308, 2.5][pick % 5])
    case .decimal: return .decimal([Decimal(0), Decimal(string: "1e-100")!, Decimal(string: "-123.456")!][pick % 3])
    case .boolean: return .boolean(pick % 2 == 0)
    case .string: return .string(["", "x", "é\u{1F600}", String(repeating: "a", count: 300)][pick % 4])
    case .date: return .date(Date(timeIntervalSinceReferenceDate: [0, -1e9, 1e9][pick % 3]))
    case .binaryData: return .data(Data([0, 1, 2, 255]))
    case .uuid: return .uuid(UUID())
    case .uri: return .uri(URL(string: "https://example.com/a%20b")!)
    case .transformable: return .transformable([["k": .integer(Int64(pick))], "x", .data(Data([1]))])
    default: return .null
    }
}

// MARK: Models

/// Uses a model an input produced: writes it in both file formats and reads each back
/// (a model the writers emit must read again: a failure is a finding), then opens an
/// in-memory store and an SQLite store with it and exercises them.
public func exerciseModel(_ model: ManagedObjectModel, origin: String) {
    let xml = model.xcodeXMLString()
    do { _ = try ManagedObjectModel(xcodeXML: Data(xml.utf8)) } catch {
        fatalError("a model read from \(origin) writes Xcode XML that does not read back: \(error)\n\(xml)")
    }
    let json = model.jsonString()
    do { _ = try ManagedObjectModel(jsonData: Data(json.utf8)) } catch {
        fatalError("a model read from \(origin) writes JSON that does not read back: \(error)\n\(json)")
    }
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("in-memory store", { try coordinator.addPersistentStore(type: StoreType.inMemory, path: "") }) != nil {
        exercise(coordinator)
    }
    let path = Scratch.directory + "/model-store.sqlite"
    Scratch.removeStore(path)
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("SQLite store", { try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }) != nil {
        // The new store keeps its model (Z_MODELCACHE), which must read back with the same hashes.
        do {
            let cached = try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: path)
            if cached.entityVersionHashesByName != model.entityVersionHashesByName {
                fatalError("a model read from \(origin) is cached by its store with other version hashes\n\(model.jsonString())")
            }
        } catch { fatalError("a model read from \(origin) is cached by its store unreadably: \(error)\n\(model.jsonString())") }
        exercise(coordinator)
    }
    Scratch.removeStore(path)
}

/// The Xcode model files under `root` (every `contents` of an `.xcdatamodel`).
public func xcodeModelFiles(under root: String) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var found: [String] = []
    while let item = walker.nextObject() as? String {
        if item.hasSuffix(".xcdatamodel/contents") { found.append(root + "/" + item) }
    }
    return found.sorted()
}

/// Files under `root` whose names end in `suffix`.
public func files(under root: String, suffix: String) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var found: [String] = []
    while let item = walker.nextObject() as? String {
        if item.hasSuffix(suffix) { found.append(root + "/" + item) }
    }
    return found.sorted()
}

/// The repository (OG_FUZZ_ROOT, set by Fuzz/run.sh) and Apple's stores beside it, when present.
public var repositoryRoot: String { ProcessInfo.processInfo.environment["OG_FUZZ_ROOT"] ?? FileManager.default.currentDirectoryPath + "/.." }
public var appleStores: String { ProcessInfo.processInfo.environment["OG_APPLE_STORES"] ?? repositoryRoot + "/../shared/fixtures/apple-stores" }
/// Real Xcode 3 models (`.xcdatamodel` folders with an `elements` archive) beside the
/// repository, when present.
public var xcode3Models: String {
    ProcessInfo.processInfo.environment["OG_XCODE3_MODELS"] ?? repositoryRoot + "/../shared/fixtures/xcode3-models"
}

/// A seed file's name from its path.
public func seedName(_ path: String, prefix: String) -> String {
    prefix + "-" + path.split(separator: "/").suffix(3).joined(separator: "_").replacingOccurrences(of: " ", with: "_")
}

// MARK: SQLite, directly

/// Runs `sql` on the database at `path` (errors ignored: damaged inputs make many).
public func sqliteExecute(_ path: String, _ statements: [String]) {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { sqlite3_close(db); return }
    for sql in statements { sqlite3_exec(db, sql, nil, nil, nil) }
    sqlite3_close(db)
}

/// A blob of the first row of `column` in `table`, read directly.
public func sqliteBlob(_ path: String, _ sql: String) -> [UInt8]? {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { sqlite3_close(db); return nil }
    defer { sqlite3_close(db) }
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return nil }
    defer { sqlite3_finalize(s) }
    guard sqlite3_step(s) == SQLITE_ROW else { return nil }
    let n = Int(sqlite3_column_bytes(s, 0))
    guard n > 0, let p = sqlite3_column_blob(s, 0) else { return [] }
    return Array(UnsafeRawBufferPointer(start: p, count: n))
}

/// `sqliteBlob` of a store someone else owns (a fixture), read on a scratch copy.
public func sqliteBlobOfCopy(_ path: String, _ sql: String) -> [UInt8]? {
    let copy = Scratch.copyStore(path, as: "seed-source.sqlite")
    defer { Scratch.removeStore(copy) }
    return sqliteBlob(copy, sql)
}

/// Runs one statement with `blob` bound to its parameter.
public func sqliteSetBlob(_ path: String, _ sql: String, _ blob: [UInt8]) {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { sqlite3_close(db); return }
    defer { sqlite3_close(db) }
    var s: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else { return }
    defer { sqlite3_finalize(s) }
    _ = blob.withUnsafeBytes { sqlite3_bind_blob(s, 1, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sqliteTransient) }
    _ = sqlite3_step(s)
}


/// SQLITE_TRANSIENT, which Swift does not import.
nonisolated(unsafe) public let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Whether the targets say why an input was refused (OG_FUZZ_VERBOSE=1): for checking
/// that seeds get past the first checks.
public let verbose = ProcessInfo.processInfo.environment["OG_FUZZ_VERBOSE"] == "1"

/// `body`'s result, or nil after noting its error when verbose.
public func attempt<T>(_ what: String, _ body: () throws -> T) -> T? {
    do { return try body() } catch {
        if verbose { warn("\(what): \(error)\n") }
        return nil
    }
}

/// Writes a line to standard error.
public func warn(_ message: String) {
    FileHandle.standardError.write(Data(message.utf8))
}

/// The bytes of an SQLite store with data, in a rollback journal mode and checkpointed, so
/// that one file holds all of it: the template the SQLite fuzz targets copy per input.
public func sqliteTemplateStore(_ model: ManagedObjectModel) -> [UInt8] {
    let path = Scratch.directory + "/template.sqlite"
    Scratch.removeStore(path)
    do {
        // With persistent history, and a transaction of each kind of change in it.
        let coordinator = try makeSeedStore(type: StoreType.sqlite, path: path, model: model,
                                            options: [StoreOptionKey.historyTracking: .boolean(true)])
        let context = ManagedObjectContext(coordinator: coordinator)
        let people = try context.fetch(FetchRequest(entityName: "Person"))
        try people.first?.setValue(.integer(99), forKey: "age")
        try context.save()
        if let pet = try context.fetch(FetchRequest(entityName: "Dog")).last { try context.delete(pet) }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
    } catch { fatalError("cannot make the template store: \(error)") }
    sqliteExecute(path, ["PRAGMA journal_mode = DELETE"])
    let bytes = Scratch.read(path)
    Scratch.removeStore(path)
    return bytes
}
