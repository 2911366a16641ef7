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
    /// 120 bytes of fields or fewer put an object in glibc's 128-byte chunks (136 took 144).
    func testAFetchedObjectTakesAtMost120BytesFromMalloc() throws {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try XCTUnwrap(dlsym(nil, "malloc_usable_size"), "glibc's malloc_usable_size")
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let (_, books) = try savedBooks(3)
        XCTAssertEqual(books.count, 3)
        for book in books {
            XCTAssertLessThanOrEqual(usableSize(Unmanaged.passUnretained(book).toOpaque()), 120)
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
