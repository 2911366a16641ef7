import Foundation
@testable import ObjectGraph
import XCTest

/// Mapping model files: ObjectGraph's JSON form, Xcode's `.xcmappingmodel` and compiled
/// `.cdm` (docs/mapping-format.md), with the fixtures in Tests/Fixtures/mappings (made by
/// its make-fixtures.py).
final class MappingFileTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mappings").path
    static let good = fixtures + "/good"
    static let bad = fixtures + "/bad"

    /// Every field of two mapping models, compared one by one so a failure names the field.
    func assertEqual(_ a: MappingModel, _ b: MappingModel, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.entityMappings.count, b.entityMappings.count, "\(what): entity mapping count", file: file, line: line)
        for (x, y) in zip(a.entityMappings, b.entityMappings) {
            let at = "\(what): \(x.name)"
            XCTAssertEqual(x.name, y.name, at, file: file, line: line)
            XCTAssertEqual(x.kind, y.kind, "\(at): kind", file: file, line: line)
            XCTAssertEqual(x.sourceEntityName, y.sourceEntityName, "\(at): source", file: file, line: line)
            XCTAssertEqual(x.destinationEntityName, y.destinationEntityName, "\(at): destination", file: file, line: line)
            XCTAssertEqual(x.sourceEntityVersionHash, y.sourceEntityVersionHash, "\(at): source hash", file: file, line: line)
            XCTAssertEqual(x.destinationEntityVersionHash, y.destinationEntityVersionHash, "\(at): destination hash", file: file, line: line)
            XCTAssertEqual(x.sourceExpression, y.sourceExpression, "\(at): source expression", file: file, line: line)
            XCTAssertEqual(x.userInfo, y.userInfo, "\(at): user info", file: file, line: line)
            XCTAssertEqual(x.migrationPolicyName, y.migrationPolicyName, "\(at): policy", file: file, line: line)
            for (kind, p, q) in [("attribute", x.attributeMappings, y.attributeMappings), ("relationship", x.relationshipMappings, y.relationshipMappings)] {
                XCTAssertEqual(p.map(\.name), q.map(\.name), "\(at): \(kind) mappings", file: file, line: line)
                for (m, n) in zip(p, q) {
                    XCTAssertEqual(m.valueExpression, n.valueExpression, "\(at).\(m.name): expression", file: file, line: line)
                    XCTAssertEqual(m.userInfo, n.userInfo, "\(at).\(m.name): user info", file: file, line: line)
                }
            }
        }
    }

    // MARK: Good files

    func testJSONFixtureRoundTripsThroughJSONAndXcodeFolders() throws {
        let model = try MappingModel.load(path: Self.good + "/Library.json")
        XCTAssertEqual(model.entityMappings.map(\.name), ["AuthorToWriter", "BookToBook", "Genre", "Loan", "ReviewToReview", "Legacy", "Unicode ✓"])
        let author = model.entityMappings[0]
        XCTAssertEqual(author.kind, .transform)
        XCTAssertEqual(author.sourceEntityVersionHash, Array(0..<32))
        XCTAssertEqual(author.attributeMappings.map(\.name), ["name", "born", "shelf", "initials"])
        XCTAssertEqual(author.attributeMappings[1].userInfo, ["note": "renamed"])
        XCTAssertNil(author.attributeMappings[3].valueExpression)
        XCTAssertEqual(author.migrationPolicyName, "AuthorPolicy")

        let dir = try temporaryDirectory()
        try model.save(path: dir + "/again.json")
        assertEqual(try MappingModel.load(path: dir + "/again.json"), model, "JSON → JSON")
        try model.save(path: dir + "/Library.xcmappingmodel")
        let fromXcode = try MappingModel.load(path: dir + "/Library.xcmappingmodel")
        assertEqual(fromXcode, model, "JSON → xcmappingmodel")
        // Saving what was read writes the same document again.
        try fromXcode.save(path: dir + "/Second.xcmappingmodel")
        XCTAssertEqual(try String(contentsOfFile: dir + "/Second.xcmappingmodel/xcmapping.xml", encoding: .utf8),
                       try String(contentsOfFile: dir + "/Library.xcmappingmodel/xcmapping.xml", encoding: .utf8))
        XCTAssertEqual(fromXcode.jsonString(), model.jsonString())
    }

    func testXcodeFolderReadsAsXcodeMadeItAndRoundTrips() throws {
        let model = try MappingModel.load(path: Self.good + "/Blog.xcmappingmodel")
        let expected = try MappingModel.load(path: Self.good + "/Blog.expected.json")
        assertEqual(model, expected, "Blog.xcmappingmodel")
        // mappingnumber orders the mappings, not the file; unnamed ones are named after their entities.
        XCTAssertEqual(model.entityMappings.map(\.name), ["UserToAuthor", "PostToPost", "Tag", "Draft"])
        XCTAssertEqual(model.entityMappings[1].attributeMappings[1].valueExpression, "$source.text")
        XCTAssertEqual(model.entityMappings[1].sourceExpression, EntityMapping.defaultSourceExpression(forEntityNamed: "Post"))

        let dir = try temporaryDirectory()
        try model.save(path: dir + "/Blog.xcmappingmodel")
        assertEqual(try MappingModel.load(path: dir + "/Blog.xcmappingmodel"), model, "xcmappingmodel → xcmappingmodel")
        try model.save(path: dir + "/Blog.json")
        assertEqual(try MappingModel.load(path: dir + "/Blog.json"), model, "xcmappingmodel → JSON")
    }

    func testSavingOverAnXcodeFolderKeepsXcodesCopiesOfTheModels() throws {
        let dir = try temporaryDirectory()
        let folder = dir + "/Blog.xcmappingmodel"
        try FileManager.default.copyItem(atPath: Self.good + "/Blog.xcmappingmodel", toPath: folder)
        let model = try MappingModel.load(path: folder)
        model.entityMappings.removeLast()
        try model.save(path: folder)
        let xml = try String(contentsOfFile: folder + "/xcmapping.xml", encoding: .utf8)
        XCTAssertTrue(xml.contains("<attribute name=\"sourcemodelpath\" type=\"string\">Blog/Model.xcdatamodeld/Model.xcdatamodel</attribute>"))
        XCTAssertTrue(xml.contains("<attribute name=\"destinationmodeldata\" type=\"binary\">"))
        XCTAssertEqual(try MappingModel.load(path: folder).entityMappings.count, 3)
    }

    func testCompiledModelReadsEveryField() throws {
        let model = try MappingModel.load(path: Self.good + "/Library.cdm")
        assertEqual(model, try MappingModel.load(path: Self.good + "/Library-cdm.expected.json"), "Library.cdm")
        XCTAssertEqual(model.entityMappings[2].name, "Genre")
        XCTAssertEqual(model.entityMappings[2].attributeMappings.map(\.valueExpression), ["\"Unknown\"", "3", "1"])
        // Expressions read from archives parse.
        for m in model.entityMappings {
            for text in [m.sourceExpression].compactMap({ $0 }) + (m.attributeMappings + m.relationshipMappings).compactMap(\.valueExpression) {
                XCTAssertNoThrow(try ObjectExpression(format: text), text)
            }
        }
        let dir = try temporaryDirectory()
        try model.save(path: dir + "/Library.xcmappingmodel")
        assertEqual(try MappingModel.load(path: dir + "/Library.xcmappingmodel"), model, "cdm → xcmappingmodel")
    }

    func testEmptyMappingModelAndDataHelpers() throws {
        let empty = try MappingModel.load(path: Self.good + "/Empty.json")
        XCTAssertTrue(empty.entityMappings.isEmpty)
        let model = try MappingModel(contentsOf: Self.good + "/Library.json")
        assertEqual(try MappingModel(jsonData: model.jsonData()), model, "jsonData")
        assertEqual(try MappingModel(xcodeMappingXML: Data(model.xcodeMappingXMLString().utf8)), model, "xcodeMappingXMLString")
        let cdm = try Data(contentsOf: URL(fileURLWithPath: Self.good + "/Library.cdm"))
        XCTAssertEqual(try MappingModel(compiledData: cdm).entityMappings.count, 4)
    }

    /// Expressions the archive cannot hold, or text that is not canonical, keep their text.
    func testExpressionsSurviveTheXcodeFolderExactly() throws {
        let texts = [
            "$source.name", "$source.pages + 1", "uppercase:($source.name)", "{1, 2}", "SUBQUERY($source.books, $b, $b.pages > 2)",
            "FUNCTION($manager,'sourceContext')", "not ( parseable", "", "TERNARY($source.x > 1, 'a', 'b')", "CAST(0, \"NSDate\")",
            "$source.#SELF", "-1.5", "nil", "SELF", "YES",
        ]
        let mapping = EntityMapping(name: "AToA", kind: .transform, sourceEntityName: "A", destinationEntityName: "A",
                                    attributeMappings: texts.enumerated().map { PropertyMapping(name: "p\($0.offset)", valueExpression: $0.element) },
                                    sourceExpression: "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"A\", \"x == 1\"), $manager.sourceContext, YES)")
        let model = MappingModel(entityMappings: [mapping])
        let again = try MappingModel(xcodeMappingXML: Data(model.xcodeMappingXMLString().utf8))
        assertEqual(again, model, "expressions")
        // Canonical text travels as Xcode's archive alone.
        let xml = model.xcodeMappingXMLString()
        XCTAssertFalse(xml.contains(">$source.name<"))
        XCTAssertTrue(xml.contains("valueexpressionstring\" type=\"string\">$source.pages + 1<"))
    }

    /// Values at the edges travel through both writable formats unchanged.
    func testEdgeValuesRoundTrip() throws {
        let odd = ["", " ", "$null", "a\r\nb", "tab\tand\u{1}control", "<&>\"'", "]]>", "Zoë 😀", String(repeating: "x", count: 5000)]
        let mappings = odd.enumerated().map { i, text in
            EntityMapping(
                name: "m\(i)", kind: .undefined, sourceEntityName: text, destinationEntityName: text,
                attributeMappings: [PropertyMapping(name: "p", valueExpression: text, userInfo: [text: text, "k": text])],
                sourceExpression: text, userInfo: [text: text], sourceEntityVersionHash: Array(repeating: UInt8(i), count: 32),
                migrationPolicyName: text)
        }
        mappings[0].name = "SourceToDestination"
        let model = MappingModel(entityMappings: mappings)
        let dir = try temporaryDirectory()
        for path in [dir + "/odd.json", dir + "/odd.xcmappingmodel"] {
            try model.save(path: path)
            assertEqual(try MappingModel.load(path: path), model, path)
        }
    }

    // MARK: Bad files

    func testEveryMalformedFileGivesItsError() throws {
        let lines = try String(contentsOfFile: Self.bad + "/EXPECTED.tsv", encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 20)
        let listed = Set(lines.map { String($0.split(separator: "\t")[0]) })
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: Self.bad).filter { $0 != "EXPECTED.tsv" })
        XCTAssertEqual(listed, present, "every bad fixture has an expectation")
        for line in lines {
            let parts = line.split(separator: "\t").map(String.init)
            let (name, fragment, entity) = (parts[0], parts[1], parts[2])
            let e = expectError { _ = try MappingModel.load(path: Self.bad + "/" + name) }
            XCTAssertEqual(e?.code, ErrorCode.invalidModel, name)
            XCTAssertTrue(e?.message.contains(fragment) ?? false, "\(name): \(e?.message ?? "no error")")
            XCTAssertTrue(e?.message.contains(name) ?? false, "\(name): the message names the file: \(e?.message ?? "")")
            XCTAssertTrue(e?.userInfoValue(forKey: ErrorUserInfoKey.filePath)?.contains(name) ?? false, "\(name): NSFilePath")
            if entity == "-" {
                XCTAssertNil(e?.userInfoValue(forKey: ErrorUserInfoKey.entityMapping), "\(name): names no entity mapping")
            } else {
                XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entityMapping), entity, name)
                XCTAssertTrue(e?.message.contains("entity mapping '\(entity)'") ?? false, "\(name): \(e?.message ?? "")")
            }
        }
    }

    func testPropertyMappingErrorsNameTheProperty() {
        let e = expectError { _ = try MappingModel.load(path: Self.bad + "/xml-bad-archive.xcmappingmodel") }
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.property), "name")
        let d = expectError { _ = try MappingModel.load(path: Self.bad + "/json-duplicate-property.json") }
        XCTAssertEqual(d?.userInfoValue(forKey: ErrorUserInfoKey.property), "title")
    }

    /// A file that cannot be read is 134080 (as a store that cannot be opened); a path of
    /// no known format is 140002.
    func testUnreadableAndUnknownPaths() throws {
        let dir = try temporaryDirectory()
        for (path, code) in [
            (dir + "/missing.json", ErrorCode.storeOpen), (dir + "/missing.cdm", ErrorCode.storeOpen),
            (dir + "/mapping.txt", ErrorCode.invalidArgument), (dir, ErrorCode.invalidArgument),
        ] {
            let e = expectError { _ = try MappingModel.load(path: path) }
            XCTAssertEqual(e?.code, code, path)
            XCTAssertTrue(e?.message.contains(path) ?? false, e?.message ?? "")
        }
        let model = try MappingModel.load(path: Self.good + "/Library.json")
        for path in [dir + "/out.cdm", dir + "/out.plist"] {
            XCTAssertEqual(expectError { try model.save(path: path) }?.code, ErrorCode.invalidArgument, path)
        }
        // A file where a folder belongs.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/file.xcmappingmodel", contents: Data("x".utf8)))
        XCTAssertEqual(expectError { _ = try MappingModel.load(path: dir + "/file.xcmappingmodel") }?.code, ErrorCode.invalidModel)
    }

    /// Random damage to the good files gives errors, never a crash.
    func testDamagedFilesNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        let dir = try temporaryDirectory()
        let sources: [(String, String)] = [
            (Self.good + "/Library.json", "damaged.json"), (Self.good + "/Library.cdm", "damaged.cdm"),
            (Self.good + "/Blog.xcmappingmodel/xcmapping.xml", "damaged.xcmappingmodel/xcmapping.xml"),
        ]
        try FileManager.default.createDirectory(atPath: dir + "/damaged.xcmappingmodel", withIntermediateDirectories: true)
        for (source, target) in sources {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: source)))
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let i = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[i] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...64, using: &generator)))
                    default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: i)
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
                try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + target))
                let path = dir + "/" + (target.hasSuffix("xcmapping.xml") ? "damaged.xcmappingmodel" : target)
                do throws(ObjectGraphError) {
                    let m = try MappingModel.load(path: path)
                    // What reads must save and read back the same.
                    try m.save(path: dir + "/copy.xcmappingmodel")
                    assertEqual(try MappingModel.load(path: dir + "/copy.xcmappingmodel"), m, "damaged \(target)")
                } catch {
                    XCTAssertTrue([ErrorCode.invalidModel, ErrorCode.invalidArgument].contains(error.code), error.description)
                }
            }
        }
    }
}
