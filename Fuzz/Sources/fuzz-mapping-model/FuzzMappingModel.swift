import Foundation
import FuzzSupport
import ObjectGraph

/// One input: a mapping model file, loaded from a file as applications load them. Its
/// first bytes say which reader gets it: a binary property list is a compiled `.cdm`,
/// text starting with `{` the JSON form, anything else the `xcmapping.xml` of an
/// `.xcmappingmodel` folder. A mapping model that reads has its expressions parsed and is
/// saved in both writable formats; each copy must read back equal to it (a writer's output
/// that does not is a finding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMappingModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = inputBytes(data, size)
    let path: String
    if bytes.starts(with: Array("bplist".utf8)) {
        path = Scratch.write("mapping.cdm", bytes)
    } else if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
        path = Scratch.write("mapping.json", bytes)
    } else {
        path = Scratch.directory + "/mapping.xcmappingmodel"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        Scratch.write("mapping.xcmappingmodel/xcmapping.xml", bytes)
    }
    guard let model = attempt("mapping model", { try MappingModel.load(path: path) }) else { return 0 }
    exerciseMappingModel(model)
    return 0
}

/// The models a mapping is checked against (made once: inputs run thousands a second).
let checkModel = fuzzModel()

func exerciseMappingModel(_ model: MappingModel) {
    for m in model.entityMappings {
        let texts = [m.sourceExpression].compactMap { $0 } + (m.attributeMappings + m.relationshipMappings).compactMap(\.valueExpression)
        for text in texts { _ = attempt("expression") { try ObjectExpression(format: text) } }
    }
    _ = model.entityMappingsByName
    let json = model.jsonString()
    guard model.copy().jsonString() == json else { fatalError("a copy of a mapping model differs from it\n\(json)") }
    _ = attempt("check") { try model.check(source: checkModel, destination: checkModel) }
    for name in ["copy.json", "copy.xcmappingmodel"] {
        let target = Scratch.directory + "/" + name
        do {
            try model.save(path: target)
            let again = try MappingModel.load(path: target).jsonString()
            guard again == json else { fatalError("a mapping model saved as \(name) reads back different:\n\(json)\n---\n\(again)") }
        } catch {
            fatalError("a mapping model saved as \(name) does not read back: \(error)\n\(json)")
        }
    }
}

/// Seeds: the good fixtures (JSON, Xcode folders and compiled files), each also in the
/// formats this library writes, and the malformed fixtures as they are.
func makeSeeds(_ dir: String) throws {
    let bad = repositoryRoot + "/Tests/Fixtures/mappings/bad"
    for path in files(under: bad, suffix: ".json") + files(under: bad, suffix: ".cdm") + files(under: bad, suffix: "xcmapping.xml") {
        try writeSeed(dir, seedName(path, prefix: "mapping-bad"), Scratch.read(path))
    }
    let fixtures = repositoryRoot + "/Tests/Fixtures/mappings/good"
    for path in files(under: fixtures, suffix: ".json") + files(under: fixtures, suffix: ".cdm")
        + files(under: fixtures, suffix: "xcmapping.xml") {
        try writeSeed(dir, seedName(path, prefix: "mapping"), Scratch.read(path))
        let load = path.hasSuffix("xcmapping.xml") ? String(path.dropLast("/xcmapping.xml".count)) : path
        guard let model = try? MappingModel.load(path: load) else { continue }
        try writeSeed(dir, seedName(path, prefix: "mapping-json"), Array(model.jsonString().utf8))
        try writeSeed(dir, seedName(path, prefix: "mapping-xml"), Array(model.xcodeMappingXMLString().utf8))
    }
}

@_cdecl("fuzz_mapping_model_main")
public func fuzzMappingModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzMappingModel)
}
