/// The XML store type (`NSXMLStoreType`): an atomic store in one file in Apple's XML store
/// format, written whole by atomic rename.
final class XMLStoreType: PersistentStoreType {
    let name = XMLStore.typeName
    var capabilities: StoreTypeCapabilities { [.files, .automaticMigration, .recognizableFiles] }

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        try setup.refuseDerivedAttributes(name)
        return try XMLStore(xml: setup)
    }

    /// An XML document: the declaration, Core Data's DOCTYPE or the `<database>` element
    /// first (after a byte order mark or white space).
    func recognizes(header: [UInt8]) -> Bool {
        var bytes = header[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let text = String(decoding: bytes, as: UTF8.self)
        guard !text.isEmpty else { return false }
        return ["<?xml ", "<!DOCTYPE database", "<database>"].contains { text.hasPrefix($0) || $0.hasPrefix(text) && text.count >= 5 }
    }

    func metadata(at path: String) throws(ObjectGraphError) -> [String: PropertyListValue] {
        try XMLStore.xmlMetadata(at: path)
    }

    func setMetadata(_ metadata: [String: PropertyListValue], at path: String) throws(ObjectGraphError) {
        try XMLStore.setXMLMetadata(metadata, at: path)
    }
}
