import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif
@testable import ObjectGraph

/// What an object keeps in its own fields: its identity (an ID, or the key and store to make
/// one from), its flags and its change stamp, packed so that a fetched object stays small.
final class ManagedObjectTests: XCTestCase {
    private func savedBooks(_ count: Int) throws -> (Stack, [ManagedObject]) {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/objects.sqlite")
        for n in 0..<count {
            let book = try stack.context.insertObject(entityName: "Book")
            try book.setValue(.string("Book \(n)"), forKey: "title")
        }
        try stack.context.save()
        try stack.context.reset()
        let books = try stack.context.fetch(FetchRequest(entityName: "Book"))
        return (stack, books)
    }

    #if canImport(Glibc)
    /// 104 bytes of fields or fewer put an object in glibc's 112-byte chunks (120 took 128).
    func testAFetchedObjectTakesAtMost104BytesFromMalloc() throws {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try XCTUnwrap(dlsym(nil, "malloc_usable_size"), "glibc's malloc_usable_size")
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let (_, books) = try savedBooks(3)
        XCTAssertEqual(books.count, 3)
        for book in books {
            XCTAssertLessThanOrEqual(usableSize(Unmanaged.passUnretained(book).toOpaque()), 104)
        }
    }
    #endif

    func testFlagsAndTheChangeStampDoNotDisturbEachOther() throws {
        let (_, books) = try savedBooks(1)
        let book = try XCTUnwrap(books.first)
        XCTAssertFalse(book.isInserted || book.isDeleted || book.forgottenInsert || book.rowGone || book.detached)
        let stamp = Int(1) << 50 + 7
        book.lastChange = stamp
        book.isDeleted = true
        book.rowGone = true
        XCTAssertEqual(book.lastChange, stamp)
        XCTAssertTrue(book.isDeleted && book.rowGone)
        XCTAssertFalse(book.isInserted || book.forgottenInsert || book.detached)
        book.lastChange = 3
        XCTAssertTrue(book.isDeleted && book.rowGone)
        book.isDeleted = false
        book.rowGone = false
        XCTAssertEqual(book.lastChange, 3)
        XCTAssertFalse(book.isDeleted || book.rowGone)
    }

    func testAFetchedObjectMakesItsIDFromItsKeyAndStoreOnFirstUse() throws {
        let (stack, books) = try savedBooks(2)
        let ids = books.map(\.objectID)
        XCTAssertEqual(Set(ids.map(\.primaryKey)).count, 2)
        for id in ids {
            XCTAssertFalse(id.isTemporaryID)
            XCTAssertEqual(id.storeIdentifier, stack.store.identifier)
        }
        XCTAssertTrue(books[0].objectID === ids[0], "the ID is made once and kept")
    }

    func testAFetchedObjectKeepsItsKeyWhenItsRowGoesAndComesBack() throws {
        // Until its ID is made, a fetched object's key is read from its row.
        let (stack, books) = try savedBooks(3)
        let keys = books.map(\.primaryKey)
        XCTAssertEqual(Set(keys).count, 3)
        let titles = try books.map { try $0.value(forKey: "title") }
        for ((book, key), title) in zip(zip(books, keys), titles) {
            try stack.context.refresh(book, mergeChanges: false)
            XCTAssertEqual(book.primaryKey, key)
            XCTAssertEqual(try book.value(forKey: "title"), title)
            XCTAssertEqual(book.primaryKey, key)
            XCTAssertEqual(book.objectID.primaryKey, key)
            XCTAssertFalse(book.objectID.isTemporaryID)
        }
        // A saved insert, turned into a fault before its ID is made, keeps its key too.
        let book = try stack.context.insertObject(entityName: "Book")
        try book.setValue(.string("New"), forKey: "title")
        try stack.context.save()
        let key = book.primaryKey
        try stack.context.refresh(book, mergeChanges: false)
        XCTAssertEqual(book.primaryKey, key)
        XCTAssertEqual(try book.value(forKey: "title"), .string("New"))
        XCTAssertEqual(book.objectID.primaryKey, key)
    }

    func testSlotsFrom64OnAreChangesLikeTheFirst64() throws {
        let model = ManagedObjectModel()
        let wide = try model.addEntity(named: "Wide")
        for n in 0..<70 { try wide.addAttribute(named: "a\(n)", type: .integer64) }
        let stack = try Stack(model: model, path: try temporaryDirectory() + "/wide.sqlite")
        let o = try stack.context.insertObject(entityName: "Wide")
        try o.setValue(.integer(1), forKey: "a2")
        try stack.context.save()
        XCTAssertFalse(o.hasChanges)
        // Only a slot past 64 changes: the object is updated, and the save writes it.
        try o.setValue(.integer(67), forKey: "a67")
        XCTAssertTrue(o.isUpdated && o.isChanged(67) && !o.isChanged(2) && !o.isChanged(3))
        XCTAssertEqual(o.changedSlots.contains(67), true)
        try stack.context.save()
        XCTAssertFalse(o.hasChanges || o.isChanged(67))
        try o.setValue(.integer(69), forKey: "a69")
        try stack.context.rollback()
        XCTAssertFalse(o.hasChanges)
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        let read = try XCTUnwrap(try other.fetch(FetchRequest(entityName: "Wide")).first)
        XCTAssertEqual(try read.value(forKey: "a2"), .integer(1))
        XCTAssertEqual(try read.value(forKey: "a67"), .integer(67))
        XCTAssertEqual(try read.value(forKey: "a69"), .null)
    }

    func testASavedInsertKeepsAPermanentIDItMakesOnFirstUse() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/objects.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        XCTAssertTrue(book.objectID.isTemporaryID)
        XCTAssertTrue(book.hasTemporaryID)
        try stack.context.save()
        XCTAssertFalse(book.hasTemporaryID)
        XCTAssertGreaterThan(book.primaryKey, 0)
        XCTAssertFalse(book.objectID.isTemporaryID)
        XCTAssertEqual(book.objectID.primaryKey, book.primaryKey)
        XCTAssertEqual(book.objectID.storeIdentifier, stack.store.identifier)
        XCTAssertTrue(try stack.context.existingObject(with: book.objectID) === book)
    }
}
