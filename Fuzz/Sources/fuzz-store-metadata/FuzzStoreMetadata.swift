import Foundation
import FuzzSupport
import ObjectGraph

let model = fuzzModel()

/// An SQLite store with data, made once per process; each input starts from a copy.
let template = sqliteTemplateStore(model)

/// One input: the store metadata (`Z_METADATA.Z_PLIST`) of an SQLite store with data. The
/// metadata is read without a stack and set again (re-encoding what was decoded), then
/// the store is added and used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = Scratch.directory + "/store.sqlite"
    Scratch.removeStore(path)
    Scratch.write("store.sqlite", template)
    sqliteSetBlob(path, "UPDATE Z_METADATA SET Z_PLIST = ?", inputBytes(data, size))
    if var metadata = try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: StoreType.sqlite, at: path) {
        metadata["fuzz"] = .string("x")
        _ = try? PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: StoreType.sqlite, at: path)
    }
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("add store", { try coordinator.addPersistentStore(type: StoreType.sqlite, path: path) }) != nil {
        exercise(coordinator, seed: size > 10 ? data[10] : 0)
    }
    return 0
}

/// Seeds: the metadata the engine writes, and Apple's when its stores are present.
func makeSeeds(_ dir: String) throws {
    let path = Scratch.write("seed.sqlite", template)
    if let blob = sqliteBlob(path, "SELECT Z_PLIST FROM Z_METADATA") { try writeSeed(dir, "metadata-engine", blob) }
    for store in files(under: appleStores, suffix: ".sqlite") {
        if let blob = sqliteBlobOfCopy(store, "SELECT Z_PLIST FROM Z_METADATA") { try writeSeed(dir, seedName(store, prefix: "metadata"), blob) }
    }
}

@_cdecl("fuzz_store_metadata_main")
public func fuzzStoreMetadataMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzStoreMetadata)
}
