import CSQLite
import Foundation
@testable import ObjectGraph
import XCTest

/// The name rule (`ModelName`, ModelValidation.swift) and its second guard, SQL quoting
/// (`sqlIdentifier`, SQLiteSchema.swift): a name from a model never runs as SQL.
final class ModelNameTests: XCTestCase {
    static let invalid = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/Models/Invalid").standardized.path

    func testNamesAreLettersDigitsAndUnderscoresNotStartingWithADigit() {
        for name in ["Book", "book", "_private", "ZBOOK", "a1", "Z_PK", "Straße", "PF_DEFAULT_CONFIGURATION_NAME"] {
            XCTAssertTrue(ModelName.isValid(name), name)
        }
        for name in ["", "1st", "a b", "a-b", "a.b", "a;b", "a'b", "a\"b", "a\0b", "a\nb", "tab\t", "a)", "😀", "a\u{202E}b"] {
            XCTAssertFalse(ModelName.isValid(name), name)
        }
    }

    /// The issue's model: a fetch index whose name would close CREATE INDEX and drop a table.
    func testInjectedFetchIndexNameIsRefusedAndNoStoreIsCreated() throws {
        let e = expectError { _ = try ManagedObjectModel(contentsOf: Self.invalid + "/json-injected-fetch-index.json") }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains("DROP TABLE ZAUTHOR") ?? false, e?.message ?? "")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.invalidName), "byTitle ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; CREATE INDEX Z_Book_x")
        XCTAssertEqual(e?.userInfoValue(forKey: ErrorUserInfoKey.entity), "Book")

        // The same model built in code is refused when a coordinator takes it: no file appears.
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string)
        try book.setFetchIndexes([FetchIndexDescription(name: "x ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; --", elements: [.init(property: "title")])])
        let path = try temporaryDirectory() + "/books.sqlite"
        let refused = expectError {
            let coordinator = try PersistentStoreCoordinator(model: model)
            _ = try coordinator.addPersistentStore(type: StoreType.sqlite, path: path)
        }
        XCTAssertEqual(refused?.code, ErrorCode.invalidModel)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testEveryKindOfNameIsChecked() throws {
        func refused(_ build: (ManagedObjectModel, EntityDescription) throws -> Void) -> ObjectGraphError? {
            let model = ManagedObjectModel()
            do {
                let e = try model.addEntity(named: "Book")
                try e.addAttribute(named: "title", type: .string)
                try build(model, e)
            } catch {
                XCTFail("building the model failed: \(error)")
                return nil
            }
            return expectError { try model.validate() }
        }
        let index = refused { _, e in try e.setFetchIndexes([FetchIndexDescription(name: "a b", elements: [.init(property: "title")])]) }
        XCTAssertTrue(index?.message.contains("'a b' is not a valid name for a fetch index") ?? false, index?.message ?? "")
        let element = refused { _, e in try e.setFetchIndexes([FetchIndexDescription(name: "ok", elements: [.init(property: "title,x")])]) }
        XCTAssertTrue(element?.message.contains("not a valid name for a property in fetch index 'ok'") ?? false, element?.message ?? "")
        let unique = refused { _, e in try e.setUniquenessConstraints([["title\"; --"]]) }
        XCTAssertTrue(unique?.message.contains("uniqueness constraint") ?? false, unique?.message ?? "")
        let configuration = refused { m, e in try m.setEntities([e], forConfiguration: "Sales;") }
        XCTAssertTrue(configuration?.message.contains("'Sales;' is not a valid name for a configuration") ?? false, configuration?.message ?? "")
        // Entity and property names are checked as they are given, too.
        let model = ManagedObjectModel()
        XCTAssertEqual(expectError { _ = try model.addEntity(named: "Book; DROP") }?.code, ErrorCode.invalidModel)
        let book = try model.addEntity(named: "Book")
        XCTAssertEqual(expectError { try book.addAttribute(named: "9lives", type: .string) }?.code, ErrorCode.invalidModel)
        // Control characters are shown escaped, never raw.
        let shown = refused { _, e in try e.setFetchIndexes([FetchIndexDescription(name: "a\nb\u{1}", elements: [.init(property: "title")])]) }
        XCTAssertTrue(shown?.message.contains("'a\\nb\\u{1}'") ?? false, shown?.message ?? "")
    }

    func testModelFilesOfEveryFormatRefuseInvalidNames() throws {
        for (file, expected) in [
            ("injected-fetch-index.xcdatamodel", "fetch index"), ("injected-configuration.xcdatamodel", "configuration"),
            ("injected-uniqueness.xcdatamodel", "property in a uniqueness constraint"), ("json-injected-fetch-index.json", "fetch index"),
            ("json-injected-property.json", "property"),
        ] {
            let e = expectError { _ = try ManagedObjectModel(contentsOf: Self.invalid + "/" + file) }
            XCTAssertEqual(e?.code, ErrorCode.invalidModel, file)
            XCTAssertTrue(e?.message.contains("is not a valid name for a \(expected)") ?? false, "\(file): \(e?.message ?? "")")
        }
    }

    /// A compiled model (Apple's .mom) whose property name was changed to one with a quote.
    func testCompiledModelsRefuseInvalidNames() throws {
        let mom = AppleModelTests.root + "/coredataplus/SampleModel/SampleModel.momd/SampleModel.mom"
        guard FileManager.default.fileExists(atPath: mom) else { throw XCTSkip("no Apple fixtures at \(AppleModelTests.root)") }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mom)))
        let from = Array("Ucolor".utf8), to = Array("Uco'or".utf8)
        var replaced = 0
        var i = 0
        while i + from.count <= bytes.count {
            if Array(bytes[i..<i + from.count]) == from {
                bytes.replaceSubrange(i..<i + from.count, with: to)
                replaced += 1
            }
            i += 1
        }
        XCTAssertEqual(replaced, 1)
        let path = try temporaryDirectory() + "/Patched.mom"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let e = expectError { _ = try ManagedObjectModel(contentsOf: path) }
        XCTAssertEqual(e?.code, ErrorCode.invalidModel)
        XCTAssertTrue(e?.message.contains("'co\\'or' is not a valid name for a property") ?? false, e?.message ?? "")
    }

    // MARK: Quoting

    func testIdentifiersArePlainOnlyWhenSQLiteReadsThemAsNames() {
        XCTAssertEqual(sqlIdentifier("ZBOOK"), "ZBOOK")
        XCTAssertEqual(sqlIdentifier("Z_2TAGS"), "Z_2TAGS")
        XCTAssertEqual(sqlIdentifier("ORDER"), "\"ORDER\"")
        XCTAssertEqual(sqlIdentifier("select"), "\"select\"")
        XCTAssertEqual(sqlIdentifier("2x"), "\"2x\"")
        XCTAssertEqual(sqlIdentifier("ZSTRASSE"), "ZSTRASSE")
        XCTAssertEqual(sqlIdentifier("ZÉTÉ"), "\"ZÉTÉ\"")
        XCTAssertEqual(sqlIdentifier("a\"; DROP TABLE x; --"), "\"a\"\"; DROP TABLE x; --\"")
        XCTAssertEqual(sqlIdentifier(""), "\"\"")
    }

    /// Were a hostile name to get past validation (a model changed in code after it was
    /// checked), every statement the schema makes still treats it as one name.
    func testSchemaStatementsQuoteNamesThatAreNotPlain() throws {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        let book = try model.addEntity(named: "Book")
        let title = try book.addAttribute(named: "title", type: .string)
        try book.setFetchIndexes([FetchIndexDescription(name: "x ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; --", elements: [.init(property: "title", ascending: false)])])
        try title.setIndexed(true)
        try book.setUniquenessConstraints([["title"]])
        let schema = try SQLiteSchema(model: model)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(":memory:", &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        for statement in schema.createStatements {
            // One statement each: nothing follows the first statement's end.
            var tail: UnsafePointer<CChar>?
            var s: OpaquePointer?
            XCTAssertEqual(sqlite3_prepare_v2(db, statement, -1, &s, &tail), SQLITE_OK, statement)
            XCTAssertEqual(tail.map { String(cString: $0) }, "", statement)
            XCTAssertEqual(sqlite3_step(s), SQLITE_DONE, statement)
            sqlite3_finalize(s)
        }
        var names: [String] = []
        var s: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name", -1, &s, nil)
        while sqlite3_step(s) == SQLITE_ROW { names.append(String(cString: sqlite3_column_text(s, 0))) }
        sqlite3_finalize(s)
        XCTAssertEqual(names, [
            "ZAUTHOR", "ZBOOK", "Z_Book_UNIQUE_title", "Z_Book_title", "Z_Book_x ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; --",
            "Z_METADATA", "Z_PRIMARYKEY",
        ])
    }

}
