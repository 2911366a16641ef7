import Foundation
import FuzzSupport
import ObjectGraph

let model = fuzzModel()

/// One input: a whole XML store file. Its metadata is read without a stack, then it is
/// added as a store (versioning ignored, so the objects are read) and used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = Scratch.directory + "/store.xml"
    Scratch.removeStore(path)
    Scratch.write("store.xml", inputBytes(data, size))
    _ = try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: "XML", at: path)
    if let coordinator = try? PersistentStoreCoordinator(model: model),
       attempt("add store", {
           try coordinator.addPersistentStore(type: "XML", configuration: nil, path: path, options: ["NSIgnorePersistentStoreVersioningOption": .boolean(true)])
       }) != nil {
        exercise(coordinator, seed: size > 300 ? data[300] : 0)
    }
    return 0
}

/// Seeds: XML stores the engine writes with the fuzz model, and the Apple-written fixture.
func makeSeeds(_ dir: String) throws {
    for (name, count) in [("xml-small", 2), ("xml-full", 6)] {
        let path = Scratch.directory + "/seed.xml"
        Scratch.removeStore(path)
        _ = try makeSeedStore(type: "XML", path: path, model: model, objects: count)
        try writeSeed(dir, name, Scratch.read(path))
    }
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Tests/Fixtures/Stores/XML").path
    for file in files(under: fixtures, suffix: ".xml") {
        try writeSeed(dir, seedName(file, prefix: "apple"), Scratch.read(file))
    }
}

@_cdecl("fuzz_xml_store_main")
public func fuzzXMLStoreMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzXMLStore)
}
