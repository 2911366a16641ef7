import Foundation
@testable import ObjectGraph
import XCTest

/// The pending sets (inserted, updated, deleted objects) through many removals: once more
/// than half of a large set was removed it compacts, which used to keep its holes and
/// trap (found by the I/O-fault test: a rollback after a failed save).
final class PendingChangesTests: XCTestCase {
    func testObjectListCompactsAfterManyRemovals() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/list.sqlite")
        let objects = try (0..<100).map { _ in try stack.context.insertObject(entityName: "Author") }
        var list = ObjectList()
        for o in objects { list.insert(o) }
        for o in objects[10..<70] { list.remove(o) }
        XCTAssertEqual(list.count, 40)
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), (objects[0..<10] + objects[70...]).map(ObjectIdentifier.init))
        for o in objects[0..<10] { XCTAssertTrue(list.contains(o)) }
        for o in objects[10..<70] { XCTAssertFalse(list.contains(o)) }
        for o in objects[70..<95] { list.remove(o) }
        XCTAssertEqual(list.objects.count, 15)
        list.insert(objects[20])
        XCTAssertEqual(list.objects.last.map(ObjectIdentifier.init), ObjectIdentifier(objects[20]))
    }

    func testDeletingMostOfManyUpdatedObjects() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/updates.sqlite")
        let books = try (0..<40).map { i -> ManagedObject in
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.string("b\(i)"), forKey: "title")
            return b
        }
        try stack.context.save()
        for b in books { try b.setValue(.integer(7), forKey: "pages") }
        for b in books.prefix(25) { try stack.context.delete(b) }
        XCTAssertEqual(stack.context.updatedObjects.count, 15)
        try stack.context.save()
        XCTAssertEqual(try stack.context.count(for: FetchRequest(entityName: "Book")), 15)
    }

    func testRollbackAfterAFailedSaveOfManyChanges() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/failed.binary"
        let stack = try Stack(model: try makeLibraryModel(), path: path, type: StoreType.binary)
        let author = try stack.context.insertObject(entityName: "Author")
        try author.setValue(.string("A"), forKey: "name")
        let books = try (0..<60).map { i -> ManagedObject in
            let b = try stack.context.insertObject(entityName: "Book")
            try b.setValue(.string("b\(i)"), forKey: "title")
            try b.setObject(author, forKey: "author")
            return b
        }
        try stack.context.save()
        for b in books { try b.setValue(.integer(9), forKey: "pages") }
        for _ in 0..<50 { _ = try stack.context.insertObject(entityName: "Book") }
        try stack.context.delete(author)  // cascades to its books
        // The save fails: the store's file is gone.
        XCTAssertEqual(unlink(path), 0)
        XCTAssertNotNil(expectError { try stack.context.save() })
        try stack.context.rollback()
        XCTAssertFalse(stack.context.hasChanges)
        XCTAssertFalse(author.isDeleted)
        XCTAssertEqual(author.string("name"), "A")
        XCTAssertEqual(try books[0].value(forKey: "pages"), .integer(0))
    }
}
