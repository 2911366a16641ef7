import XCTest

@testable import ObjectGraph

/// The coordinator's row cache: entries by store, hierarchy and key, forgotten per store,
/// and evicted oldest first once full.
final class RowCacheTests: XCTestCase {
    func testRecordsForgetsByStoreAndEvictsOldestFirst() throws {
        let stack = try lendingStack()
        let tag = try XCTUnwrap(stack.model.entitiesByName["Tag"])
        let book = try XCTUnwrap(stack.model.entitiesByName["Book"])
        let storeA = StoreRef(slot: 0, identifier: "A"), storeB = StoreRef(slot: 1, identifier: "B")
        var cache = RowCache()
        let row = RowSnapshot.make(entity: tag, primaryKey: 1, version: 3, values: [])
        cache.record(RowCache.key(tag, 1, storeA), row: row, version: 3, time: 10)
        cache.record(RowCache.key(book, 1, storeA), row: nil, version: 7, time: 11)
        cache.record(RowCache.key(tag, 1, storeB), row: nil, version: 9, time: 12)
        XCTAssertTrue(cache.entry(RowCache.key(tag, 1, storeA))?.row?.isSame(as: row) == true)
        XCTAssertEqual(cache.entry(RowCache.key(book, 1, storeA))?.version, 7)
        XCTAssertEqual(cache.entry(RowCache.key(tag, 1, storeB))?.version, 9)
        XCTAssertNil(cache.entry(RowCache.key(tag, 2, storeA)))
        // Recording again replaces the entry in place.
        cache.record(RowCache.key(tag, 1, storeA), row: nil, version: 4, time: 13)
        XCTAssertEqual(cache.entry(RowCache.key(tag, 1, storeA))?.version, 4)
        cache.removeAll(store: 0)
        XCTAssertNil(cache.entry(RowCache.key(tag, 1, storeA)))
        XCTAssertNil(cache.entry(RowCache.key(book, 1, storeA)))
        XCTAssertEqual(cache.entry(RowCache.key(tag, 1, storeB))?.version, 9)
        // Full: the oldest entries go first.
        for pk in 2...Int64(RowCache.capacity + 10) {
            cache.record(RowCache.key(tag, pk, storeB), row: nil, version: pk, time: 0)
        }
        XCTAssertNil(cache.entry(RowCache.key(tag, 1, storeB)))
        XCTAssertNil(cache.entry(RowCache.key(tag, 10, storeB)))
        XCTAssertEqual(cache.entry(RowCache.key(tag, Int64(RowCache.capacity + 10), storeB))?.version, Int64(RowCache.capacity + 10))
    }

    /// A save records its rows only when another context could hold an older version: the
    /// only context of a coordinator with an empty cache records nothing, and a context made
    /// after it reads the store.
    func testSavesRecordTheirRowsOnlyWhenAnotherContextCouldHoldThem() throws {
        let stack = try Stack(model: try makeLibraryModel(), path: try temporaryDirectory() + "/cache.sqlite")
        let book = try stack.context.insertObject(entityName: "Book")
        try stack.context.save()
        try book.setValue(.integer(5), forKey: "pages")
        try stack.context.save()
        XCTAssertTrue(stack.coordinator.rowCache.isEmpty, "the only context recorded its save")

        let later = ManagedObjectContext(coordinator: stack.coordinator)
        let seen = try later.existingObject(with: book.objectID)
        XCTAssertEqual(try seen.value(forKey: "pages"), .integer(5))
        try seen.setValue(.integer(6), forKey: "pages")
        try later.save()
        let key = RowCache.key(book.entity, book.primaryKey, stack.coordinator.attached[0].ref)
        let recorded = try XCTUnwrap(stack.coordinator.rowCache.entry(key), "two contexts: the save recorded its row")
        XCTAssertEqual(recorded.version, seen.snapshot?.version)
        XCTAssertEqual(recorded.row?[book.entity.layout.slotByName["pages"]!], .integer(6))

        // The first context still holds the older version: its save conflicts, found in the cache.
        try book.setValue(.integer(7), forKey: "pages")
        XCTAssertEqual(expectError { try stack.context.save() }?.code, ErrorCode.merge)
    }
}
