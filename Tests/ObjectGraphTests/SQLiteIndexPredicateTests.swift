import Foundation
@testable import ObjectGraph
import XCTest

/// A partial index's predicate as the WHERE of its CREATE INDEX (SQLiteIndexPredicate.swift):
/// literals instead of bound parameters, bare column names, nothing for what plain SQL
/// cannot say.
final class SQLiteIndexPredicateTests: XCTestCase {
    func sql(_ format: String) throws -> String? {
        let model = ManagedObjectModel()
        let note = try model.addEntity(named: "Note")
        try note.addAttribute(named: "title", type: .string)
        try note.addAttribute(named: "rank", type: .integer32)
        try note.addAttribute(named: "done", type: .boolean)
        try note.addAttribute(named: "scratch", type: .string).setTransient(true)
        let folder = try model.addEntity(named: "Folder")
        try note.addRelationship(named: "folder", destination: folder)
        let schema = try SQLiteSchema(model: model)
        let mapping = schema.mapping(note)
        let table = schema.table(note)
        return SQLiteIndexPredicate.sql(format, entity: note) { key in
            guard let slot = note.slot(forKey: key), mapping.columnBySlot[slot] >= 0 else { return nil }
            return table.columns[mapping.columnBySlot[slot]].name
        }
    }

    func testComparisonsWithConstants() throws {
        XCTAssertEqual(try sql("title != nil"), "ZTITLE IS NOT NULL")
        XCTAssertEqual(try sql("title == nil"), "ZTITLE IS NULL")
        XCTAssertEqual(try sql("rank > 5"), "ZRANK > 5")
        XCTAssertEqual(try sql("5 < rank"), "ZRANK > 5", "a constant on the left is turned around")
        XCTAssertEqual(try sql("title == 'plain'"), "ZTITLE = 'plain'")
        XCTAssertEqual(try sql(#"title != "o'k""#), "ZTITLE <> 'o''k'")
        XCTAssertEqual(try sql("done == YES"), "ZDONE = 1")
        XCTAssertEqual(try sql("folder != nil"), "ZFOLDER IS NOT NULL")
    }

    func testCompounds() throws {
        XCTAssertEqual(try sql("title != nil AND rank >= 2"), "ZTITLE IS NOT NULL AND ZRANK >= 2")
        XCTAssertEqual(try sql("(rank < 1 OR rank > 9) AND done == NO"), "(ZRANK < 1 OR ZRANK > 9) AND ZDONE = 0")
        XCTAssertEqual(try sql("NOT done == YES"), "NOT (ZDONE = 1)")
    }

    func testWhatPlainSQLCannotSayGivesNothing() throws {
        XCTAssertNil(try sql("title BEGINSWITH 'a'"))
        XCTAssertNil(try sql("folder.name == 'x'"), "a key path through a relationship")
        XCTAssertNil(try sql("scratch != nil"), "a transient attribute has no column")
        XCTAssertNil(try sql("rank > $LIMIT"))
        XCTAssertNil(try sql("title != nil AND title CONTAINS 'x'"), "one part that does not translate spoils the whole")
        XCTAssertNil(try sql("this is not a predicate"))
    }
}
