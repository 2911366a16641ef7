import Foundation
import FuzzSupport
import ObjectGraph

/// One input: a model in ObjectGraph's JSON model format (docs/model-format.md). A model
/// that reads is written in both formats and read back, and stores are opened with it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let model = attempt("model", { try ManagedObjectModel(jsonData: Data(bytes: data, count: size)) }) else { return 0 }
    exerciseModel(model, origin: "JSON")
    return 0
}

/// Seeds: the JSON form of every fixture model (written by the engine), the fixtures'
/// JSON files, and the store targets' model.
func makeSeeds(_ dir: String) throws {
    let fixtures = repositoryRoot + "/Tests/Fixtures/Models"
    for path in xcodeModelFiles(under: fixtures) + xcodeModelFiles(under: appleStores) {
        guard let model = try? ManagedObjectModel(xcodeXML: Data(Scratch.read(path))) else { continue }
        try writeSeed(dir, seedName(path, prefix: "json"), Array(model.jsonString().utf8))
    }
    for path in files(under: fixtures, suffix: ".json") { try writeSeed(dir, seedName(path, prefix: "json"), Scratch.read(path)) }
    try writeSeed(dir, "json-fuzz-model", Array(fuzzModel().jsonString().utf8))
}

@_cdecl("fuzz_json_model_main")
public func fuzzJSONModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzJSONModel)
}
