import FuzzSupport
import ObjectGraph

/// One input: the `Z_MODELCACHE` blob of an SQLite store, that is a raw DEFLATE stream (the
/// hand-written decoder, `Inflate.swift`) holding a compiled model, read the way the store
/// tool and migration read it: `PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt:)`.
/// The bytes are arbitrary; a cache that reads must read the same model again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    sqliteSetBlob(store, "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", inputBytes(data, size))
    guard let model = attempt("cached model", { try PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: store) }) else {
        return 0
    }
    guard let again = try? PersistentStoreCoordinator.cachedModel(ofPersistentStoreAt: store),
          again.entityVersionHashesByName == model.entityVersionHashesByName
    else { fatalError("the same model cache read twice gave different models") }
    return 0
}

/// A store with a model cache, made once; each input replaces the cache's one row.
private let store: String = {
    let path = Scratch.directory + "/model-cache.sqlite"
    Scratch.removeStore(path)
    do { _ = try makeSeedStore(type: StoreType.sqlite, path: path, model: fuzzModel(), objects: 1) } catch {
        fatalError("cannot make the store the inputs go into: \(error)")
    }
    return path
}()

/// Seeds: the caches of stores the engine writes and of the fixtures' and Apple's stores
/// (zlib's dynamic blocks), a compiled model in stored blocks, an empty fixed-code block.
func makeSeeds(_ dir: String) throws {
    let own = Scratch.directory + "/seed.sqlite"
    Scratch.removeStore(own)
    _ = try makeSeedStore(type: StoreType.sqlite, path: own, model: fuzzModel())
    if let blob = sqliteBlob(own, "SELECT Z_CONTENT FROM Z_MODELCACHE") { try writeSeed(dir, "cache-engine", blob) }
    for root in [repositoryRoot + "/Tests/Fixtures", appleStores] {
        for path in files(under: root, suffix: ".sqlite") {
            if let blob = sqliteBlobOfCopy(path, "SELECT Z_CONTENT FROM Z_MODELCACHE") {
                try writeSeed(dir, seedName(path, prefix: "cache"), blob)
            }
        }
        for path in files(under: root, suffix: ".mom").prefix(4) {
            try writeSeed(dir, seedName(path, prefix: "stored"), storedBlocks(Scratch.read(path)))
        }
    }
    try writeSeed(dir, "fixed-empty", [0x03, 0x00])
}

/// `bytes` as DEFLATE stored blocks (RFC 1951 §3.2.4): no compression at all.
func storedBlocks(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    repeat {
        let length = min(65_535, bytes.count - start)
        let last: UInt8 = start + length == bytes.count ? 1 : 0
        out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
        out += bytes[start..<(start + length)]
        start += length
    } while start < bytes.count
    return out
}

@_cdecl("fuzz_model_cache_main")
public func fuzzModelCacheMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzModelCache)
}
