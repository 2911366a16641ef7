import Foundation
import FuzzSupport
import ObjectGraph

let model = fuzzModel()

/// One input: a whole Binary store file (signature, version, property list). Its metadata
/// is read without a stack, then it is added as a store and used (FuzzSupport.exercise).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = Scratch.directory + "/store.binary"
    Scratch.removeStore(path)
    Scratch.write("store.binary", inputBytes(data, size))
    _ = try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path)
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("add store", { try coordinator.addPersistentStore(type: StoreType.binary, path: path) }) != nil {
        exercise(coordinator, seed: size > 20 ? data[20] : 0)
    }
    return 0
}

/// Seeds: Binary store files the engine writes with the fuzz model (empty, after inserts,
/// after an update and a delete).
func makeSeeds(_ dir: String) throws {
    for (name, count) in [("binary-empty", 0), ("binary-small", 2), ("binary-full", 6)] {
        let path = Scratch.directory + "/seed.binary"
        Scratch.removeStore(path)
        if count == 0 {
            let c = try PersistentStoreCoordinator(model: model)
            let store = try c.addPersistentStore(type: StoreType.binary, path: path)
            let context = ManagedObjectContext(coordinator: c)
            _ = try context.insertObject(entityName: "Person")
            try context.save()
            try c.removePersistentStore(store)
        } else {
            _ = try makeSeedStore(type: StoreType.binary, path: path, model: model, objects: count)
        }
        try writeSeed(dir, name, Scratch.read(path))
    }
}

@_cdecl("fuzz_binary_store_main")
public func fuzzBinaryStoreMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzBinaryStore)
}
