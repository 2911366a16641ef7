import Foundation
@testable import ObjectGraph
import XCTest

/// A store file's whole metadata, read and written without adding the store.
final class StoreFileMetadataTests: XCTestCase {
    func testMetadataIsReadAndWrittenWithoutAddingTheStore() throws {
        for type in [StoreType.sqlite, StoreType.binary] {
            let dir = try temporaryDirectory()
            let path = dir + "/lending." + type
            let stack = try lendingStack(path, type: type)
            try stack.context.insertObject(entityName: "Tag").setValue("sf", forKey: "name")
            try stack.context.save()
            let uuid = stack.store.identifier
            try stack.coordinator.removePersistentStore(stack.store)

            var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: path, options: [:])
            XCTAssertEqual(metadata[StoreMetadataKey.storeType], .string(type))
            XCTAssertEqual(metadata[StoreMetadataKey.storeUUID], .string(uuid))
            guard case .dictionary(let hashes)? = metadata[StoreMetadataKey.modelVersionHashes],
                  case .data(let bookHash)? = hashes["Book"] else { return XCTFail("version hashes are data") }
            XCTAssertEqual(bookHash.count, 32)

            metadata["Reviewer"] = .string("Sam")
            metadata[StoreMetadataKey.storeUUID] = .string("someone else")
            metadata[StoreMetadataKey.storeType] = .string("Other")
            try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: type, at: path, options: [:])
            let back = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: path, options: [:])
            XCTAssertEqual(back["Reviewer"], .string("Sam"))
            XCTAssertEqual(back[StoreMetadataKey.storeUUID], .string(uuid), "the UUID is kept")
            XCTAssertEqual(back[StoreMetadataKey.storeType], .string(type), "the type is kept")

            let other = type == StoreType.sqlite ? StoreType.binary : StoreType.sqlite
            XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: other, at: path, options: [:]) }?.code,
                           ErrorCode.storeTypeMismatch)
            XCTAssertEqual(expectError {
                try PersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: nil, at: path, options: [StoreOptionKey.readOnly: .boolean(true)])
            }?.code, ErrorCode.storeOperation)
            chmod(path, 0o444)
            XCTAssertEqual(expectError { try PersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: nil, at: path, options: [:]) }?.code,
                           ErrorCode.storeOperation)
            chmod(path, 0o644)
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    func testNoReadableStoreIs134080() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: dir + "/none", options: [:]) }?.code,
                       ErrorCode.storeOpen)
        let junk = dir + "/junk"
        try Data("not a store at all".utf8).write(to: URL(fileURLWithPath: junk))
        XCTAssertEqual(expectError { _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: junk, options: [:]) }?.code,
                       ErrorCode.storeOpen)
        XCTAssertEqual(expectError { try PersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: nil, at: junk, options: [:]) }?.code,
                       ErrorCode.storeOpen)
    }
}
