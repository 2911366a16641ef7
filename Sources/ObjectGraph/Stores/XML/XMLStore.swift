import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The XML store (`NSXMLStoreType`): an atomic store in one file in Apple's XML store
/// format (docs/store-format.md, "XML store files"), so it reads the files Apple's Core
/// Data writes on macOS and writes files Apple's reader accepts.
///
/// Only the document format differs from the Binary store: the file is read and written
/// through `BinaryStore`'s `readDocument` and `writeDocument`, so a save writes a temporary
/// file beside the store, flushes it and renames it over the store under the file's lock,
/// and a save over a file another writer saved since this store read it is refused with
/// 134050, nothing written.
///
/// Object IDs (`z<number>`) are unique in the whole file, so new keys come from one counter
/// for every entity, starting after `<nextObjectID>`, the largest number used.
final class XMLStore: BinaryStore, @unchecked Sendable {
    static let typeName = "XML"

    private var lastObjectID: Int64 = 0
    private let names: XMLStoreNames

    init(xml setup: StoreSetup) throws(ObjectGraphError) {
        guard !setup.path.isEmpty else { throw .invalidArgument("an XML store needs the path of its file") }
        names = try XMLStoreNames(model: setup.model)
        try super.init(type: Self.typeName, setup: setup)
    }

    override func load() throws(ObjectGraphError) {
        guard let bytes = try readDocument() else { return }
        let document = try XMLStoreDocument.parse(bytes, path: path)
        metadata = Self.metadata(of: document, type: type)
        if metadata[StoreMetadataKey.modelVersionHashes] == nil {
            guard setup.parsedOptions.ignoreVersioning else {
                throw ObjectGraphError(
                    code: ErrorCode.storeIncompatibleVersionHash,
                    message: "the XML store '\(path)' records no model version hashes, so its model cannot be checked; add it with the ignore-versioning option to open it with this model",
                    userInfo: [(ErrorUserInfoKey.filePath, path)])
            }
            for (key, value) in freshMetadata() where metadata[key] == nil { metadata[key] = value }
        }
        // Before the objects are read, which may name entities the model lacks.
        try checkVersionHashes()
        let nodes = try XMLStoreObjects.nodes(document.objects, names: names, path: path)
        try addCacheNodes(nodes)
        lastObjectID = nodes.reduce(document.lastObjectID) { max($0, $1.referenceObject) }
    }

    override func save() throws(ObjectGraphError) {
        let nodes = cacheNodes
        // Keys are unique per hierarchy; IDs must be unique in the file. A key another
        // hierarchy took first (a store filled with keys from elsewhere) gets a new number.
        var top = nodes.reduce(lastObjectID) { max($0, $1.referenceObject) }
        var owner: [Int64: ObjectIdentifier] = [:]
        var renumbered: [ObjectIdentifier: [Int64: Int64]] = [:]
        for node in nodes {
            let root = ObjectIdentifier(node.entity.rootEntity)
            if let other = owner[node.referenceObject], other != root {
                top += 1
                renumbered[root, default: [:]][node.referenceObject] = top
            } else {
                owner[node.referenceObject] = root
            }
        }
        let number: (EntityDescription, Int64) -> Int64? = { root, key in
            if let n = renumbered[ObjectIdentifier(root)]?[key] { return n }
            return owner[key] == ObjectIdentifier(root) ? key : nil
        }
        let objects = try XMLStoreObjects.elements(nodes, number: number, path: path)
        let document = XMLStoreDocument(uuid: identifier, lastObjectID: top, metadata: Self.fileMetadata(metadata), objects: objects)
        try writeDocument(Array(document.text().utf8))
        lastObjectID = top
    }

    override func newReferenceObjects(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Int64 {
        var top = lastObjectID
        for root in model.entities where root.superentity == nil { top = max(top, largestReferenceObject(for: root)) }
        let first = try PrimaryKeys.first(after: top, count: count, root: entity, store: path)
        lastObjectID = try PrimaryKeys.last(first: first, count: count, root: entity, store: path)
        return first
    }

    // MARK: Metadata

    /// The store metadata of a parsed file: its plist, with the type and the UUID element.
    static func metadata(of document: XMLStoreDocument, type: String) -> [String: PropertyListValue] {
        var metadata = document.metadata ?? [:]
        metadata[StoreMetadataKey.storeType] = .string(type)
        metadata[StoreMetadataKey.storeUUID] = .string(document.uuid)
        return metadata
    }

    /// The metadata as the file keeps it: Apple's files leave the type and UUID out of the plist.
    static func fileMetadata(_ metadata: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var plist = metadata
        plist[StoreMetadataKey.storeType] = nil
        plist[StoreMetadataKey.storeUUID] = nil
        return plist
    }

    static func xmlMetadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        metadata(of: try XMLStoreDocument.parse(try readFile(path), path: path), type: typeName)
    }

    /// Replaces the metadata of the file at `path` under its lock, keeping every object as
    /// it is (a store open on the file sees another writer's change: its next save is 134050).
    static func setXMLMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        guard let lock = try StoreFileLock.lock(path, exclusive: true, create: false) else {
            throw ObjectGraphError(code: ErrorCode.storeOpen, message: "cannot open '\(path)': \(String(cString: strerror(ENOENT)))", userInfo: [(ErrorUserInfoKey.filePath, path)])
        }
        var document = try XMLStoreDocument.parse(try lock.contents(), path: path)
        if let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue { document.uuid = uuid }
        document.metadata = fileMetadata(metadata)
        try writeFile(path, Array(document.text().utf8))
        withExtendedLifetime(lock) {}
    }
}
