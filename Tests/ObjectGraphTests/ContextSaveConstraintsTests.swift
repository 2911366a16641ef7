import Foundation
import ObjectGraph
import XCTest

/// Uniqueness constraints kept by saves (`ContextSave+Constraints.swift`, the stores'
/// `rows(of:slots:holding:)`): 133021 under the error policy with nothing written, and
/// upserts under the other policies, on SQLite, in-memory and Binary stores.
final class ContextSaveConstraintsTests: XCTestCase {
    static let types = [StoreType.sqlite, StoreType.inMemory, StoreType.binary]

    /// Authors unique by name; books unique by (title, edition) in a hierarchy with ebooks.
    func makeModel() throws -> ManagedObjectModel {
        let model = ManagedObjectModel()
        let author = try model.addEntity(named: "Author")
        try author.addAttribute(named: "name", type: .string)
        try author.addAttribute(named: "born", type: .integer32)
        try author.addAttribute(named: "country", type: .string)
        try author.setUniquenessConstraints([["name"]])
        let book = try model.addEntity(named: "Book")
        try book.addAttribute(named: "title", type: .string)
        try book.addAttribute(named: "edition", type: .integer16, defaultValue: 1)
        try book.setUniquenessConstraints([["title", "edition"]])
        let ebook = try model.addEntity(named: "EBook")
        try ebook.setSuperentity(book)
        try ebook.addAttribute(named: "format", type: .string)
        let books = try author.addRelationship(named: "books", destination: book, toMany: true)
        let writer = try book.addRelationship(named: "author", destination: author)
        try books.setInverse(writer)
        return model
    }

    func stack(_ type: String) throws -> Stack {
        try Stack(model: try makeModel(), path: type == StoreType.inMemory ? "" : try temporaryDirectory() + "/constraints.store", type: type)
    }

    @discardableResult
    func author(_ context: ManagedObjectContext, _ name: String?, born: Int64? = nil, country: String? = nil) throws -> ManagedObject {
        let o = try context.insertObject(entityName: "Author")
        if let name { try o.setValue(.string(name), forKey: "name") }
        if let born { try o.setValue(.integer(born), forKey: "born") }
        if let country { try o.setValue(.string(country), forKey: "country") }
        return o
    }

    func authors(_ s: Stack) throws -> [String: (born: AttributeValue, country: AttributeValue)] {
        let fresh = ManagedObjectContext(coordinator: s.coordinator)
        var out: [String: (AttributeValue, AttributeValue)] = [:]
        for o in try fresh.fetch(FetchRequest(entityName: "Author")) {
            guard case .string(let name) = try o.value(forKey: "name") else { continue }
            XCTAssertNil(out[name], "two stored authors named \(name)")
            out[name] = (try o.value(forKey: "born"), try o.value(forKey: "country"))
        }
        return out
    }

    func testTheErrorPolicyReportsEveryConflictAndWritesNothing() throws {
        for type in Self.types {
            let s = try stack(type)
            try author(s.context, "Pratchett", born: 1948)
            try s.context.save()
            let again = try author(s.context, "Pratchett", born: 1900)
            let a = try author(s.context, "Gaiman"), b = try author(s.context, "Gaiman")
            try author(s.context, "Le Guin")
            let e = expectError { try s.context.save() }
            XCTAssertEqual(e?.code, ErrorCode.constraintMerge, type)
            let conflicts = e?.constraintConflicts ?? []
            XCTAssertEqual(conflicts.count, 2, type)
            let stored = conflicts.first { $0.databaseObject != nil }
            XCTAssertEqual(stored?.constraint, ["name"], type)
            XCTAssertEqual(stored?.constraintValues["name"], .attribute(.string("Pratchett")), type)
            XCTAssertTrue(stored?.conflictingObjects.first === again, type)
            XCTAssertEqual(stored?.databaseSnapshot?["born"], .attribute(.integer(1948)), type)
            let pending = conflicts.first { $0.databaseObject == nil }
            XCTAssertEqual(pending?.conflictingObjects.count, 2, type)
            XCTAssertTrue(pending?.conflictingObjects.contains { $0 === a } == true && pending?.conflictingObjects.contains { $0 === b } == true, type)
            XCTAssertTrue(e?.message.contains("Gaiman") == true, e?.message ?? "")
            // Nothing written, everything still pending.
            XCTAssertEqual(try authors(s).keys.sorted(), ["Pratchett"], type)
            XCTAssertEqual(s.context.insertedObjects.count, 4, type)
            XCTAssertTrue(again.objectID.isTemporaryID, type)
        }
    }

    func testObjectTrumpUpsertsTheNewObjectOverTheStoredRowAndTakesItsID() throws {
        for type in Self.types {
            let s = try stack(type)
            let first = try author(s.context, "Pratchett", born: 1948, country: "UK")
            try s.context.save()
            let id = first.objectID
            s.context.mergePolicy = .mergeByPropertyObjectTrump
            let other = ManagedObjectContext(coordinator: s.coordinator)
            other.mergePolicy = .mergeByPropertyObjectTrump
            let newer = try author(other, "Pratchett", born: 1949)
            try other.save()
            XCTAssertEqual(newer.objectID, id, type)
            XCTAssertFalse(newer.isInserted, type)
            // Its change wins; what it did not set keeps the stored value.
            let stored = try authors(s)
            XCTAssertEqual(stored["Pratchett"]?.born, .integer(1949), type)
            XCTAssertEqual(stored["Pratchett"]?.country, .string("UK"), type)
            XCTAssertEqual(try newer.value(forKey: "country"), .string("UK"), type)
            XCTAssertEqual(stored.count, 1, type)
        }
    }

    func testEachPolicyDecidesTheValuesOfTheUpsertedRow() throws {
        let expected: [(MergePolicy, AttributeValue, AttributeValue)] = [
            (.mergeByPropertyObjectTrump, .integer(2000), .string("UK")),
            (.mergeByPropertyStoreTrump, .integer(1948), .string("UK")),
            (.overwrite, .integer(2000), .null),
            (.rollback, .integer(1948), .string("UK")),
        ]
        for type in Self.types {
            for (policy, born, country) in expected {
                let s = try stack(type)
                try author(s.context, "Pratchett", born: 1948, country: "UK")
                try s.context.save()
                let other = ManagedObjectContext(coordinator: s.coordinator)
                other.mergePolicy = policy
                let o = try author(other, "Pratchett", born: 2000)
                try other.save()
                let stored = try authors(s)
                XCTAssertEqual(stored["Pratchett"]?.born, born, "\(type) \(policy.mergeType)")
                XCTAssertEqual(stored["Pratchett"]?.country, country, "\(type) \(policy.mergeType)")
                XCTAssertEqual(try o.value(forKey: "born"), born, "\(type) \(policy.mergeType)")
            }
        }
    }

    func testOfNewObjectsHoldingTheSameValuesTheOneChangedLastIsSaved() throws {
        for type in Self.types {
            let s = try stack(type)
            s.context.mergePolicy = .mergeByPropertyObjectTrump
            let a = try author(s.context, "Gaiman", born: 1)
            let b = try author(s.context, "Gaiman", born: 2)
            let book = try s.context.insertObject(entityName: "Book")
            try book.setValue(.string("Good Omens"), forKey: "title")
            try book.setObject(a, forKey: "author")
            try a.setValue(.integer(3), forKey: "born")  // changed last: a stays
            try s.context.save()
            XCTAssertNil(b.managedObjectContext, type)
            XCTAssertFalse(a.objectID.isTemporaryID, type)
            XCTAssertEqual(try authors(s)["Gaiman"]?.born, .integer(3), type)
            // What related to the object that gave way relates to the one saved.
            let fresh = ManagedObjectContext(coordinator: s.coordinator)
            let saved = try fresh.existingObject(with: book.objectID)
            XCTAssertEqual(try saved.object(forKey: "author")?.objectID, a.objectID, type)
            _ = b
        }
    }

    func testTheStoredRowsRelationshipsStayWithTheObjectThatTookItOver() throws {
        for type in Self.types {
            let s = try stack(type)
            let first = try author(s.context, "Pratchett")
            let book = try s.context.insertObject(entityName: "Book")
            try book.setValue(.string("Mort"), forKey: "title")
            try book.setObject(first, forKey: "author")
            try s.context.save()
            let other = ManagedObjectContext(coordinator: s.coordinator)
            other.mergePolicy = .mergeByPropertyObjectTrump
            let newer = try author(other, "Pratchett", born: 1948)
            try other.save()
            XCTAssertEqual(try newer.objects(forKey: "books").map(\.objectID), [book.objectID], type)
        }
    }

    func testAnObjectThatGivesUpItsValuesLetsANewObjectTakeThemInOneSave() throws {
        for type in Self.types {
            let s = try stack(type)
            let old = try author(s.context, "Pratchett")
            let gone = try author(s.context, "Gaiman")
            try s.context.save()
            try old.setValue(.string("Sir Terry"), forKey: "name")
            try s.context.delete(gone)
            try author(s.context, "Pratchett")
            try author(s.context, "Gaiman")
            try s.context.save()
            XCTAssertEqual(try authors(s).keys.sorted(), ["Gaiman", "Pratchett", "Sir Terry"], type)
        }
    }

    func testConstraintsSpanTheHierarchyAndNullsNeverConflict() throws {
        for type in Self.types {
            let s = try stack(type)
            let book = try s.context.insertObject(entityName: "Book")
            try book.setValue(.string("Mort"), forKey: "title")
            let ebook = try s.context.insertObject(entityName: "EBook")
            try ebook.setValue(.string("Mort"), forKey: "title")
            try author(s.context, nil)
            try author(s.context, nil)
            let e = expectError { try s.context.save() }
            XCTAssertEqual(e?.code, ErrorCode.constraintMerge, type)
            XCTAssertEqual(e?.constraintConflicts.map(\.constraint), [["title", "edition"]], type)
            try ebook.setValue(.integer(2), forKey: "edition")
            try s.context.save()
        }
    }

    func testAnUpdateOntoAnotherRowsValuesFailsUnderEveryPolicy() throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump, .overwrite, .rollback] {
            let s = try stack(StoreType.sqlite)
            let a = try author(s.context, "Pratchett")
            try author(s.context, "Gaiman")
            try s.context.save()
            s.context.mergePolicy = policy
            try a.setValue(.string("Gaiman"), forKey: "name")
            let e = expectError { try s.context.save() }
            XCTAssertEqual(e?.code, ErrorCode.constraintMerge, "\(policy.mergeType)")
            XCTAssertEqual(try authors(s).keys.sorted(), ["Gaiman", "Pratchett"])
        }
    }

    func testTheSQLiteStoreKeepsTheConstraintAsAUniqueIndex() throws {
        let path = try temporaryDirectory() + "/index.sqlite"
        _ = try Stack(model: try makeModel(), path: path)
        let indexes = sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE INDEX%' ORDER BY name").map { $0[0] }
        XCTAssertEqual(indexes, ["Z_Author_UNIQUE_name", "Z_Book_UNIQUE_title_edition"])
    }
}
