import Foundation
import FuzzSupport
import ObjectGraph

/// One input: an Xcode model version. Bytes that start `bplist` are Xcode 3's `elements`
/// archive, loaded from an `.xcdatamodel` folder as applications load it; anything else is
/// the `contents` XML. A model that reads is written in both formats and read back, and
/// stores are opened with it (FuzzSupport.exerciseModel).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXcodeModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = inputBytes(data, size)
    if bytes.starts(with: Array("bplist".utf8)) {
        Scratch.write(xcode3Folder + "/elements", bytes)
        guard let model = attempt("Xcode 3 model", { try ManagedObjectModel(contentsOf: Scratch.directory + "/" + xcode3Folder) }) else { return 0 }
        exerciseModel(model, origin: "an Xcode 3 archive")
        return 0
    }
    guard let model = attempt("model", { try ManagedObjectModel(xcodeXML: Data(bytes)) }) else { return 0 }
    exerciseModel(model, origin: "Xcode XML")
    return 0
}

/// The scratch `.xcdatamodel` folder (relative to the scratch directory) whose `elements`
/// each Xcode 3 input becomes.
let xcode3Folder: String = {
    try? FileManager.default.createDirectory(atPath: Scratch.directory + "/Input.xcdatamodel", withIntermediateDirectories: true)
    return "Input.xcdatamodel"
}()

/// Seeds: every Xcode model of the test fixtures (and of Apple's stores and the Xcode 3
/// fixtures when present: their `elements` archives and the XML they were converted to),
/// and the store targets' model as the writer emits it.
func makeSeeds(_ dir: String) throws {
    for path in xcodeModelFiles(under: repositoryRoot + "/Tests/Fixtures/Models") + xcodeModelFiles(under: appleStores)
        + xcodeModelFiles(under: xcode3Models)
    {
        try writeSeed(dir, seedName(path, prefix: "xml"), Scratch.read(path))
    }
    for path in files(under: xcode3Models, suffix: ".xcdatamodel/elements") {
        try writeSeed(dir, seedName(path, prefix: "elements"), Scratch.read(path))
    }
    try writeSeed(dir, "xml-fuzz-model", Array(fuzzModel().xcodeXMLString().utf8))
}

@_cdecl("fuzz_xcode_model_main")
public func fuzzXcodeModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzXcodeModel)
}
