import CSQLite
import Foundation
import ObjectGraph
import XCTest

/// Copying a store (`StoreMigration.swift`): the copy's identity and validation.
final class StoreMigrationTests: XCTestCase {
    func testCopyGetsItsOwnUUIDAndOldObjectIDsStillWork() throws {
        let path = try temporaryDirectory() + "/items.sqlite"
        let stack = try Stack(model: try Catalogue.version2(), path: path)
        let item = try stack.context.insertObject(entityName: "Item")
        try item.setValue(.string("kept"), forKey: "name")
        try stack.context.save()
        let oldID = item.objectID
        let copy = try stack.coordinator.migratePersistentStore(stack.store, to: path + ".copy", type: StoreType.sqlite)
        XCTAssertNotEqual(copy.identifier, stack.store.identifier)
        XCTAssertNil(stack.coordinator.persistentStore(withIdentifier: stack.store.identifier))
        // An ID made before the copy still reaches its row.
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        let again = try reader.existingObject(with: oldID)
        XCTAssertEqual(try again.value(forKey: "name"), .string("kept"))
    }

    func testAnInvalidRowStopsTheCopy() throws {
        let path = try temporaryDirectory() + "/items.sqlite"
        let stack = try Stack(model: try Catalogue.version2(), path: path)
        try stack.context.insertObject(entityName: "Item").setValue(.string("x"), forKey: "name")
        try stack.context.save()
        // A row another program wrote without the required rating.
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "UPDATE ZITEM SET ZRATING = NULL", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        try stack.context.reset()
        let target = path + ".copy"
        let e = expectError { try stack.coordinator.migratePersistentStore(stack.store, to: target, type: StoreType.sqlite) }
        XCTAssertEqual(e?.code, ErrorCode.storeOperation)
        XCTAssertTrue(e?.message.contains("not valid") ?? false, e?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        XCTAssertTrue(stack.coordinator.persistentStores[0] === stack.store)
    }
}
