import Foundation
import FuzzSupport
import ObjectGraph

/// One input: a property list, binary (`bplist00`: the one reader behind store metadata,
/// Binary store files and compiled models) or XML. Decoding twice must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropertyList(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = inputBytes(data, size)
    guard let value = try? PropertyListValue.decode(bytes) else { return 0 }
    if (try? PropertyListValue.decode(bytes)) != value, !containsNaN(value) {
        fatalError("decoding the same property list twice gave different values")
    }
    return 0
}

private func containsNaN(_ v: PropertyListValue) -> Bool {
    switch v {
    case .real(let d): return d.isNaN
    case .date(let d): return d.timeIntervalSinceReferenceDate.isNaN
    case .array(let items): return items.contains(where: containsNaN)
    case .dictionary(let d): return d.values.contains(where: containsNaN)
    default: return false
    }
}

/// Seeds: store metadata written by the engine (SQLite and Binary), Foundation's binary
/// and XML property lists and keyed archives, and the property lists among the fixtures
/// and Apple's stores (VersionInfo.plist, .xccurrentversion, Z_METADATA blobs).
func makeSeeds(_ dir: String) throws {
    let model = fuzzModel()
    let sqlite = Scratch.directory + "/seed.sqlite"
    Scratch.removeStore(sqlite)
    _ = try makeSeedStore(type: StoreType.sqlite, path: sqlite, model: model)
    if let blob = sqliteBlob(sqlite, "SELECT Z_PLIST FROM Z_METADATA") { try writeSeed(dir, "plist-sqlite-metadata", blob) }
    let binary = Scratch.directory + "/seed.binary"
    Scratch.removeStore(binary)
    _ = try makeSeedStore(type: StoreType.binary, path: binary, model: model)
    try writeSeed(dir, "plist-binary-store", Array(Scratch.read(binary).dropFirst(12)))
    let sample: [String: Any] = ["s": "é", "i": -5, "big": Int64.max, "r": 2.5, "b": true, "d": Data([1, 2, 3]),
                                 "date": Date(timeIntervalSinceReferenceDate: 1), "a": [1, "two", [3]], "n": ["k": ["deep": 1]]]
    for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
        let data = try PropertyListSerialization.data(fromPropertyList: sample, format: format, options: 0)
        try writeSeed(dir, "plist-foundation-\(format == .binary ? "binary" : "xml")", Array(data))
    }
    let archive = try NSKeyedArchiver.archivedData(withRootObject: ["x": [1, "y"], "z": NSNull()] as NSDictionary, requiringSecureCoding: false)
    try writeSeed(dir, "plist-keyed-archive", Array(archive))
    for root in [repositoryRoot + "/Tests/Fixtures", appleStores] {
        for path in files(under: root, suffix: ".plist") + files(under: root, suffix: ".xccurrentversion") + files(under: root, suffix: ".mom") {
            try writeSeed(dir, seedName(path, prefix: "plist"), Scratch.read(path))
        }
        for path in files(under: root, suffix: ".sqlite") {
            if let blob = sqliteBlobOfCopy(path, "SELECT Z_PLIST FROM Z_METADATA") { try writeSeed(dir, seedName(path, prefix: "plist-metadata"), blob) }
        }
    }
}

@_cdecl("fuzz_plist_main")
public func fuzzPropertyListMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    fuzzMain(argc, argv, seeds: makeSeeds, target: fuzzPropertyList)
}
