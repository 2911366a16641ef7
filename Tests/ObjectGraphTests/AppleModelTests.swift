import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Models and stores written by Apple's tools (../shared/fixtures/apple-stores, read in
/// place; skipped when absent): XML and compiled forms give equal models, and our entity
/// version hashes equal the ones Apple recorded.
final class AppleModelTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/fixtures/apple-stores")
        .standardized.path

    func skipUnlessPresent() throws {
        guard FileManager.default.fileExists(atPath: Self.root) else { throw XCTSkip("no Apple fixtures at \(Self.root)") }
    }

    /// NSStoreModelVersionHashes of a store, read from a copy (a WAL store keeps its rows in -wal).
    func storeHashes(_ store: String) throws -> [String: [UInt8]] {
        let dir = try temporaryDirectory()
        let copy = dir + "/store.sqlite"
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        if FileManager.default.fileExists(atPath: store + "-wal") { try FileManager.default.copyItem(atPath: store + "-wal", toPath: copy + "-wal") }
        var db: OpaquePointer?
        guard sqlite3_open(copy, &db) == SQLITE_OK else { throw XCTSkip("cannot open \(store)") }
        defer { sqlite3_close(db) }
        var s: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT Z_PLIST FROM Z_METADATA", -1, &s, nil)
        defer { sqlite3_finalize(s) }
        guard sqlite3_step(s) == SQLITE_ROW, let blob = sqlite3_column_blob(s, 0) else { return [:] }
        let bytes = Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(s, 0))))
        let plist = try PropertyListValue.decode(bytes)
        return (plist.dictionaryValue?[StoreMetadataKey.modelVersionHashes]?.dictionaryValue ?? [:]).compactMapValues(\.dataValue)
    }

    func testEveryAppleModelLoadsAndItsHashesEqualApples() throws {
        try skipUnlessPresent()
        var matched = 0, total = 0
        func compare(_ label: String, _ model: ManagedObjectModel, _ expected: [String: [UInt8]]) {
            let ours = model.entityVersionHashesByName
            for (name, hash) in expected {
                total += 1
                if ours[name] == hash { matched += 1 } else { XCTFail("\(label): \(name) hash differs from Apple's") }
            }
        }
        let cdp = Self.root + "/coredataplus"
        for bundle in ["SampleModel", "SampleModel3"] {
            let momd = "\(cdp)/\(bundle)/\(bundle).momd", xcd = "\(cdp)/\(bundle)/\(bundle).xcdatamodeld"
            let info = try PropertyListValue.decode(Array(try Data(contentsOf: URL(fileURLWithPath: momd + "/VersionInfo.plist"))))
            let hashes = try XCTUnwrap(info.dictionaryValue?["NSManagedObjectModel_VersionHashes"]?.dictionaryValue)
            XCTAssertEqual(try ManagedObjectModel.versionNames(inBundle: momd), try ManagedObjectModel.versionNames(inBundle: xcd))
            for (version, value) in hashes {
                let expected = (value.dictionaryValue ?? [:]).compactMapValues(\.dataValue)
                let xml = try ManagedObjectModel(contentsOf: xcd, version: version)
                let mom = try ManagedObjectModel(contentsOf: momd, version: version)
                // Xcode's customClassName is the value class of a transformable; Apple's
                // model compiler leaves it out of the .mom (NSAttributeValueClassName is nil).
                for entity in xml.entities {
                    for case let a as AttributeDescription in entity.ownProperties where a.attributeType == .transformable {
                        try a.setAttributeValueClassName(nil)
                    }
                }
                XCTAssertTrue(xml.isEquivalent(to: mom), "\(bundle) \(version): XML and compiled forms differ\n\(xml.jsonString())\n\(mom.jsonString())")
                compare("\(version) XML", xml, expected)
                compare("\(version) .mom", mom, expected)
            }
        }
        let stores: [(String, String?, String?)] = [
            ("coredataplus/SampleModel/SampleModel_V1.sqlite", "coredataplus/SampleModel/SampleModel.xcdatamodeld", "SampleModel"),
            ("coredataplus/SampleModel/SampleModel_V2.sqlite", "coredataplus/SampleModel/SampleModel.xcdatamodeld", "SampleModel2"),
            ("coredataplus/SampleModel3/SampleModel3_V1.sqlite", "coredataplus/SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3"),
            ("coredataplus/SampleModel2-programmatic/SampleModel2_V1.sqlite", "coredataplus/SampleModel2-programmatic/model-from-Z_MODELCACHE/SampleModel2_V1.mom", nil),
            ("coredataplus/SampleModel2-programmatic/SampleModel2_V2.sqlite", "coredataplus/SampleModel2-programmatic/model-from-Z_MODELCACHE/SampleModel2_V2.mom", nil),
            ("wibosco-migration/CoreDataMigration_Example_1.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example"),
            ("wibosco-migration/CoreDataMigration_Example_2.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 2"),
            ("wibosco-migration/CoreDataMigration_Example_3.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 3"),
            ("wibosco-migration/CoreDataMigration_Example_WAL.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 4"),
            ("bookmigration/Model1.sqlite", "bookmigration/Model.xcdatamodeld", "Model1"),
            ("mwkcoredata/MWKCoreDataTests.sqlite", "mwkcoredata/MWKCoreDataTests.xcdatamodeld", "MWKCoreDataTests"),
            ("mwkcoredata/MWKCoreDataTests2.sqlite", "mwkcoredata/MWKCoreDataTests.xcdatamodeld", "MWKCoreDataTests2"),
        ]
        for (store, modelPath, version) in stores {
            let model = try ManagedObjectModel(contentsOf: "\(Self.root)/\(modelPath!)", version: version)
            let expected = try storeHashes("\(Self.root)/\(store)")
            compare(store, model, expected)
            var metadata: [String: PropertyListValue] = [:]
            metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(expected.mapValues { .data($0) })
            XCTAssertTrue(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata), store)
        }
        // Every version of every Xcode model folder loads.
        for bundle in ["bookmigration/Model.xcdatamodeld", "mwkcoredata/MWKCoreDataTests.xcdatamodeld", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"] {
            for v in try ManagedObjectModel.versionNames(inBundle: "\(Self.root)/\(bundle)") {
                _ = try ManagedObjectModel(contentsOf: "\(Self.root)/\(bundle)", version: v)
            }
        }
        print("Apple entity version hashes matched: \(matched)/\(total)")
        XCTAssertEqual(matched, total)
    }
}
