import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The Binary store: an atomic store in one file (docs/store-format.md, "Binary store
/// files"): the signature `OGBINARY`, a format version, then a binary property list of
/// the metadata, the key counters and every record. Saves write a temporary file next
/// to the store and rename it over the store, so the file is always whole.
/// Subclasses keep the document format and store its bytes elsewhere (`readDocument`,
/// `writeDocument`), as stores implemented through the C callback table do; or keep the
/// file, its lock and its conflict check and write another format (`load`, `save`), as
/// the XML store does.
///
/// Several processes may share the file. Each store remembers the document it last read
/// or wrote (`knownDocument`: size and digest). A save takes an exclusive lock on the
/// file (`StoreFileLock`), checks under it that the file still holds that document, and
/// only then writes the new one and renames it over the file, still under the lock; if
/// another writer saved in between, nothing is written and the save fails with 134050
/// (`NSPersistentStoreSaveConflictsError`), the store's records as they were. Removing
/// and adding the store again (or a new coordinator) reads the other writer's data.
/// Temporary files of a save interrupted by a crash are removed when the store opens.
open class BinaryStore: AtomicStore, @unchecked Sendable {
    public static let signature: [UInt8] = Array("OGBINARY".utf8)
    public static let formatVersion: UInt32 = 1

    public convenience init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        try self.init(setup: StoreSetup(path: path, model: model))
    }

    /// A Binary store for the configuration and options of `setup`.
    public convenience init(setup: StoreSetup) throws(ObjectGraphError) {
        guard !setup.path.isEmpty else { throw .invalidArgument("a Binary store needs the path of its file") }
        try self.init(type: StoreType.binary, setup: setup)
    }

    /// A store of `type` in the Binary document format, kept where `readDocument` and
    /// `writeDocument` say.
    public override init(type: String, setup: StoreSetup) throws(ObjectGraphError) {
        Self.removeInterruptedSaves(setup.path)
        try super.init(type: type, setup: setup)
    }

    public override init(type: String, path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        Self.removeInterruptedSaves(path)
        try super.init(type: type, path: path, model: model)
    }

    /// The store's document (signature, version, property list), or nil when there is
    /// no store yet. The default reads the file at `path` (under a shared lock, so it is
    /// the file a save left whole) and remembers what it read for the next save's check.
    open func readDocument() throws(ObjectGraphError) -> [UInt8]? {
        guard let lock = try StoreFileLock.lock(path, exclusive: false, create: false) else { return nil }
        let bytes = try lock.contents()
        knownDocument = DocumentDigest(bytes)
        return bytes
    }

    /// Keeps the store's whole document. The default locks the file at `path`, checks
    /// that it still holds the document this store last read or wrote (else 134050 and
    /// nothing is written), writes a temporary file beside `path` and renames it over
    /// `path`, then unlocks.
    open func writeDocument(_ bytes: [UInt8]) throws(ObjectGraphError) {
        let known = knownDocument
        // A store that found no file locks an empty one it creates (or the file another
        // writer created meanwhile, which the check then refuses).
        guard let lock = try StoreFileLock.lock(path, exclusive: true, create: known == nil || known == .empty) else {
            throw conflict("the file was removed")
        }
        if let known {
            let unchanged = lock.size == known.size ? DocumentDigest(try lock.contents()) == known : false
            if !unchanged { throw conflict("another writer saved it since this store read it") }
        }
        do throws(ObjectGraphError) {
            try Self.writeFile(path, bytes)
        } catch {
            // Leave no empty file where there was none (still ours: we hold its lock).
            if lock.created && lock.size == 0 { unlink(path) }
            throw error
        }
        knownDocument = DocumentDigest(bytes)
        withExtendedLifetime(lock) {}
    }

    private func conflict(_ why: String) -> ObjectGraphError {
        ObjectGraphError(
            code: ErrorCode.storeSaveConflicts,
            message: "the store '\(path)' was not saved: \(why), and saving would overwrite that; nothing was written. "
                + "Add the store again (or use a new coordinator) to read the file as it is now, then redo the changes",
            userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// Removes the temporary files (`<path>.tmp-<pid>`) of saves that a crash or a kill
    /// interrupted before their rename. Under a shared lock on the store file no save is
    /// between writing its temporary file and renaming it, so any such file is left over.
    /// Nothing happens when there is no store file.
    static func removeInterruptedSaves(_ path: String) {
        guard !path.isEmpty, let lock = try? StoreFileLock.lock(path, exclusive: false, create: false) else { return }
        let directory: String, base: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
            base = String(path[path.index(after: slash)...])
        } else {
            (directory, base) = (".", path)
        }
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        let prefix = base + ".tmp-"
        var leftovers: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix(prefix) else { continue }
            let pid = name.dropFirst(prefix.count)
            if !pid.isEmpty && pid.allSatisfy(\.isASCII) && pid.allSatisfy(\.isNumber) { leftovers.append(name) }
        }
        // unlink, not remove: a directory of that name is not a left-over save.
        for name in leftovers { unlink(directory + "/" + name) }
        withExtendedLifetime(lock) {}
    }

    public override func load() throws(ObjectGraphError) {
        guard let bytes = try readDocument() else { return }
        let root = try Self.decodeRoot(bytes, path: path)
        if let meta = root["metadata"]?.dictionaryValue { metadata = meta }
        // Before the records are read, which may name entities the model lacks.
        try checkVersionHashes()
        var nodes: [AtomicStoreCacheNode] = []
        for item in root["nodes"]?.arrayValue ?? [] {
            guard let dict = item.dictionaryValue, let name = dict["entity"]?.stringValue, let pk = dict["pk"]?.integerValue else {
                throw Self.damaged(path, "a record has no entity or key")
            }
            guard let entity = model.entity(named: name) else {
                throw ObjectGraphError(code: ErrorCode.storeIncompatibleSchema, message: "the store '\(path)' has records of entity '\(name)', which the model does not have")
            }
            let node = AtomicStoreCacheNode(entity: entity, referenceObject: pk, version: dict["version"]?.integerValue ?? 1,
                                            values: [AttributeValue](repeating: .null, count: entity.properties.count))
            for (key, value) in dict["values"]?.dictionaryValue ?? [:] {
                guard let slot = entity.layout.slotByName[key] else { continue }
                node.values[slot] = try Self.attributeValue(value, for: entity.properties[slot], path: path)
            }
            for (key, value) in dict["members"]?.dictionaryValue ?? [:] {
                node.members[key] = (value.arrayValue ?? []).compactMap(\.integerValue)
            }
            nodes.append(node)
        }
        try addCacheNodes(nodes)
        for (name, value) in root["keys"]?.dictionaryValue ?? [:] {
            if let entity = model.entity(named: name), let key = value.integerValue { noteReferenceObject(key, for: entity) }
        }
    }

    public override func save() throws(ObjectGraphError) {
        var records: [PropertyListValue] = []
        for node in cacheNodes {
            var values: [String: PropertyListValue] = [:]
            for (slot, property) in node.entity.properties.enumerated() where slot < node.values.count {
                if let v = Self.plistValue(node.values[slot]) { values[property.name] = v }
            }
            var record: [String: PropertyListValue] = [
                "entity": .string(node.entity.name), "pk": .integer(node.referenceObject),
                "version": .integer(node.version), "values": .dictionary(values),
            ]
            if !node.members.isEmpty { record["members"] = .dictionary(node.members.mapValues { .array($0.map { .integer($0) }) }) }
            records.append(.dictionary(record))
        }
        var keys: [String: PropertyListValue] = [:]
        for entity in model.entities where entity.superentity == nil {
            let key = largestReferenceObject(for: entity)
            if key > 0 { keys[entity.name] = .integer(key) }
        }
        let root: PropertyListValue = .dictionary(["metadata": .dictionary(metadata), "keys": .dictionary(keys), "nodes": .array(records)])
        try writeDocument(Self.header + BinaryPropertyList.encode(root))
    }

    static var header: [UInt8] {
        signature + [UInt8(formatVersion >> 24 & 0xFF), UInt8(formatVersion >> 16 & 0xFF), UInt8(formatVersion >> 8 & 0xFF), UInt8(formatVersion & 0xFF)]
    }

    // MARK: Metadata without a stack

    /// The metadata of the Binary store file at `path`.
    public static func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try readRoot(path)["metadata"]?.dictionaryValue ?? [:]
    }

    /// Replaces the metadata of the Binary store file at `path`, keeping its records. The
    /// file is read and replaced under its lock, so no store's save interleaves (a store
    /// open on the file sees the change as another writer's: its next save is 134050).
    public static func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        guard let lock = try StoreFileLock.lock(path, exclusive: true, create: false) else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot open '\(path)': \(String(cString: strerror(ENOENT)))", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        var root = try decodeRoot(try lock.contents(), path: path)
        root["metadata"] = .dictionary(metadata)
        try writeFile(path, header + BinaryPropertyList.encode(.dictionary(root)))
        withExtendedLifetime(lock) {}
    }

    // MARK: Files

    static func damaged(_ path: String, _ why: String) -> ObjectGraphError {
        ObjectGraphError(code: ErrorCode.storeInvalidType, message: "'\(path)' is not a valid Binary store: \(why)", userInfo: [(ErrorUserInfoKey.filePath, path)])
    }

    /// The metadata of a store document in the Binary format that its type keeps somewhere
    /// of its own (a custom atomic store's), `path` naming it in errors.
    public static func metadata(document bytes: [UInt8], path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try decodeRoot(bytes, path: path)["metadata"]?.dictionaryValue ?? [:]
    }

    static func readRoot(_ path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try decodeRoot(try readFile(path), path: path)
    }

    static func decodeRoot(_ bytes: [UInt8], path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        guard bytes.count >= 12, Array(bytes[0..<8]) == signature else {
            throw damaged(path, "it does not start with the signature OGBINARY")
        }
        let version = bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == formatVersion else { throw damaged(path, "format version \(version) is not \(formatVersion)") }
        let plist: PropertyListValue
        do { plist = try BinaryPropertyList.decode(Array(bytes[12...])) } catch {
            throw damaged(path, "its contents cannot be read (\(error))")
        }
        guard case .dictionary(let root) = plist else { throw damaged(path, "its contents are not a dictionary") }
        return root
    }

    static func readFile(_ path: String) throws(ObjectGraphError) -> [UInt8] {
        guard let f = fopen(path, "rb") else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot open '\(path)': \(String(cString: strerror(errno)))", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { break }
        }
        return bytes
    }

    /// Writes `bytes` to a temporary file beside `path`, flushes it, and renames it over `path`.
    /// Callers hold the store file's exclusive lock, so one temporary name per process is enough.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(ObjectGraphError) {
        let temporary = path + ".tmp-\(getpid())"
        func failure(_ what: String) -> ObjectGraphError {
            ObjectGraphError(code: ErrorCode.storeSave, message: "cannot write '\(path)': \(what): \(String(cString: strerror(errno)))", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n <= 0 {
                let error = failure("write failed")
                _ = Glibc.close(fd)
                unlink(temporary)
                throw error
            }
            written += n
        }
        if fsync(fd) != 0 || Glibc.close(fd) != 0 {
            let error = failure("flush failed")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("rename failed")
            unlink(temporary)
            throw error
        }
    }

    // MARK: Values

    static func plistValue(_ value: AttributeValue) -> PropertyListValue? {
        switch value {
        case .null: nil
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        case .boolean(let b): .boolean(b)
        case .string(let s): .string(s)
        case .date(let d): .date(d)
        case .data(let d): .data(Array(d))
        case .decimal(let d): .string(d.description)
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u): .string(u)
        // A save hands the store bytes; this keeps any other value as its archive.
        case .transformable(let t): .data(Array(SecureArchive.encode(t)))
        }
    }

    static func attributeValue(_ value: PropertyListValue, for property: PropertyDescription, path: String) throws(ObjectGraphError) -> AttributeValue {
        guard let a = property as? AttributeDescription else {
            guard let key = value.integerValue else { throw damaged(path, "'\(property.name)' does not hold a key") }
            return .integer(key)
        }
        let result: AttributeValue?
        switch (a.attributeType, value) {
        case (.integer16, .integer(let i)), (.integer32, .integer(let i)), (.integer64, .integer(let i)): result = .integer(i)
        case (.double, .real(let d)), (.float, .real(let d)): result = .double(d)
        case (.boolean, .boolean(let b)): result = .boolean(b)
        case (.string, .string(let s)): result = .string(s)
        case (.date, .date(let d)): result = .date(d)
        case (.decimal, .string(let s)): result = Decimal(string: s).map { .decimal($0) }
        case (.uuid, .string(let s)): result = UUID(uuidString: s).map { .uuid($0) }
        case (.uri, .string(let s)): result = URL(string: s) != nil ? .uri(s) : nil
        case (_, .data(let d)): result = .data(Data(d))
        case (_, .integer(let i)): result = .integer(i)
        case (_, .real(let d)): result = .double(d)
        case (_, .string(let s)): result = .string(s)
        default: result = nil
        }
        guard let result else { throw damaged(path, "'\(property.entity?.name ?? "?").\(property.name)' holds a value of the wrong type") }
        return result
    }
}
