import Foundation
@testable import ObjectGraph
import XCTest

/// Damaged Xcode 3 `elements` archives (Xcode3ModelReader.swift, Xcode3Archive.swift):
/// each is refused with an invalid-model error that names the `elements` file, the
/// element and what is wrong, and none crashes. The archives are built here
/// (Xcode3ArchiveBuilder), each wrong in one way: cut short, of the wrong classes, without
/// a key the reader needs, with references past the end or in circles.
final class Xcode3DamagedArchiveTests: XCTestCase {
    /// Loads `sample` from a folder and returns the error, which must be an invalid
    /// model naming the `elements` file.
    func refusal(_ sample: Xcode3SampleArchive, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try refusal(sample.b.bytes(), file: file, line: line)
    }

    func refusal(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let folder = try temporaryDirectory() + "/Damaged.xcdatamodel"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/elements"))
        let e = expectError({ _ = try ManagedObjectModel(contentsOf: folder) }, file: file, line: line)
        XCTAssertEqual(e?.code, ErrorCode.invalidModel, e?.message ?? "", file: file, line: line)
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.filePath), folder + "/elements", file: file, line: line)
        XCTAssertTrue(e?.message.hasPrefix(folder + "/elements") ?? false, e?.message ?? "", file: file, line: line)
        return e?.message ?? ""
    }

    func testNotAnArchive() throws {
        XCTAssertTrue(try refusal(Array("not a property list".utf8)).contains("not an Xcode 3 model archive: malformed binary property list"))
        XCTAssertTrue(try refusal([]).contains("not an Xcode 3 model archive"))
        let plain = BinaryPropertyList.encode(.dict(["a": .int(1)]), uniquing: false)
        XCTAssertTrue(try refusal(plain).contains("not an NSKeyedArchiver archive"))
    }

    func testTruncatedArchivesAreRefused() throws {
        let bytes = Xcode3SampleArchive().b.bytes()
        for length in stride(from: 0, to: bytes.count, by: 13) {
            let message = try refusal(Array(bytes.prefix(length)))
            XCTAssertTrue(message.contains("not an Xcode 3 model archive"), message)
        }
        // A real file cut short, when the fixtures are there.
        if let real = try? Data(contentsOf: URL(fileURLWithPath: Xcode3ModelReaderTests.root + "/learn-coredata-locations/Locations.xcdatamodel/elements")) {
            for length in stride(from: 0, to: real.count, by: 211) { _ = try refusal(Array(real.prefix(length))) }
        }
    }

    /// Every single-byte change of the sample loads or is refused; none crashes.
    func testChangedBytesNeverCrash() throws {
        let bytes = Xcode3SampleArchive().b.bytes()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let folder = try temporaryDirectory() + "/Changed.xcdatamodel"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for _ in 0..<400 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var changed = bytes
            changed[Int(state >> 33) % changed.count] = UInt8(truncatingIfNeeded: state >> 17)
            try Data(changed).write(to: URL(fileURLWithPath: folder + "/elements"))
            do { _ = try ManagedObjectModel(contentsOf: folder) } catch let e as ObjectGraphError {
                XCTAssertEqual(e.code, ErrorCode.invalidModel, e.message)
            }
        }
    }

    /// Changes past the property-list layer: fields of the sample's objects replaced by
    /// references anywhere (past the end too), numbers, strings, empty containers, or
    /// removed. Each archive loads (and writes back) or is refused; none crashes.
    func testChangedObjectsNeverCrash() throws {
        let sample = Xcode3SampleArchive().b
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        let dir = try temporaryDirectory()
        var loaded = 0
        for _ in 0..<300 {
            var b = sample
            for _ in 0...next(3) {
                let i = 1 + next(b.objects.count - 1)
                guard case .dict(var d) = b.objects[i], !d.isEmpty else { continue }
                let key = d.keys.sorted()[next(d.count)]
                let replacements: [BinaryPropertyList.Object] = [
                    .uid(next(b.objects.count + 3)), .int(Int64(next(5)) - 1), .string("YES"), .bool(true), .array([]), .dict([:]), .uid(i),
                ]
                if next(8) == 0 { d[key] = nil } else { d[key] = replacements[next(replacements.count)] }
                b.objects[i] = .dict(d)
            }
            let folder = try b.write(in: dir, name: "Changed")
            do {
                let m = try ManagedObjectModel(contentsOf: folder)
                loaded += 1
                try m.write(toPath: dir + "/Again.xcdatamodel")
                XCTAssertEqual(try ManagedObjectModel(contentsOf: dir + "/Again.xcdatamodel").entityVersionHashesByName, m.entityVersionHashesByName)
            } catch let e as ObjectGraphError {
                XCTAssertEqual(e.code, ErrorCode.invalidModel, e.message)
            }
        }
        XCTAssertGreaterThan(loaded, 0, "some changes leave a model that reads")
    }

    func testWrongClassesAreRefused() throws {
        var s = Xcode3SampleArchive()
        s.b.root = s.person
        XCTAssertTrue(try refusal(s).contains("the archive's root object is an XDPMEntity, not an XDPMModel"))

        s = Xcode3SampleArchive()
        s.b.set(s.package, "XDBucketForClassesstorage", s.b.dictionary([("Person", s.age)]))
        XCTAssertTrue(try refusal(s).contains("entity 'Person' is an XDPMAttribute (object #"))

        s = Xcode3SampleArchive()
        s.b.set(s.person, "XDBucketForOwnedAttributesstorage", s.b.dictionary([("age", s.pet)]))
        let m = try refusal(s)
        XCTAssertTrue(m.contains("entity 'Person', property 'age': the property is an XDPMEntity"), m)

        s = Xcode3SampleArchive()
        s.set(s.age, "XD_PPropStereotype", "XD_PPSK_isOptional", s.b.string("YES"))
        XCTAssertTrue(try refusal(s).hasSuffix("entity 'Person', property 'age': XD_PPSK_isOptional is a string, not a Boolean"))

        s = Xcode3SampleArchive()
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_destination", s.age)
        XCTAssertTrue(try refusal(s).contains("property 'pets': XD_PRK_destination is an XDPMAttribute"))

        s = Xcode3SampleArchive()
        s.set(s.age, "XD_PAtt_Stereotype", "XD_PAttK_attributeType", .int(1500))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'age': XD_PAttK_attributeType 1500 is not a Core Data attribute type"))

        s = Xcode3SampleArchive()
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_deleteRule", .int(7))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': XD_PRK_deleteRule 7 is not a delete rule (0 to 3)"))

        s = Xcode3SampleArchive()
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_maxCount", .int(1))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': a to-many relationship (XD_PRK_isToMany YES) cannot have XD_PRK_maxCount 1"))

        s = Xcode3SampleArchive()
        s.b.set(s.package, "XDBucketForClassesstorage", .int(3))
        XCTAssertTrue(try refusal(s).contains("the package's entities is an integer, not a reference"))
    }

    func testMissingKeysAreRefused() throws {
        var s = Xcode3SampleArchive()
        s.b.set(s.model, "_xd_rootPackage", .uid(0))
        XCTAssertTrue(try refusal(s).hasSuffix("elements: the model has no _xd_rootPackage"))

        s = Xcode3SampleArchive()
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_destination", .uid(0))
        XCTAssertTrue(try refusal(s).hasSuffix("entity 'Person', property 'pets': the relationship has no destination (XD_PRK_destination)"))

        s = Xcode3SampleArchive()
        s.b.set(s.pets, "XDBucketForStereotypesstorage", s.b.dictionary([]))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': the relationship has no destination (XD_PRK_destination)"))

        s = Xcode3SampleArchive()
        let fetched = s.entry(s.b.field(s.person, "XDBucketForOwnedAttributesstorage")!, "barkers")!
        s.b.set(s.stereotype(of: fetched, "XD_PFP_Stereotype"), "XDBucketForOwnedAttributesstorage", s.b.dictionary([]))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'barkers': the fetched property has no fetch request (XD_PFP_fetchRequestKey)"))

        s = Xcode3SampleArchive()
        let dictionary = s.b.field(s.package, "XDBucketForClassesstorage")!
        s.b.set(dictionary, "NS.objects", .array([]))
        XCTAssertTrue(try refusal(s).contains("the package's entities (object #\(dictionary.uidValue)) has no NS.keys and NS.objects of one length"))
    }

    /// A user info value that is no string is skipped with a warning; one that refers past
    /// the end of the archive is damage.
    func testUserInfoValuesThatAreNoStrings() throws {
        var s = Xcode3SampleArchive()
        let info = s.b.dictionary([("table", s.b.string("people")), ("count", s.b.add(.int(3))), ("nested", s.b.array([]))])
        s.set(s.person, "XD_PStereotype", "XD_PSK_userInfo", info)
        let m = try ManagedObjectModel(contentsOf: try s.b.write(in: try temporaryDirectory()))
        XCTAssertEqual(m.entity(named: "Person")?.userInfo, ["table": "people"])
        XCTAssertEqual(m.loadWarnings.count, 2, "\(m.loadWarnings)")
        XCTAssertTrue(m.loadWarnings.contains { $0.hasSuffix("entity 'Person': user info 'count' is an integer, not a string; skipped") }, "\(m.loadWarnings)")
        XCTAssertTrue(m.loadWarnings.contains { $0.contains("user info 'nested' is an NSMutableArray (object #") }, "\(m.loadWarnings)")

        s = Xcode3SampleArchive()
        s.set(s.person, "XD_PStereotype", "XD_PSK_userInfo", s.b.dictionary([("table", .uid(9999))]))
        XCTAssertTrue(try refusal(s).hasSuffix("entity 'Person': user info 'table' refers to object #9999, past the archive's \(s.b.objects.count) objects"))
    }

    /// References past the end, to nothing archived, and in circles.
    func testBadReferencesAreRefused() throws {
        var s = Xcode3SampleArchive()
        let count = s.b.objects.count
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_destination", .uid(9999))
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': XD_PRK_destination refers to object #9999, past the archive's \(count) objects"))

        s = Xcode3SampleArchive()
        s.set(s.age, "XD_PAtt_Stereotype", "XD_PAttK_defaultValueAsString", .uid(9999))
        XCTAssertTrue(try refusal(s).contains("XD_PAttK_defaultValueAsString refers to object #9999, past the archive's"))

        s = Xcode3SampleArchive()
        s.b.root = .uid(9999)
        XCTAssertTrue(try refusal(s).contains("the root UID 9999 is not one of the"))

        // A reference to a string where an object belongs.
        s = Xcode3SampleArchive()
        let text = s.b.string("Pet")
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_destination", text)
        XCTAssertTrue(try refusal(s).contains("XD_PRK_destination refers to object #\(text.uidValue), which is a string, not an archived object"))

        // A string object whose text is itself.
        s = Xcode3SampleArchive()
        let selfish = s.b.object("NSMutableString", [:])
        s.b.set(selfish, "NS.string", selfish)
        s.set(s.age, "XD_PAtt_Stereotype", "XD_PAttK_defaultValueAsString", selfish)
        XCTAssertTrue(try refusal(s).contains("XD_PAttK_defaultValueAsString is an NSMutableString (object #\(selfish.uidValue)), not a string"))

        // A dictionary listing itself as a key.
        s = Xcode3SampleArchive()
        let loop = s.b.object("NSMutableDictionary", [:])
        s.b.set(loop, "NS.keys", .array([loop]))
        s.b.set(loop, "NS.objects", .array([loop]))
        s.b.set(s.package, "XDBucketForClassesstorage", loop)
        XCTAssertTrue(try refusal(s).contains("a key of the package's entities is an NSMutableDictionary"))

        // An entity that is its own parent, and two that are each other's.
        s = Xcode3SampleArchive()
        s.b.set(s.generalization, "_general", s.dog)
        XCTAssertTrue(try refusal(s).contains("entity 'Dog': making 'Dog' the superentity of 'Dog' would create an inheritance cycle"))
        s = Xcode3SampleArchive()
        let back = s.b.object("XDUMLGeneralizationImp", ["_specific": s.pet, "_general": s.dog, "_owner": s.pet])
        s.b.set(s.pet, "XDBucketForGeneralizationsstorage", s.b.array([back]))
        XCTAssertTrue(try refusal(s).contains("would create an inheritance cycle"))

        // A stereotype bucket that holds the entity itself.
        s = Xcode3SampleArchive()
        s.b.set(s.person, "XDBucketForStereotypesstorage", s.b.dictionary([("XD_PStereotype", s.person)]))
        XCTAssertTrue(try refusal(s).contains("entity 'Person': stereotype XD_PStereotype is an XDPMEntity"))

        // An inverse that is no property of any entity.
        s = Xcode3SampleArchive()
        let stray = s.b.object("XDPMRelationship", ["_name": s.b.string("stray")])
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_inverseRelationship", stray)
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': the inverse (object #\(stray.uidValue)) is not a relationship of any entity in the model"))
        // A destination that is an entity object outside the package.
        s = Xcode3SampleArchive()
        let outsider = s.b.object("XDPMEntity", ["_name": s.b.string("Outsider")])
        s.set(s.pets, "XD_PR_Stereotype", "XD_PRK_destination", outsider)
        XCTAssertTrue(try refusal(s).hasSuffix("property 'pets': the destination (object #\(outsider.uidValue)) is not one of the model's entities"))
    }
}
