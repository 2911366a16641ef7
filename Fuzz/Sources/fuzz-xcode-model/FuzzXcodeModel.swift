import Foundation
import FuzzSupport
import ObjectGraph

/// One input: the `contents` XML of an `.xcdatamodel`. A model that reads is written in
/// both formats and read back, and stores are opened with it (FuzzSupport.exerciseModel).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXcodeModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let model = attempt("model", { try ManagedObjectModel(xcodeXML: Data(bytes: data, count: size)) }) else { return 0 }
    exerciseModel(model, origin: "Xcode XML")
    return 0
}

/// Seeds: every Xcode model of the test fixtures (and of Apple's stores when present),
/// and the store targets' model as the writer emits it.
func makeSeeds(_ dir: String) throws {
    for path in xcodeModelFiles(under: repositoryRoot + "/Tests/Fixtures/Models") + xcodeModelFiles(under: appleStores) {
        try writeSeed(dir, seedName(path, prefix: "xml"), Scratch.read(path))
    }
    try writeSeed(dir, "xml-fuzz-model", Array(fuzzModel().xcodeXMLString().utf8))
}

@_cdecl("fuzz_xcode_model_main")
public func fuzzXcodeModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzXcodeModel)
}
