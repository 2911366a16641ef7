/// The in-memory store type (`NSInMemoryStoreType`): no files; its path is only a name.
final class InMemoryStoreType: PersistentStoreType {
    let name = StoreType.inMemory
    var capabilities: StoreTypeCapabilities { [] }

    func makeStore(_ setup: StoreSetup) throws(ObjectGraphError) -> PersistentStore {
        try setup.refuseDerivedAttributes(name)
        return InMemoryStore(setup: setup)
    }

    func hasStore(at path: String) -> Bool { false }
    func files(at path: String) -> [String] { [] }
    func copyStore(at path: String, to destination: String) throws(ObjectGraphError) {
        throw ObjectGraphError(code: ErrorCode.storeOperation, message: "an in-memory store has no file to copy ('\(path)')")
    }
}
