#if canImport(Glibc)
import Glibc
#endif

/// The registry of store types (`registerStoreClass:forStoreType:`): the coordinator,
/// migration and the store tool find a type here by name, or by a file's first bytes.
/// The built-in types are registered when the registry is first used, through the same
/// `register` an application calls.
public enum StoreTypes {
    private static let lock = RecursiveLock()
    nonisolated(unsafe) private static var byName: [String: PersistentStoreType] = builtIn()
    /// Names in registration order: detection asks the built-in types first.
    nonisolated(unsafe) private static var order: [String] = builtInNames

    /// The type a store file is taken to be when none is named (migration without types):
    /// SQLite, Core Data's default.
    public static let defaultName = StoreType.sqlite

    private static let builtInNames = [StoreType.sqlite, StoreType.binary, StoreType.inMemory, XMLStore.typeName, PostgreSQLStore.typeName]

    private static func builtIn() -> [String: PersistentStoreType] {
        [
            StoreType.sqlite: SQLiteStoreType(), StoreType.binary: BinaryStoreType(), StoreType.inMemory: InMemoryStoreType(),
            XMLStore.typeName: XMLStoreType(), PostgreSQLStore.typeName: PostgreSQLStoreType(),
        ]
    }

    /// Registers `type` under its name. 140002 for an empty name or a built-in one (they
    /// cannot be replaced); registering a name again replaces the application's type, or
    /// is 140002 when `replacing` is false.
    public static func register(_ type: PersistentStoreType, replacing: Bool = true) throws(ObjectGraphError) {
        guard !type.name.isEmpty, !isBuiltIn(type.name) else {
            throw .invalidArgument("'\(type.name)' cannot be registered: it is empty or a built-in store type")
        }
        try lock.withLock { () throws(ObjectGraphError) in
            if !replacing, byName[type.name] != nil { throw .invalidArgument("a store type named '\(type.name)' is registered already") }
            if byName.updateValue(type, forKey: type.name) == nil { order.append(type.name) }
        }
    }

    /// Removes the application's type `name`; stores of it already added keep working.
    /// 140002 for a built-in type or one in use (`isInUse`), 134000 when no type has that name.
    public static func unregister(_ name: String) throws(ObjectGraphError) {
        guard !isBuiltIn(name) else { throw .invalidArgument("'\(name)' is a built-in store type") }
        let removed = try lock.withLock { () throws(ObjectGraphError) -> Bool in
            guard let type = byName[name] else { return false }
            if type.isInUse { throw .invalidArgument("the store type '\(name)' cannot be unregistered: stores of it are open") }
            byName.removeValue(forKey: name)
            order.removeAll { $0 == name }
            return true
        }
        guard removed else { throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "no store type '\(name)' is registered") }
    }

    /// `path` as messages show it (`displayPath`): by the type named, or the type that
    /// recognises the address; unchanged otherwise.
    public static func displayPath(_ path: String, type name: String? = nil) -> String {
        let candidates = lock.withLock { order.compactMap { byName[$0] } }
        if let name, let type = candidates.first(where: { $0.name == name }) { return type.displayPath(path) }
        return candidates.first { $0.recognizes(address: path) }?.displayPath(path) ?? path
    }

    public static func isBuiltIn(_ name: String) -> Bool { builtInNames.contains(name) }

    /// Removes the files of a store of type `name` at `path` (what a failed or abandoned
    /// migration or copy made); only `path` itself for a type no longer registered.
    static func removeStore(at path: String, type name: String) {
        guard !path.isEmpty else { return }
        if let type = named(name) { type.removeStore(at: path) } else { unlink(path) }
    }

    /// The registered type named `name`, or nil.
    public static func named(_ name: String) -> PersistentStoreType? {
        lock.withLock { byName[name] }
    }

    /// The registered type named `name`; 134010 naming the known types when there is none.
    public static func require(_ name: String) throws(ObjectGraphError) -> PersistentStoreType {
        guard let type = named(name) else {
            throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "unknown store type '\(name)'; known types: \(names.joined(separator: ", "))")
        }
        return type
    }

    /// The registered type names, in name order (`registeredStoreTypes`).
    public static var names: [String] { lock.withLock { byName.keys.sorted() } }

    /// The type of the store file at `path`: `name` when given (checked against the file
    /// when some type recognises it), else the type that recognises its first bytes.
    /// Errors: 134080 when there is no readable file, 134010 when no type recognises it,
    /// 134010 (`storeTypeMismatch`) when it is a store of another type than `name`.
    public static func type(ofStoreAt path: String, named name: String?) throws(ObjectGraphError) -> PersistentStoreType {
        // A store that is no file (a database server's) is found by its type or its address.
        if let name, let given = named(name), !given.capabilities.contains(.files) { return given }
        if name == nil, let found = lock.withLock({ order.compactMap { byName[$0] } }).first(where: { $0.recognizes(address: path) }) {
            return found
        }
        guard access(path, R_OK) == 0 else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "there is no readable store at '\(path)'", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        let header = StoreFiles.header(of: path)
        let candidates = lock.withLock { order.compactMap { byName[$0] } }
        let found = candidates.first { $0.recognizes(header: header) }
        if let name {
            let given = try require(name)
            // A type that cannot tell its files apart (a custom atomic type's documents are
            // in the Binary format) is taken at its word.
            if let found, found !== given, given.capabilities.contains(.recognizableFiles) {
                throw ObjectGraphError(code: ErrorCode.storeTypeMismatch, message: "'\(path)' is a \(found.name) store, not \(name)", userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            if found == nil, given.capabilities.contains(.recognizableFiles) {
                throw ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a \(name) store", userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            return given
        }
        guard let found else {
            throw ObjectGraphError(
                code: ErrorCode.storeInvalidType,
                message: "'\(path)' is not a store of a type that can be recognised from its first bytes; give its type",
                userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        return found
    }
}
